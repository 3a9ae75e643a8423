/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision probe NAME: cuInit inside the running container, explained. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/exitcode.h"
#include "base/paths.h"
#include "base/util.h"
#include "commands.h"
#include "config/ini.h"
#include "deepreport.h"
#include "diagnose/deep.h"
#include "diagnose/diagnose.h"
#include "diagnose/diagnosedeep.h"
#include "diagnose/nestedrun.h"
#include "diagnose/proberun.h"
#include "diagnose/verdict.h"
#include "driver/hoststate.h"
#include "ops/containers.h"
#include "ops/target.h"
#include "plan/alloc.h"
#include "plan/planner.h"
#include "start/cdi.h"
#include "start/inject.h"

struct probe_ctx {
	struct gp_ini conf;
	struct gp_host_state hs; /* the host read first; the rest when a result needs HMM */
	struct gp_plan plan;
	bool chosen[GP_MAX_GPUS];
	struct gp_plan_gpu given[GP_MAX_GPUS]; /* a portable selection's, from its start's plan */
	size_t ngiven;
	bool attached;
	bool injected[GP_DEEP_COUNT]; /* the ini gives the capability's libraries */
	struct gp_nested nested;      /* --nested's, when nested.image is set */
};

/* The plan the probe expects from the GPUs a start got (started, chosen in p). */
static int given(const struct gp_cli *cli, struct probe_ctx *p, const struct gp_plan *started)
{
	memcpy(p->given, started->gpus, started->ngpus * sizeof(started->gpus[0]));
	p->ngiven = started->ngpus;
	return gp_plan_for_chosen(cli->ctx.root, &p->hs.host, &p->conf, GP_WHERE_LINE, p->chosen,
				  &p->plan);
}

/*
 * A portable selection's GPUs are the ones its start got, as its plan records them: what
 * the ini says is only which it could have had. Without that record nothing is guessed:
 * every GPU it might have had would be judged, the probe is refused, saying why.
 */
static int started_with(const struct gp_cli *cli, const char *name, struct probe_ctx *p)
{
	_cleanup_free_ struct gp_plan *started = malloc(sizeof(*started));
	char why[600];

	if (!started)
		return -ENOMEM;
	if (gp_alloc_started_with(cli->ctx.root, name, &p->hs.host, started, p->chosen, why,
				  sizeof(why)) == 0)
		return given(cli, p, started);
	if (!gp_container_running(name, cli->ctx.lxcpath))
		gp_error("container \"%s\" is not running: start it, then probe it", name);
	else
		gp_error("%s:%u: devices = %s takes free GPUs at each start, and %s: which GPUs "
			 "%s got is not known, so none is judged; restart %s so that its start "
			 "records them, then probe it again",
			 p->conf.path, p->conf.devices_line, p->conf.devices, why, name, name);
	return -ENOENT;
}

/* The container's GPUs and nodes as its ini and today's host say; or all of the host's. */
static int expectations(const struct gp_cli *cli, const char *name, struct probe_ctx *p)
{
	struct gp_ini host_conf;
	int r;

	if (gp_hostconf_load(&cli->ctx, &host_conf) < 0)
		return -GP_EBADCONF;
	r = gp_ini_load(&cli->ctx, name, &p->conf);
	if (r < 0 && r != -ENOENT)
		return -GP_EBADCONF;
	p->attached = r == 0;
	if (!p->attached)
		p->conf = host_conf;
	gp_ini_merge_host(&p->conf, &host_conf);
	/* The MIG caps table (thousands of lines) only where the plan needs it. */
	if (gp_host_read(cli->ctx.root, !p->attached || p->conf.caps[0] ? GP_HOST_MIG : 0,
			 &p->hs.host) < 0)
		return -EIO;
	if (!p->attached)
		return gp_plan_all(cli->ctx.root, &p->hs.host, &p->plan);
	if (gp_selection_is_portable(p->conf.devices))
		return started_with(cli, name, p);
	return gp_plan_for_conf(cli->ctx.root, &p->hs.host, &p->conf, GP_WHERE_LINE, p->chosen,
				&p->plan);
}

static const char *status_name(enum gp_probe_status s)
{
	return s == GP_PROBE_OK ? "ok" : s == GP_PROBE_TIMEOUT ? "timeout" : "failed";
}

/* The libcuda the probe loaded is the one the hook injected, at the module's version. */
static bool libcuda_is_injected(const struct gp_probe_result *r, const char *module)
{
	const char *dir = GP_INJECT_LIBDIR "/";

	return r->libcuda_found && strncmp(r->libcuda_path, dir, strlen(dir)) == 0 &&
	       !strchr(r->libcuda_path + strlen(dir), '/') && module[0] &&
	       strcmp(r->libcuda_suffix, module) == 0;
}

