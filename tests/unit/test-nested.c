/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * probe --nested without a container: the runtime's words, the runtime chosen by name, the
 * attached process's answers read back (lib/diagnose/nestedrun.c), and when a second run
 * must remove what a run left. tests/slow/nested.sh runs it in real Podman and Docker.
 */
#include "unit.h"

#include "base/error.h"
#include "diagnose/nestedrun.h"

static char *joined(char **argv)
{
	static char buf[1024];
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; argv[i]; i++)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s%s", i ? " " : "", argv[i]);
	return buf;
}

/* No pull, no network, removed at its end, its own name, the probe bound read-only. */
static void run_words(void **state)
{
	char *probe[] = { (char *)"--deep", (char *)"nvidiactl:195:255", NULL };
	char **argv;

	(void)state;
	argv = gp_nested_argv(GP_NESTED_PODMAN, "/usr/bin/podman", "gpu-probe-00ff",
			      "/run/gpu-probe-00ff/gpu-probe", "debian:12", probe);
	assert_non_null(argv);
	assert_string_equal(
	    joined(argv), "/usr/bin/podman run --rm --network none --name gpu-probe-00ff --pull "
			  "never --stop-timeout 0 --entrypoint /gpu-probe --volume "
			  "/run/gpu-probe-00ff/gpu-probe:/gpu-probe:ro --device nvidia.com/gpu=all "
			  "debian:12 --deep nvidiactl:195:255");
	gp_probe_argv_free(argv);
	argv = gp_nested_argv(GP_NESTED_DOCKER, "/usr/bin/docker", "gpu-probe-1",
			      "/tmp/gpu-probe-1/gpu-probe", "ollama/ollama:latest",
			      (char *[]){ NULL });
	assert_string_equal(
	    joined(argv), "/usr/bin/docker run --rm --network none --name gpu-probe-1 --pull never "
			  "--stop-timeout 0 --entrypoint /gpu-probe --volume "
			  "/tmp/gpu-probe-1/gpu-probe:/gpu-probe:ro --device nvidia.com/gpu=all "
			  "ollama/ollama:latest");
	gp_probe_argv_free(argv);
	argv = gp_nested_rm_argv("/usr/bin/podman", "gpu-probe-1");
	assert_string_equal(joined(argv), "/usr/bin/podman rm -f gpu-probe-1");
	gp_probe_argv_free(argv);
}

static void runtime_and_image_words(void **state)
{
	enum gp_nested_runtime rt = GP_NESTED_AUTO;

	(void)state;
	assert_int_equal(gp_nested_runtime_parse("podman", &rt), 0);
	assert_int_equal(rt, GP_NESTED_PODMAN);
	assert_int_equal(gp_nested_runtime_parse("docker", &rt), 0);
	assert_int_equal(rt, GP_NESTED_DOCKER);
	assert_int_equal(gp_nested_runtime_parse("crun", &rt), -GP_EBADCONF);
	assert_int_equal(gp_nested_runtime_parse("", &rt), -GP_EBADCONF);
	assert_string_equal(gp_nested_runtime_name(GP_NESTED_AUTO), "auto");
	assert_true(gp_nested_image_is_valid("debian:12"));
	assert_true(gp_nested_image_is_valid("ghcr.io/a/b@sha256:0123abcd"));
	assert_false(gp_nested_image_is_valid("--privileged")); /* an option, not an image */
	assert_false(gp_nested_image_is_valid("-v"));
	assert_false(gp_nested_image_is_valid(""));
	assert_false(gp_nested_image_is_valid("a b"));
	assert_false(gp_nested_image_is_valid("a\nb"));
	assert_false(gp_nested_image_is_valid("a;b"));
}

/* A child as gp_child_wait leaves it: the attached process's output and how it ended. */
static struct gp_child ended(const char *out, const char *err, int code)
{
	return (struct gp_child){
		.out = (char *)out, .err = (char *)err, .exit_code = code, .reaped = true
	};
}

static void take(const struct gp_child *ch, struct gp_nested *n, struct gp_probe_result *r)
{
	memset(n, 0, sizeof(*n));
	memset(r, 0, sizeof(*r));
	gp_nested_take(ch, n, r);
}

