/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What NVIDIA's container toolkit and Docker left in a container (lib/check/toolkit.c, read;
 * lib/check/checktoolkit.c, judged), over a scratch rootfs: each finding with the whole set
 * of ids, and beside it the near case that must stay silent. Its /dev and /run are tmpfs
 * mounts where a case plays a running container.
 */
#include "unit.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include "base/util.h"
#include "check/check.h"
#include "check/toolkit.h"
#include "ids.h"

static char rootfs[128];
static struct gp_findings found;
static struct gp_toolkit tk;

/* Writes text to rootfs/path, making its directories. */
static void put(const char *path, const char *text)
{
	char full[512];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", rootfs, path);
	sh("mkdir -p \"$(dirname %s)\"", full);
	assert_non_null(f = fopen(full, "w"));
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(rootfs, sizeof(rootfs), "/tmp/gp-toolkit.XXXXXX");
	assert_non_null(mkdtemp(rootfs));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("umount -R %s/dev 2>/dev/null; umount %s/run 2>/dev/null; rm -rf %s", rootfs, rootfs,
	   rootfs);
	return 0;
}

/* The container read (as a running one's, with its own mounts, where running) and judged. */
static const struct gp_findings *judge(bool spec_ours, bool unprivileged, bool running)
{
	int rootfd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int table = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

	assert_true(rootfd >= 0 && table >= 0);
	memset(&found, 0, sizeof(found));
	gp_toolkit_read(rootfd, table, running, &tk);
	close(rootfd);
	close(table);
	gp_check_toolkit("101", spec_ours, unprivileged, &tk, &found);
	return &found;
}

static const char *evidence(const char *id)
{
	for (size_t i = 0; i < found.n; i++)
		if (strcmp(found.v[i].id, id) == 0)
			return found.v[i].evidence;
	fail_msg("no %s", id);
	return NULL;
}

/* NVIDIA's own config.toml (1.17), as apt installs it: no-cgroups commented out. */
static const char nvidia_config[] =
    "#accept-nvidia-visible-devices-as-volume-mounts = false\n"
    "disable-require = false\n"
    "supported-driver-capabilities = \"compat32,compute,display,graphics,ngx,utility,video\"\n"
    "\n"
    "[nvidia-container-cli]\n"
    "environment = []\n"
    "ldconfig = \"@/sbin/ldconfig\"\n"
    "load-kmods = true\n"
    "#no-cgroups = false\n"
    "\n"
    "[nvidia-container-runtime]\n"
    "log-level = \"info\"\n"
    "mode = \"auto\"\n"
    "runtimes = [\n  \"docker-runc\", # the old name\n  'runc',\n  \"crun\",\n]\n"
    "\n"
    "[nvidia-container-runtime.modes.cdi]\n"
    "annotation-prefixes = [\"cdi.k8s.io/\"]\n"
    "default-kind = \"nvidia.com/gpu\"\n"
    "spec-dirs = [\"/etc/cdi\", \"/var/run/cdi\"]\n"
    "\n"
    "[nvidia-container-runtime-hook]\n"
    "path = \"nvidia-container-runtime-hook\"\n"
    "skip-mode-detection = false\n";