/* In a nested container the CDI spec binds libcuda by its soname: the name has no version. */
static bool libcuda_from_spec(const struct probe_ctx *p, const struct gp_probe_result *r)
{
	return p->nested.image && r->libcuda_found &&
	       gp_cdi_is_lib_path(r->libcuda_path, "libcuda.so.1");
}

static void print_text(const char *name, const struct probe_ctx *p, const struct gp_probe_result *r,
		       const char *module, const struct gp_deep *deep, const struct gp_findings *f)
{
	if (p->nested.image)
		printf("probe %s (nested: %s, %s): %s in %.0f ms\n", name,
		       gp_nested_runtime_name(p->nested.runtime), p->nested.image,
		       status_name(r->status), r->elapsed_ms);
	else
		printf("probe %s: %s in %.0f ms\n", name, status_name(r->status), r->elapsed_ms);
	if (p->ngiven)
		printf("  devices = %s: the start got", p->conf.devices);
	for (size_t i = 0; i < p->ngiven; i++)
		printf("%s GPU %u %s%s", i ? "," : "", p->given[i].index, p->given[i].uuid,
		       i + 1 == p->ngiven ? "\n" : "");
	if (libcuda_from_spec(p, r))
		printf("  glibc %s; libcuda %s (the CDI spec's, injected); driver API %d\n",
		       r->glibc[0] ? r->glibc : "?", r->libcuda_path, r->driver_version);
	else if (r->libcuda_found)
		printf("  glibc %s; libcuda %s (%s %s); driver API %d\n",
		       r->glibc[0] ? r->glibc : "?", r->libcuda_path,
		       libcuda_is_injected(r, module) ? "injected, the kernel module's"
						      : "the container's own, version",
		       r->libcuda_suffix, r->driver_version);
	else
		printf("  glibc %s; libcuda not found; driver API %d\n",
		       r->glibc[0] ? r->glibc : "?", r->driver_version);
	if (r->cuinit_done)
		printf("  cuInit %d %s, %d device(s)\n", r->cuinit_code, r->cuinit_name,
		       r->ndevices);
	for (int i = 0; i < r->ndevices; i++)
		printf("  device %d %s %s\n", i, r->devices[i].pci, r->devices[i].uuid);
	for (size_t i = 0; i < r->nnodes; i++)
		printf("  /dev/%-24s %s %u:%u open %s\n", r->nodes[i].name,
		       r->nodes[i].exists ? "c" : "-", r->nodes[i].major, r->nodes[i].minor,
		       r->nodes[i].open_errno ? gp_strerror(r->nodes[i].open_errno) : "ok");
	if (deep)
		gp_deep_print(r, deep);
	gp_findings_print(f, stdout, "", false);
}

/* A portable selection's GPUs as its start got them: [{"index": 0, "uuid": "GPU-..."}]. */
static struct json_object *given_json(const struct probe_ctx *p)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < p->ngiven; i++) {
		struct json_object *g = json_object_new_object();

		json_object_object_add(g, "index", json_object_new_int((int)p->given[i].index));
		json_object_object_add(g, "uuid", json_object_new_string(p->given[i].uuid));
		json_object_array_add(a, g);
	}
	return a;
}