/* The first line names the runtime; what follows is the probe's; a code says what stopped it. */
static void answers(void **state)
{
	struct gp_probe_result *r = calloc(1, sizeof(*r));
	struct gp_nested n;
	struct gp_child ch;

	(void)state;
	ch = ended("nested docker\ngpu-probe 1\nglibc 2.36\nend\n", "", 0);
	take(&ch, &n, r);
	assert_int_equal(n.runtime, GP_NESTED_DOCKER);
	assert_int_equal(n.outcome, GP_NESTED_RAN);
	assert_true(r->complete);
	assert_string_equal(r->glibc, "2.36");
	assert_false(gp_nested_must_clean(&ch, &n, r));
	ch = ended("", "", 90);
	take(&ch, &n, r);
	assert_int_equal(n.outcome, GP_NESTED_NO_RUNTIME);
	assert_int_equal(n.runtime, GP_NESTED_AUTO);
	assert_false(gp_nested_must_clean(&ch, &n, r)); /* nothing was started */
	ch = ended("nested podman\n", "", 91);
	take(&ch, &n, r);
	assert_int_equal(n.outcome, GP_NESTED_NO_CDI);
	ch = ended("nested podman\n", "", 92);
	take(&ch, &n, r);
	assert_int_equal(n.outcome, GP_NESTED_NO_IMAGE);
	assert_int_equal(n.runtime, GP_NESTED_PODMAN);
	ch = ended("nested podman\n", "", 93);
	take(&ch, &n, r);
	assert_int_equal(n.outcome, GP_NESTED_NO_FILE);
	/* After the line, 90 is the probe's own code, not ours: it ran. */
	ch = ended("nested podman\n", "", 90);
	take(&ch, &n, r);
	assert_int_equal(n.outcome, GP_NESTED_RAN);
	/* A code of ours after the probe's first line is the probe's. */
	ch = ended("nested podman\ngpu-probe 1\n", "", 92);
	take(&ch, &n, r);
	assert_int_equal(n.outcome, GP_NESTED_RAN);
	assert_true(gp_nested_must_clean(&ch, &n, r)); /* cut short: the runtime may leave it */
	/* A line that is not ours: the whole output is the probe's, and refused. */
	ch = ended("nested crun\ngpu-probe 1\nend\n", "", 0);
	take(&ch, &n, r);
	assert_int_equal(n.runtime, GP_NESTED_AUTO);
	assert_false(r->complete);
	assert_int_equal(r->bad_lineno, 1);
	free(r);
}

/* The image without a loader for the probe, as crun, runc and glibc's loader say it. */
static void no_loader(void **state)
{
	struct gp_probe_result *r = calloc(1, sizeof(*r));
	struct gp_nested n;
	struct gp_child ch;

	(void)state;
	ch = ended("nested podman\n",
		   "\n{\"msg\":\"exec container process (missing dynamic library?) `/gpu-probe`: "
		   "No such file or directory\",\"level\":\"error\"}\nmore\n",
		   1);
	take(&ch, &n, r);
	assert_true(n.no_loader);
	assert_string_equal(n.err,
			    "{\"msg\":\"exec container process (missing dynamic library?) "
			    "`/gpu-probe`: No such file or directory\",\"level\":\"error\"}");
	ch = ended("nested docker\n", "exec /gpu-probe: no such file or directory\n", 255);
	take(&ch, &n, r);
	assert_true(n.no_loader);
	ch = ended("nested docker\n",
		   "/gpu-probe: /lib/libc.so.6: version `GLIBC_2.28' not found\n", 1);
	take(&ch, &n, r);
	assert_true(n.no_loader);
	ch = ended("nested podman\n", "", 127);
	take(&ch, &n, r);
	assert_true(n.no_loader);
	/* near: another refusal of the runtime's, escaped */
	ch = ended("nested podman\n", "Error: crun: \033[31mno\n", 125);
	take(&ch, &n, r);
	assert_false(n.no_loader);
	assert_string_equal(n.err, "Error: crun: \\x1b[31mno");
	/* near: before the runtime ran, no image is no loader */
	ch = ended("", "", 127);
	take(&ch, &n, r);
	assert_false(n.no_loader);
	free(r);
}

/* Every end but a clean one may leave the nested container behind. */
static void when_to_clean(void **state)
{
	struct gp_probe_result r = { .complete = true };
	struct gp_nested n = { .outcome = GP_NESTED_RAN };
	struct gp_child ch = ended("", "", 0);

	(void)state;
	assert_false(gp_nested_must_clean(&ch, &n, &r));
	ch.timed_out = true;
	assert_true(gp_nested_must_clean(&ch, &n, &r));
	ch = ended("", "", 0);
	ch.truncated = true;
	assert_true(gp_nested_must_clean(&ch, &n, &r));
	ch = ended("", "", -1);
	ch.signal = 9;
	assert_true(gp_nested_must_clean(&ch, &n, &r));
	ch = ended("", "", 0);
	ch.reaped = false;
	assert_true(gp_nested_must_clean(&ch, &n, &r));
	ch = ended("", "", 1);
	r.complete = false;
	assert_true(gp_nested_must_clean(&ch, &n, &r));
	n.outcome = GP_NESTED_NO_IMAGE;
	assert_false(gp_nested_must_clean(&ch, &n, &r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(run_words),	 cmocka_unit_test(runtime_and_image_words),
		cmocka_unit_test(answers),	 cmocka_unit_test(no_loader),
		cmocka_unit_test(when_to_clean),
	};
	return cmocka_run_group_tests_name("nested", tests, NULL, NULL);
}