static void no_cgroups(void **state)
{
	(void)state;
	put("/etc/nvidia-container-runtime/config.toml", nvidia_config);
	assert_ids(judge(false, true, false), "toolkit-cgroups", NULL);
	assert_non_null(strstr(evidence("toolkit-cgroups"), "has no [nvidia-container-cli] "
							    "no-cgroups: the default is false"));
	assert_ids(judge(false, false, false), NULL); /* privileged: the toolkit's BPF works */
	put("/etc/nvidia-container-runtime/config.toml",
	    "[nvidia-container-cli]\nload-kmods = true\nno-cgroups = false # the default\n");
	assert_ids(judge(false, true, false), "toolkit-cgroups", NULL);
	assert_non_null(strstr(evidence("toolkit-cgroups"),
			       "/etc/nvidia-container-runtime/config.toml:3: no-cgroups = false"));
	put("/etc/nvidia-container-runtime/config.toml",
	    "[nvidia-container-cli]\nload-kmods = true\nno-cgroups = true\n");
	assert_ids(judge(false, true, false), NULL);
	/* The same key as a dotted one, from the top table; another table's is not it. */
	put("/etc/nvidia-container-runtime/config.toml",
	    "\"nvidia-container-cli\".no-cgroups = true\n[other]\nno-cgroups = false\n");
	assert_ids(judge(false, true, false), NULL);
	put("/etc/nvidia-container-runtime/config.toml",
	    "[other]\nno-cgroups = true\n[nvidia-container-cli]\n");
	assert_ids(judge(false, true, false), "toolkit-cgroups", NULL);
}

/* What the toolkit itself would refuse is not guessed at: said, with its line. */
static void config_not_parsed(void **state)
{
	static const char *const bad[] = {
		"[nvidia-container-cli]\nno-cgroups = \"true\"\n",
		"[nvidia-container-cli]\nno-cgroups = true\nno-cgroups = true\n",
		"[nvidia-container-cli\nno-cgroups = true\n",
		"[nvidia-container-cli]\nno-cgroups true\n",
		"runtimes = [\"runc\",\n\n",
		"nvidia-container-cli = { no-cgroups = true }\n",
		"path = \"unclosed\n",
	};
	static const unsigned int lines[] = { 2, 3, 1, 2, 3, 1, 1 };
	char want[32];

	(void)state;
	for (size_t i = 0; i < GP_ARRAY_SIZE(bad); i++) {
		put("/etc/nvidia-container-runtime/config.toml", bad[i]);
		assert_ids(judge(false, true, false), "toolkit-file-unread", NULL);
		snprintf(want, sizeof(want), "does not parse: line %u:", lines[i]);
		if (!strstr(evidence("toolkit-file-unread"), want))
			fail_msg("case %zu: %s", i, evidence("toolkit-file-unread"));
	}
}

static const char dpkg_26[] =
    "Package: docker-cli\nStatus: install ok installed\n"
    "Version: 26.1.5+dfsg1-9+b9\n\n"
    "Package: docker.io\nStatus: install ok installed\nPriority: optional\n"
    "Description: Linux container runtime\n more lines\n"
    "Version: 26.1.5+dfsg1-9+b9\n\n";

static void docker_cdi(void **state)
{
	(void)state;
	put("/var/lib/dpkg/status", dpkg_26);
	put("/etc/docker/daemon.json", "{\"storage-driver\": \"vfs\"}\n");
	assert_ids(judge(true, false, false), "docker-cdi-off", NULL);
	assert_non_null(strstr(evidence("docker-cdi-off"), "docker.io 26.1.5+dfsg1-9+b9"));
	assert_ids(judge(false, false, false), NULL); /* no spec of the start's to read */
	put("/etc/docker/daemon.json", "{\"features\": {\"cdi\": true}}");
	assert_ids(judge(true, false, false), NULL);
	sh("rm %s/etc/docker/daemon.json", rootfs);
	assert_ids(judge(true, false, false), "docker-cdi-off", NULL);
	/* From 28.2 CDI is on unless daemon.json turns it off. */
	put("/var/lib/dpkg/status", "Package: docker-ce\nStatus: install ok installed\n"
				    "Version: 5:28.5.2-1~debian.12~bookworm\n");
	assert_ids(judge(true, false, false), NULL);
	put("/etc/docker/daemon.json", "{\"features\": {\"cdi\": false}}");
	assert_ids(judge(true, false, false), "docker-cdi-off", NULL);
	/* Debian 12's docker.io reads no spec, whatever it is told. */
	put("/var/lib/dpkg/status", "Package: docker.io\nStatus: install ok installed\n"
				    "Version: 20.10.24+dfsg1-1+deb12u1\n");
	put("/etc/docker/daemon.json", "{\"features\": {\"cdi\": true}}");
	assert_ids(judge(true, false, false), "docker-cdi-off", NULL);
	assert_non_null(strstr(found.v[0].summary, "CDI came with Docker 25"));
	/* Removed, config kept: no Docker. */
	put("/var/lib/dpkg/status", "Package: docker.io\nStatus: deinstall ok config-files\n"
				    "Version: 26.1.5+dfsg1-9+b9\n");
	sh("rm %s/etc/docker/daemon.json", rootfs);
	assert_ids(judge(true, false, false), NULL);
	assert_int_equal(gp_toolkit_docker_version("5:28.5.2-1~debian.12"), 2805);
	assert_int_equal(gp_toolkit_docker_version("26.1.5+dfsg1"), 2601);
	assert_int_equal(gp_toolkit_docker_version("x26.1"), -1);
}