static struct json_object *result_json(const char *name, const struct probe_ctx *p,
				       const struct gp_probe_result *r, const struct gp_deep *deep,
				       const struct gp_findings *f)
{
	struct json_object *o = json_object_new_object(), *cu = json_object_new_object();
	struct json_object *devs = json_object_new_array(), *nodes = json_object_new_array();

	json_object_object_add(o, "container", json_object_new_string(name));
	json_object_object_add(o, "status", json_object_new_string(status_name(r->status)));
	json_object_object_add(o, "nested", json_object_new_boolean(p->nested.image != NULL));
	if (p->nested.image) {
		json_object_object_add(
		    o, "runtime",
		    p->nested.runtime == GP_NESTED_AUTO
			? NULL
			: json_object_new_string(gp_nested_runtime_name(p->nested.runtime)));
		json_object_object_add(o, "image", json_object_new_string(p->nested.image));
		json_object_object_add(o, "nested_container",
				       json_object_new_string(p->nested.name));
	}
	json_object_object_add(o, "elapsed_ms", json_object_new_double(r->elapsed_ms));
	json_object_object_add(o, "glibc", json_object_new_string(r->glibc));
	json_object_object_add(o, "libcuda",
			       r->libcuda_found ? json_object_new_string(r->libcuda_path) : NULL);
	json_object_object_add(o, "libcuda_version", json_object_new_string(r->libcuda_suffix));
	json_object_object_add(o, "libcuda_injected",
			       json_object_new_boolean(libcuda_is_injected(r, p->hs.host.version) ||
						       libcuda_from_spec(p, r)));
	json_object_object_add(o, "driver_api", json_object_new_int(r->driver_version));
	json_object_object_add(cu, "code",
			       r->cuinit_done ? json_object_new_int(r->cuinit_code) : NULL);
	json_object_object_add(cu, "name",
			       r->cuinit_done ? json_object_new_string(r->cuinit_name) : NULL);
	json_object_object_add(o, "cuinit", cu);
	for (int i = 0; i < r->ndevices; i++) {
		struct json_object *d = json_object_new_object();

		json_object_object_add(d, "uuid", json_object_new_string(r->devices[i].uuid));
		json_object_object_add(d, "pci", json_object_new_string(r->devices[i].pci));
		json_object_array_add(devs, d);
	}
	json_object_object_add(o, "devices", devs);
	if (p->ngiven)
		json_object_object_add(o, "gpus", given_json(p));
	for (size_t i = 0; i < r->nnodes; i++) {
		struct json_object *n = json_object_new_object();
		char path[80], rdev[32];

		snprintf(path, sizeof(path), "/dev/%s", r->nodes[i].name);
		snprintf(rdev, sizeof(rdev), "%u:%u", r->nodes[i].major, r->nodes[i].minor);
		json_object_object_add(n, "path", json_object_new_string(path));
		json_object_object_add(n, "rdev",
				       r->nodes[i].exists ? json_object_new_string(rdev) : NULL);
		json_object_object_add(n, "open_errno",
				       json_object_new_int(r->nodes[i].open_errno));
		json_object_array_add(nodes, n);
	}
	json_object_object_add(o, "nodes", nodes);
	if (deep)
		json_object_object_add(o, "capabilities", gp_deep_json(r, deep, p->injected));
	json_object_object_add(o, "findings", gp_findings_json(f));
	return o;
}