static void docker_runtimes(void **state)
{
	static const char runtime[] =
	    "{\"default-runtime\": \"nvidia\", \"runtimes\": {\"nvidia\": "
	    "{\"args\": [], \"path\": \"nvidia-container-runtime\"}}}";

	(void)state;
	put("/etc/docker/daemon.json", runtime);
	assert_ids(judge(false, false, false), "docker-default-runtime-missing", NULL);
	assert_non_null(
	    strstr(evidence("docker-default-runtime-missing"),
		   "\"default-runtime\": \"nvidia\", whose path nvidia-container-runtime "
		   "is not in the container"));
	put("/usr/bin/nvidia-container-runtime", "#!/bin/sh\n");
	assert_ids(judge(false, false, false), NULL);
	sh("mkdir -p %s/usr/local && ln -s /usr/bin %s/usr/local/sbin && rm "
	   "%s/usr/bin/nvidia-container-runtime",
	   rootfs, rootfs, rootfs);
	put("/etc/docker/daemon.json", "{\"runtimes\": {\"nvidia\": {\"path\": "
				       "\"/usr/local/sbin/nvidia-container-runtime\"}}}");
	assert_ids(judge(false, false, false), "docker-runtime-missing", NULL);
	put("/usr/bin/nvidia-container-runtime", "#!/bin/sh\n"); /* by the link, inside */
	assert_ids(judge(false, false, false), NULL);
	put("/etc/docker/daemon.json", "{\"default-runtime\": \"nvidia\"}");
	assert_ids(judge(false, false, false), "docker-default-runtime-missing", NULL);
	assert_non_null(strstr(found.v[0].summary, "does not start"));
	put("/etc/docker/daemon.json", "{\"default-runtime\": \"runc\"}");
	assert_ids(judge(false, false, false), NULL);
	put("/etc/docker/daemon.json", "{\"default-runtime\": \"runc\"} {}");
	assert_ids(judge(false, false, false), "toolkit-file-unread", NULL);
	assert_non_null(strstr(evidence("toolkit-file-unread"), "more after the document"));
}

/* A spec as nvidia-ctk cdi generate writes it, naming node and hook (a path each). */
static void put_spec(const char *path, const char *kind, const char *node, const char *hook)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "---\ncdiVersion: 0.5.0\nkind: %s\ndevices:\n- name: \"0\"\n  containerEdits:\n"
		 "    deviceNodes:\n    - path: %s\n- name: all\n  containerEdits:\n"
		 "    deviceNodes:\n    - path: %s\ncontainerEdits:\n  deviceNodes:\n"
		 "  - path: /dev/nvidiactl\n  hooks:\n  - hookName: createContainer\n"
		 "    path: %s\n    args: [nvidia-cdi-hook, update-ldcache]\n  mounts:\n"
		 "  - hostPath: /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04\n"
		 "    containerPath: /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04\n"
		 "    options: [ro, nosuid, nodev, bind]\n",
		 kind, node, node, hook);
	put(path, text);
}

static void specs(void **state)
{
	(void)state;
	put("/usr/bin/nvidia-cdi-hook", "");
	put("/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04", "");
	put_spec("/etc/cdi/nvidia.yaml", "nvidia.com/gpu", "/dev/nvidia0",
		 "/usr/bin/nvidia-cdi-hook");
	assert_ids(judge(true, false, false), "cdi-spec-conflict", NULL);
	assert_non_null(strstr(evidence("cdi-spec-conflict"), "/etc/cdi/nvidia.yaml: kind: "
							      "nvidia.com/gpu"));
	assert_ids(judge(false, false, false), NULL); /* no spec of the start's */
	put_spec("/etc/cdi/nvidia.yaml", "example.com/dev", "/dev/nvidia0", "/usr/bin/gone");
	assert_ids(judge(true, false, false), NULL);
	/* The toolkit removed, its spec left: the hook it names is gone. */
	put_spec("/etc/cdi/nvidia.yaml", "nvidia.com/gpu", "/dev/nvidia0", "/usr/bin/gone");
	assert_ids(judge(true, false, false), "cdi-spec-conflict", "cdi-spec-stale", NULL);
	assert_non_null(strstr(evidence("cdi-spec-stale"),
			       "1 of its 2 files are not in the container (/usr/bin/gone)"));
	assert_ids(judge(false, false, false), "cdi-spec-stale", NULL);
	sh("rm %s/etc/cdi/nvidia.yaml", rootfs);
	put("/etc/cdi/nvidia.json", "{\"cdiVersion\": \"0.5.0\", \"kind\": \"nvidia.com/gpu\", "
				    "\"devices\": [{\"name\": \"all\", \"containerEdits\": {}}]}");
	assert_ids(judge(true, false, false), "cdi-spec-conflict", NULL);
	sh("rm %s/etc/cdi/nvidia.json && mkdir -p %s/var && ln -s ../run %s/var/run", rootfs,
	   rootfs, rootfs);
	put_spec("/run/cdi/nvidia.yaml", "nvidia.com/gpu", "/dev/nvidia0",
		 "/usr/bin/nvidia-cdi-hook");
	assert_ids(judge(true, false, false), "cdi-spec-overrides", NULL);
	sh("rm -r %s/run/cdi", rootfs);
}

/*
 * A running container's nodes: its /dev a tmpfs of its own, the hook's nodes bound onto
 * files there (mount points), a recipe's made by mknod. /run a tmpfs too.
 */
static void spec_nodes(void **state)
{
	(void)state;
	sh("mkdir -p %s/dev %s/run %s/var && ln -s ../run %s/var/run && mount -t tmpfs none %s/dev "
	   "&& mount -t tmpfs none %s/run && mknod %s/dev/nvidiactl c 195 255 && touch "
	   "%s/dev/nvidia0 && mount --bind /dev/null %s/dev/nvidia0",
	   rootfs, rootfs, rootfs, rootfs, rootfs, rootfs, rootfs, rootfs, rootfs);
	put("/usr/bin/nvidia-cdi-hook", "");
	put("/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04", "");
	put_spec("/run/cdi/nvidia.yaml", "nvidia.com/gpu", "/dev/nvidia0",
		 "/usr/bin/nvidia-cdi-hook");
	assert_ids(judge(false, false, true), NULL);
	assert_true(tk.specs[GP_TK_SPEC_RUN_YAML - GP_TK_SPEC_FIRST].nodes_judged);
	assert_int_equal(tk.specs[GP_TK_SPEC_RUN_YAML - GP_TK_SPEC_FIRST].nodes, 3);
	put_spec("/run/cdi/nvidia.yaml", "nvidia.com/gpu", "/dev/nvidia3",
		 "/usr/bin/nvidia-cdi-hook");
	assert_ids(judge(false, false, true), "cdi-spec-stale", NULL);
	assert_non_null(strstr(evidence("cdi-spec-stale"),
			       "2 of its 3 device nodes are not in its /dev (/dev/nvidia3)"));
	/* Only a running container's own tmpfs is entered. */
	assert_ids(judge(false, false, false), "toolkit-file-unread", NULL);
	assert_non_null(
	    strstr(evidence("toolkit-file-unread"), "behind a mount of the container's"));
	/* A stopped container's /dev is not the one it runs with: its nodes are not judged. */
	sh("mkdir -p %s/etc/cdi && mv %s/run/cdi/nvidia.yaml %s/etc/cdi/ && umount %s/run", rootfs,
	   rootfs, rootfs, rootfs);
	assert_ids(judge(false, false, false), NULL);
	assert_false(tk.specs[0].nodes_judged);
}