static void report(const struct gp_cli *cli, const char *name, const struct probe_ctx *p,
		   const struct gp_probe_result *r, const struct gp_deep *deep,
		   const struct gp_findings *f)
{
	char summary[256] = "";

	if (cli->json) {
		struct json_object *o = result_json(name, p, r, deep, f);

		printf("%s\n", json_object_to_json_string_ext(
				   o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		print_text(name, p, r, p->hs.host.version, deep, f);
	}
	if (p->nested.image) /* list shows the container's own probe, not a nested one */
		return;
	if (deep)
		gp_deep_summary(deep, summary, sizeof(summary));
	gp_verdict_save(cli->ctx.root, name, status_name(r->status), deep ? summary : NULL);
}

/*
 * A nested run that stopped before the probe could run, said with what to do: true then.
 * The exit is then the plain probe's where it could not run (the container not running).
 */
static bool nested_stopped(const char *name, const struct gp_nested *n)
{
	const char *rt = gp_nested_runtime_name(n->runtime);

	switch (n->outcome) {
	case GP_NESTED_RAN:
		return false;
	case GP_NESTED_NO_RUNTIME:
		gp_error("no %s in container \"%s\" (looked in /usr/sbin, /usr/bin, /sbin, /bin): "
			 "install it there, or probe without --nested",
			 n->want == GP_NESTED_AUTO ? "podman or docker" : rt, name);
		break;
	case GP_NESTED_NO_CDI:
		gp_error(
		    "no CDI spec at \"%s\" in container \"%s\": its start injected none; "
		    "gpu-provision attach %s --inject (with [driver] cdi = yes), then restart it",
		    GP_CDI_LINK, name, name);
		break;
	case GP_NESTED_NO_IMAGE:
		gp_error("image \"%s\" is not in %s's store in container \"%s\" (--nested never "
			 "pulls): run %s pull %s inside it, then probe again",
			 n->image, rt, name, rt, n->image);
		break;
	case GP_NESTED_NO_FILE:
		gp_error("could not make the probe's file under /run or /tmp in container \"%s\" "
			 "(full, read-only or noexec): free one of them",
			 name);
		break;
	}
	return true;
}

/* Runs the probe and judges it: r, its deep verdicts (when asked) and the findings. */
static int probe_and_judge(const struct gp_cli *cli, const char *name, struct probe_ctx *p,
			   struct gp_probe_result *r, struct gp_deep *deep, struct gp_findings *f)
{
	char probe[PATH_MAX];
	struct gp_expect e;
	int timeout_ms;

	if (gp_program_path("gpu-probe", GP_LIBEXECDIR, probe, sizeof(probe)) < 0) {
		gp_error("gpu-probe is neither beside gpu-provision nor in %s", GP_LIBEXECDIR);
		return -ENOENT;
	}
	timeout_ms = (int)(cli->timeout ? cli->timeout : p->conf.probe_timeout) * 1000;
	if (p->nested.image) {
		if (gp_nested_run(cli->ctx.lxcpath, name, probe, &p->plan, deep != NULL, timeout_ms,
				  &p->nested, r) < 0 ||
		    nested_stopped(name, &p->nested))
			return -EIO;
	} else if (gp_probe_run(cli->ctx.lxcpath, name, probe, &p->plan, deep != NULL, timeout_ms,
				r) < 0) {
		return -EIO;
	}
	p->hs.hmm = (struct gp_hmm){ .active = GP_UNKNOWN };
	if (gp_diagnose_needs_hmm(r))
		gp_host_state_judge(cli->ctx.root, GP_STATE_NVML, &p->hs);
	if (deep)
		gp_deep_judge(r, deep);
	e = (struct gp_expect){ .name = name,
				.attached = p->attached,
				.plan = &p->plan,
				.host = &p->hs.host,
				.chosen = p->chosen,
				.hmm = &p->hs.hmm,
				.timeout_ms = timeout_ms,
				.fixture_host = !gp_root_is_host(cli->ctx.root),
				.deep = deep,
				.inject = p->attached && p->conf.inject == GP_INJECT_YES,
				.capabilities = p->conf.capabilities,
				.nested = p->nested.image ? &p->nested : NULL };
	gp_diagnose(r, &e, f);
	for (int c = 0; c < GP_DEEP_COUNT; c++)
		p->injected[c] = gp_deep_cap_injected(&e, (enum gp_deep_cap)c);
	return 0;
}

/* --nested IMAGE and --runtime, checked: 0, or -GP_EBADCONF (said). */
static int nested_options(const struct gp_cli *cli, struct probe_ctx *p)
{
	p->nested.want = GP_NESTED_AUTO;
	if (cli->runtime && !cli->nested) {
		gp_error("--runtime %s: only with --nested IMAGE", cli->runtime);
		return -GP_EBADCONF;
	}
	if (cli->runtime && gp_nested_runtime_parse(cli->runtime, &p->nested.want) < 0) {
		gp_error("--runtime \"%s\": use podman or docker", cli->runtime);
		return -GP_EBADCONF;
	}
	if (cli->nested && !gp_nested_image_is_valid(cli->nested)) {
		gp_error("--nested \"%s\": an image reference (letters, digits, ._-/:@, not "
			 "starting with -)",
			 cli->nested);
		return -GP_EBADCONF;
	}
	p->nested.image = cli->nested;
	return 0;
}

int gp_cmd_probe(const struct gp_cli *cli)
{
	struct probe_ctx *p = calloc(1, sizeof(*p));
	struct gp_probe_result *r = calloc(1, sizeof(*r));
	struct gp_findings *f = calloc(1, sizeof(*f));
	struct gp_deep *deep = NULL;
	const char *name;
	int ret = GP_EXIT_FAILED;

	if (cli->nargs != 2 || !gp_name_is_valid(cli->args[1])) {
		gp_error("usage: gpu-provision probe NAME [--deep] [--nested IMAGE [--runtime "
			 "podman|docker]] [--timeout SECONDS] [--json]");
		ret = GP_EXIT_USAGE;
		goto out;
	}
	name = cli->args[1];
	if (!p || !r || !f)
		goto out;
	if (nested_options(cli, p) < 0) {
		ret = GP_EXIT_USAGE;
		goto out;
	}
	if (expectations(cli, name, p) < 0)
		goto out;
	if (p->nested.image &&
	    !(p->attached && p->conf.inject == GP_INJECT_YES && p->conf.cdi == GP_CDI_YES)) {
		gp_error("container \"%s\" is given no CDI spec (%s): --nested runs through it; "
			 "gpu-provision attach %s --inject, then restart it",
			 name, p->attached ? "its ini injects none" : "it has no ini", name);
		goto out;
	}
	if (cli->deep || p->conf.probe_deep == GP_PROBE_DEEP_YES) {
		deep = calloc(1, sizeof(*deep));
		if (!deep)
			goto out;
	}
	if (probe_and_judge(cli, name, p, r, deep, f) < 0)
		goto out;
	report(cli, name, p, r, deep, f);
	ret = r->status == GP_PROBE_OK ? GP_EXIT_OK : GP_EXIT_PROBLEM;
out:
	if (p)
		gp_host_state_free(&p->hs);
	free(p);
	free(r);
	free(f);
	free(deep);
	return ret;
}