/*
 * A container's file that is a link (to a host file, here one under /etc of the test's own
 * host), a FIFO or huge: not followed, not waited on, not read; each said.
 */
static void hostile_files(void **state)
{
	(void)state;
	sh("mkdir -p %s/etc/docker && echo '{\"default-runtime\": \"nvidia\"}' "
	   ">%s/host-file.json && ln -s %s/host-file.json %s/etc/docker/daemon.json",
	   rootfs, rootfs, rootfs, rootfs);
	assert_ids(judge(false, false, false), "toolkit-file-unread", NULL);
	assert_non_null(strstr(evidence("toolkit-file-unread"), "a symbolic link is on its path: "
								"not followed"));
	sh("rm %s/etc/docker/daemon.json && ln -s daemon.real %s/etc/docker/daemon.json && cp "
	   "%s/host-file.json %s/etc/docker/daemon.real",
	   rootfs, rootfs, rootfs, rootfs);
	assert_ids(judge(false, false, false), "toolkit-file-unread", NULL); /* inside: neither */
	sh("rm %s/etc/docker/daemon.json && mkfifo %s/etc/docker/daemon.json", rootfs, rootfs);
	assert_ids(judge(false, false, false), "toolkit-file-unread", NULL);
	assert_non_null(strstr(evidence("toolkit-file-unread"), "not a regular file"));
	sh("rm %s/etc/docker/daemon.json && truncate -s 2M %s/etc/docker/daemon.json", rootfs,
	   rootfs);
	assert_ids(judge(false, false, false), "toolkit-file-unread", NULL);
	assert_non_null(strstr(evidence("toolkit-file-unread"), "over its size limit"));
	sh("rm -r %s/etc/docker", rootfs);
	/* A YAML document of aliases that would multiply past any memory: refused. */
	put("/etc/cdi/nvidia.yaml", "a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, "
				    "*a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\n"
				    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c]\n"
				    "e: &e [*d, *d, *d, *d, *d, *d, *d, *d]\n"
				    "f: [*e, *e, *e, *e, *e, *e, *e, *e]\nkind: nvidia.com/gpu\n");
	assert_ids(judge(true, false, false), "toolkit-file-unread", NULL);
	assert_non_null(strstr(evidence("toolkit-file-unread"), "past 65536 nodes"));
	put("/etc/cdi/nvidia.yaml", "kind: nvidia.com/gpu\ndevices: [\n");
	assert_ids(judge(true, false, false), "toolkit-file-unread", NULL);
	assert_non_null(strstr(evidence("toolkit-file-unread"), "line 3: not YAML"));
	sh("rm -r %s/etc/cdi", rootfs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(no_cgroups, setup, teardown),
		cmocka_unit_test_setup_teardown(config_not_parsed, setup, teardown),
		cmocka_unit_test_setup_teardown(docker_cdi, setup, teardown),
		cmocka_unit_test_setup_teardown(docker_runtimes, setup, teardown),
		cmocka_unit_test_setup_teardown(specs, setup, teardown),
		cmocka_unit_test_setup_teardown(spec_nodes, setup, teardown),
		cmocka_unit_test_setup_teardown(hostile_files, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
