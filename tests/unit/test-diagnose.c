/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gp_diagnose over results built by hand: for each finding it can raise, a result that
 * raises it and a near one that must not, each time with the whole set of ids. The
 * world below is a healthy container given GPU 0 of a two-GPU host with the open module
 * 580.159.04; each test changes one thing in it.
 */
#include "unit.h"

#include <glob.h>

#include "base/util.h"
#include "diagnose/diagnose.h"
#include "ids.h"

#define UUID0 "GPU-00000000-0000-4000-8000-000000000041"
#define UUID1 "GPU-11111111-0000-4000-8000-000000000081"

static struct {
	struct gp_host host;
	struct gp_plan plan;
	bool chosen[GP_MAX_GPUS];
	struct gp_hmm hmm;
	struct gp_expect e;
	struct gp_probe_result r;
	struct gp_findings f;
} w;

static void plan_node(const char *name, unsigned int major, unsigned int minor)
{
	struct gp_devnode *n = &w.plan.nodes[w.plan.n++];

	snprintf(n->name, sizeof(n->name), "%s", name);
	n->major = major;
	n->minor = minor;
	n->mode = 0666;
}

static void host_gpu(unsigned int minor, const char *pci, const char *uuid)
{
	struct gp_gpu *g = &w.host.gpus[w.host.ngpus];

	g->index = (int)w.host.ngpus++;
	g->minor = minor;
	snprintf(g->pci, sizeof(g->pci), "%s", pci);
	snprintf(g->uuid, sizeof(g->uuid), "%s", uuid);
}

static void seen_device(const char *pci, const char *uuid)
{
	struct gp_probe_device *d = &w.r.devices[w.r.ndevices];

	d->ordinal = w.r.ndevices++;
	snprintf(d->pci, sizeof(d->pci), "%s", pci);
	snprintf(d->uuid, sizeof(d->uuid), "%s", uuid);
}

/* What gp_probe_run gives for a healthy container: every planned node, cuInit 0, GPU 0. */
static void healthy_result(void)
{
	struct gp_probe_result *r = &w.r;

	memset(r, 0, sizeof(*r));
	snprintf(r->glibc, sizeof(r->glibc), "2.36");
	for (size_t i = 0; i < w.plan.n; i++) {
		struct gp_probe_node *n = &r->nodes[r->nnodes++];

		snprintf(n->name, sizeof(n->name), "%s", w.plan.nodes[i].name);
		n->exists = n->is_chr = true;
		n->major = w.plan.nodes[i].major;
		n->minor = w.plan.nodes[i].minor;
	}
	r->libcuda_seen = r->libcuda_found = true;
	snprintf(r->libcuda_path, sizeof(r->libcuda_path),
		 "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04");
	snprintf(r->libcuda_suffix, sizeof(r->libcuda_suffix), "580.159.04");
	r->driver_version = 13000;
	r->reached_cuinit = r->cuinit_done = true;
	snprintf(r->cuinit_name, sizeof(r->cuinit_name), "CUDA_SUCCESS");
	seen_device("0000:41:00.0", UUID0);
	r->complete = true;
	r->reaped = true;
	r->status = GP_PROBE_FAILED; /* as gp_probe_run leaves it: gp_diagnose decides */
}

static int setup(void **state)
{
	(void)state;
	memset(&w, 0, sizeof(w));
	w.host.driver_loaded = true;
	snprintf(w.host.version, sizeof(w.host.version), "580.159.04");
	w.host.flavor = GP_FLAVOR_OPEN;
	w.host.params = (struct gp_params){ true, 1, 0, 0, 0666 };
	w.host.majors.nvidia = GP_MAJOR_NVIDIA;
	w.host.majors.uvm = 238;
	host_gpu(0, "0000:41:00.0", UUID0);
	host_gpu(1, "0000:81:00.0", UUID1);
	w.chosen[0] = true;
	plan_node("nvidiactl", GP_MAJOR_NVIDIA, GP_MINOR_NVIDIACTL);
	plan_node("nvidia0", GP_MAJOR_NVIDIA, 0);
	plan_node("nvidia-uvm", 238, 0);
	plan_node("nvidia-uvm-tools", 238, 1);
	w.hmm.active = GP_NO;
	w.hmm.would_be_active = GP_NO;
	w.hmm.source = "host files";
	snprintf(w.hmm.evidence[w.hmm.n++], sizeof(w.hmm.evidence[0]),
		 "CONFIG_DEVICE_PRIVATE is not set");
	/* As provision/probe.c fills it for an attached container on the real host. */
	w.e = (struct gp_expect){ .name = "ct",
				  .attached = true,
				  .plan = &w.plan,
				  .host = &w.host,
				  .chosen = w.chosen,
				  .hmm = &w.hmm,
				  .timeout_ms = 10000 };
	healthy_result();
	return 0;
}

/* Runs the diagnosis on a fresh list; returns the status it gave. */
static enum gp_probe_status diagnose(void)
{
	memset(&w.f, 0, sizeof(w.f));
	gp_diagnose(&w.r, &w.e, &w.f);
	return w.r.status;
}

static struct gp_probe_node *node(const char *name)
{
	for (size_t i = 0; i < w.r.nnodes; i++)
		if (strcmp(w.r.nodes[i].name, name) == 0)
			return &w.r.nodes[i];
	fail_msg("no node %s in the result", name);
	return NULL;
}

/* The probe did not report the node at all. */
static void drop_node(const char *name)
{
	struct gp_probe_node *n = node(name);
	size_t i = (size_t)(n - w.r.nodes);

	memmove(n, n + 1, (w.r.nnodes - i - 1) * sizeof(*n));
	w.r.nnodes--;
}

static void assert_evidence(const char *id, const char *text)
{
	const struct gp_finding *x = finding(&w.f, id);

	if (!strstr(x->evidence, text))
		fail_msg("%s: evidence [%s] lacks [%s]", id, x->evidence, text);
}

static void assert_fix(const char *id, const char *text)
{
	const struct gp_finding *x = finding(&w.f, id);

	if (!strstr(x->fix, text))
		fail_msg("%s: fix [%s] lacks [%s]", id, x->fix, text);
}

static void healthy(void **state)
{
	(void)state;
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
	assert_false(gp_diagnose_needs_hmm(&w.r));
}

/* Without an ini the GPU set is unknown: no node or GPU is judged missing or extra. */
static void not_attached(void **state)
{
	(void)state;
	w.e.attached = false;
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, "not-attached", NULL);
	drop_node("nvidia0");
	seen_device("0000:81:00.0", UUID1);
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, "not-attached", NULL);
	w.e.attached = true; /* near: the same result, attached */
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "node-missing", "gpu-extra", NULL);
}

static void fixture_host(void **state)
{
	(void)state;
	w.e.fixture_host = true;
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, "fixture-host", NULL);
	w.e.fixture_host = false;
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
}

static void node_missing(void **state)
{
	(void)state;
	drop_node("nvidia-uvm"); /* not reported */
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "node-missing", NULL);
	assert_evidence("node-missing", "expected c 238:0");
	healthy_result();
	node("nvidia0")->exists = false; /* reported absent */
	node("nvidia0")->open_errno = ENOENT;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "node-missing", NULL);
	node("nvidia0")->exists = true; /* near: there */
	node("nvidia0")->open_errno = 0;
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
}

static void node_stale(void **state)
{
	(void)state;
	node("nvidia-uvm")->major = 511; /* yesterday's major */
	node("nvidia-uvm")->open_errno = EPERM;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "node-stale", NULL); /* the number first: the open says nothing more */
	assert_evidence("node-stale", "inside: c 511:0");
	healthy_result();
	node("nvidia0")->minor = 1;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "node-stale", NULL);
	healthy_result();
	node("nvidia0")->is_chr = false; /* a file where the node should be */
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "node-stale", NULL);
	assert_evidence("node-stale", "not a char device");
	node("nvidia0")->is_chr = true; /* near: today's number */
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
}

static void node_cgroup_and_mode(void **state)
{
	(void)state;
	node("nvidia0")->open_errno = EPERM;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "node-cgroup", NULL);
	assert_evidence("node-cgroup", "no allow rule for c 195:0");
	assert_fix("node-cgroup", "gpu-provision attach ct");
	node("nvidia0")->open_errno = EACCES; /* near: the mode, not the cgroup */
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "node-mode", NULL);
	assert_evidence("node-mode", "host mode 0666 uid 0 gid 0");
	node("nvidia0")->open_errno = 0; /* near: it opens */
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
	/* A fixture host hides no refusal but ENXIO. */
	w.e.fixture_host = true;
	node("nvidia0")->open_errno = EPERM;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "fixture-host", "node-cgroup", NULL);
	node("nvidia0")->open_errno = EACCES;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "fixture-host", "node-mode", NULL);
}

/* ENXIO and ENODEV: no driver behind the node; expected (and unsaid) on a fixture host. */
static void node_no_driver(void **state)
{
	(void)state;
	node("nvidia-uvm")->open_errno = ENXIO;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "node-no-driver", NULL);
	assert_evidence("node-no-driver", "ENXIO");
	node("nvidia-uvm")->open_errno = ENODEV;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "node-no-driver", NULL);
	assert_evidence("node-no-driver", "ENODEV");
	w.e.fixture_host = true; /* near: --root */
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, "fixture-host", NULL);
	node("nvidia-uvm")->open_errno = ENXIO;
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, "fixture-host", NULL);
}

/* The deadline passed before cuInit: the probe is slow, not cuInit (here: in dlopen). */
static void probe_timeout(void **state)
{
	struct gp_probe_result *r = &w.r;

	(void)state;
	r->libcuda_found = false; /* its line never came: not judged under a timeout */
	r->libcuda_path[0] = r->libcuda_suffix[0] = '\0';
	r->driver_version = 0;
	r->reached_cuinit = r->cuinit_done = r->complete = false;
	r->ndevices = 0;
	r->timed_out = true;
	r->state = 'S';
	r->exit_code = -1;
	r->signal = 9; /* killed at the deadline */
	assert_false(gp_diagnose_needs_hmm(r));
	assert_int_equal(diagnose(), GP_PROBE_TIMEOUT);
	assert_ids(&w.f, "probe-timeout", NULL);
	assert_evidence("probe-timeout", "no end within 10 s, before cuInit; state S");
	w.e.attached = false;
	assert_int_equal(diagnose(), GP_PROBE_TIMEOUT);
	assert_ids(&w.f, "not-attached", "probe-timeout", NULL);
	w.e.attached = true;
	r->reached_cuinit = true; /* near: it got as far as cuInit */
	assert_true(gp_diagnose_needs_hmm(r));
	assert_int_equal(diagnose(), GP_PROBE_TIMEOUT);
	assert_ids(&w.f, "cuinit-hang", NULL);
}

static void cuinit_hang(void **state)
{
	struct gp_probe_result *r = &w.r;

	(void)state;
	r->cuinit_done = r->complete = false;
	r->ndevices = 0;
	r->timed_out = true;
	r->state = 'D';
	r->reaped = false;
	r->exit_code = -1;
	assert_true(gp_diagnose_needs_hmm(r));
	assert_int_equal(diagnose(), GP_PROBE_TIMEOUT);
	assert_ids(&w.f, "cuinit-hang", NULL);
	assert_evidence("cuinit-hang", "state D (stuck in the kernel); it could not be reaped");
	assert_evidence("cuinit-hang", "HMM active: no (from host files)");
	assert_fix("cuinit-hang", "uvm_disable_hmm=1");
	r->reached_cuinit = false; /* near: before cuInit */
	assert_int_equal(diagnose(), GP_PROBE_TIMEOUT);
	assert_ids(&w.f, "probe-timeout", NULL);
	healthy_result(); /* near: cuInit answered in time */
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
}

/*
 * A report cut short. Each result here holds the node and libcuda lines: a report cut
 * before them gets node-missing and libcuda-missing too today, for lines that never came
 * (reported, not asserted here).
 */
static void cut_short(void)
{
	w.r.cuinit_done = w.r.complete = false;
	w.r.ndevices = 0;
}

static void probe_crashed(void **state)
{
	(void)state;
	cut_short();
	w.r.exit_code = -1;
	w.r.signal = 11;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "probe-crashed", NULL);
	assert_evidence("probe-crashed", "inside cuInit");
	w.r.reached_cuinit = false;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "probe-crashed", NULL);
	assert_evidence("probe-crashed", "before cuInit");
	w.r.signal = 0; /* near: it exited on its own */
	w.r.exit_code = 3;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "probe-output", NULL);
}

static void probe_output(void **state)
{
	(void)state;
	cut_short();
	w.r.exit_code = 3;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "probe-output", NULL);
	assert_evidence("probe-output", "exit code 3");
	/* A line the parser refused (kept escaped by it). */
	w.r.exit_code = 0;
	w.r.bad_lineno = 9;
	snprintf(w.r.bad_line, sizeof(w.r.bad_line), "cuinit 0 CUDA SUCCESS\\x1b[2J");
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "probe-output", NULL);
	assert_evidence("probe-output", "line 9 refused: \"cuinit 0 CUDA SUCCESS\\x1b[2J\"");
	/* liblxc could not attach (the runner says so, not an exit code). */
	w.r.bad_lineno = 0;
	w.r.bad_line[0] = '\0';
	w.r.exit_code = 125;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "probe-output", NULL);
	assert_evidence("probe-output", "exit code 125, inside cuInit");
	w.r.attach_failed = true;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "probe-output", NULL);
	assert_evidence("probe-output", "liblxc could not attach");
	/* Nothing came at all: no finding about nodes or libcuda it never reported. */
	memset(&w.r, 0, sizeof(w.r));
	w.r.attach_failed = true;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "probe-output", NULL);
	healthy_result(); /* near: the end line came */
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
}

/* A nested run whose image could not execute the probe: nothing of it came. */
static void nested_ended_early(void **state)
{
	static struct gp_nested n = { .image = "alpine", .runtime = GP_NESTED_PODMAN };

	(void)state;
	w.e.nested = &n;
	memset(&w.r, 0, sizeof(w.r));
	w.r.exit_code = 127;
	w.r.reaped = true;
	w.r.bad_lineno = 1; /* no hello */
	n.no_loader = true;
	snprintf(n.err, sizeof(n.err), "exec /gpu-probe: no such file or directory");
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "nested-no-glibc", NULL);
	assert_non_null(strstr(w.f.v[0].summary, "image alpine in ct"));
	assert_non_null(strstr(w.f.v[0].evidence, "exec /gpu-probe: no such file"));
	n.no_loader = false; /* the runtime refused it, for a reason of its own */
	w.r.exit_code = 125;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "nested-failed", NULL);
	assert_non_null(strstr(w.f.v[0].fix, "podman run --rm --device nvidia.com/gpu=all alpine"));
	/* near: the hello came, the report was cut: the plain probe's finding */
	w.r.bad_lineno = 0;
	w.r.exit_code = 1;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "probe-output", NULL);
	/* near: not nested, no hello: the plain probe's finding */
	w.e.nested = NULL;
	w.r.bad_lineno = 1;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "probe-output", NULL);
}

/* What the second run said of a nested container the first one left. */
static void nested_cleanup(void **state)
{
	static struct gp_nested n = { .image = "debian:12",
				      .runtime = GP_NESTED_DOCKER,
				      .name = "gpu-probe-0123456789abcdef" };

	(void)state;
	w.e.nested = &n;
	w.r.timed_out = true;
	w.r.reached_cuinit = true;
	w.r.cuinit_done = false;
	w.r.complete = false;
	n.cleanup_ran = true;
	n.cleanup = GP_NESTED_CLEANUP_REMOVED;
	assert_int_equal(diagnose(), GP_PROBE_TIMEOUT);
	assert_ids(&w.f, "cuinit-hang", "nested-removed", NULL);
	assert_non_null(strstr(w.f.v[1].evidence, "docker rm -f gpu-probe-0123456789abcdef"));
	n.cleanup = GP_NESTED_CLEANUP_LEFT;
	assert_int_equal(diagnose(), GP_PROBE_TIMEOUT);
	assert_ids(&w.f, "cuinit-hang", "nested-left", NULL);
	assert_non_null(
	    strstr(w.f.v[1].fix, "run docker rm -f gpu-probe-0123456789abcdef inside ct"));
	n.cleanup = GP_NESTED_CLEANUP_FAILED;
	assert_int_equal(diagnose(), GP_PROBE_TIMEOUT);
	assert_ids(&w.f, "cuinit-hang", "nested-left", NULL);
	n.cleanup = GP_NESTED_CLEANUP_NONE; /* near: nothing was there */
	assert_int_equal(diagnose(), GP_PROBE_TIMEOUT);
	assert_ids(&w.f, "cuinit-hang", NULL);
	n.cleanup_ran = false; /* near: a clean end runs none */
	n.cleanup = GP_NESTED_CLEANUP_REMOVED;
	healthy_result();
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
}

/* A warning: the verdict stays ok. */
static void probe_lingering(void **state)
{
	(void)state;
	w.r.held_open = true;
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, "probe-lingering", NULL);
	w.r.held_open = false;
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
}

/* The probe's report after "libcuda 0 - -": no driver call, then "end". */
static void libcuda_missing(void **state)
{
	struct gp_probe_result *r = &w.r;

	(void)state;
	r->libcuda_found = false;
	snprintf(r->libcuda_path, sizeof(r->libcuda_path), "-");
	snprintf(r->libcuda_suffix, sizeof(r->libcuda_suffix), "-");
	r->driver_version = 0;
	r->reached_cuinit = r->cuinit_done = false;
	r->ndevices = 0;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "libcuda-missing", NULL);
	assert_fix("libcuda-missing", "NVIDIA-Linux-x86_64-580.159.04.run --no-kernel-module");
	healthy_result(); /* near: found */
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
}

/* "symbols 0": found, without cuInit, cuDriverGetVersion or cuDeviceGetCount. */
static void libcuda_broken(void **state)
{
	struct gp_probe_result *r = &w.r;

	(void)state;
	snprintf(r->libcuda_suffix, sizeof(r->libcuda_suffix), "550.54.14");
	r->symbols_missing = true;
	r->driver_version = 0;
	r->reached_cuinit = r->cuinit_done = false;
	r->ndevices = 0;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "libcuda-broken", NULL); /* its version is moot */
	r->symbols_missing = false; /* near: the symbols are there (and cuInit is run) */
	r->reached_cuinit = r->cuinit_done = true;
	snprintf(r->libcuda_suffix, sizeof(r->libcuda_suffix), "580.159.04");
	seen_device("0000:41:00.0", UUID0);
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
}

static void driver_mismatch(void **state)
{
	struct gp_probe_result *r = &w.r;

	(void)state;
	snprintf(r->libcuda_suffix, sizeof(r->libcuda_suffix), "550.54.14");
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "driver-mismatch", NULL);
	assert_evidence("driver-mismatch", "/proc/driver/nvidia/version says 580.159.04");
	/* cuInit 803 says the same: one finding, not two. */
	r->cuinit_code = 803;
	r->ndevices = 0;
	snprintf(r->cuinit_name, sizeof(r->cuinit_name), "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "driver-mismatch", NULL);
	/* Near: a name without a version (libcuda.so.1 itself), or no host version known. */
	healthy_result();
	snprintf(r->libcuda_suffix, sizeof(r->libcuda_suffix), "1");
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
	snprintf(r->libcuda_suffix, sizeof(r->libcuda_suffix), "550.54.14");
	w.host.version[0] = '\0';
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
}

static void cuinit_returns(int code)
{
	healthy_result();
	w.r.cuinit_code = code;
	snprintf(w.r.cuinit_name, sizeof(w.r.cuinit_name), "CUDA_ERROR_%d", code);
	w.r.ndevices = 0; /* the probe lists devices only after cuInit 0 */
}

/* cuInit 3: HMM when it is or may be active on the open module, the driver's log if not. */
static void cuinit_3(void **state)
{
	(void)state;
	cuinit_returns(3);
	assert_true(gp_diagnose_needs_hmm(&w.r));
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "cuinit-not-initialized", NULL);
	assert_evidence("cuinit-not-initialized", "HMM active: no (from host files)");
	w.hmm.active = GP_YES;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "cuinit-hmm", NULL);
	assert_fix("cuinit-hmm", "uvm_disable_hmm=1");
	w.hmm.active = GP_NO; /* off now, on with uvm_disable_hmm=N */
	w.hmm.would_be_active = GP_YES;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "cuinit-hmm", NULL);
	w.hmm.active = GP_UNKNOWN;
	w.hmm.would_be_active = GP_UNKNOWN;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "cuinit-hmm", NULL);
	w.e.hmm = NULL; /* not judged at all */
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "cuinit-hmm", NULL);
	assert_evidence("cuinit-hmm", "HMM active: unknown (from nothing)");
	/* Near: the proprietary module has no HMM, whatever the verdict. */
	w.host.flavor = GP_FLAVOR_PROPRIETARY;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "cuinit-not-initialized", NULL);
	w.e.hmm = &w.hmm;
	w.hmm.active = GP_YES;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "cuinit-not-initialized", NULL);
}

/* cuInit 999: nvidia-uvm unreachable; the fix depends on what the probe saw of it. */
static void cuinit_999(void **state)
{
	(void)state;
	cuinit_returns(999);
	assert_false(gp_diagnose_needs_hmm(&w.r));
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "uvm-blocked", NULL);
	assert_evidence("uvm-blocked", "/dev/nvidia-uvm inside: opens");
	node("nvidia-uvm")->open_errno = EPERM;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "uvm-blocked", "node-cgroup", NULL);
	assert_evidence("uvm-blocked", "open = EPERM (device cgroup)");
	assert_fix("uvm-blocked", "allows c 238:0 and c 238:1");
	drop_node("nvidia-uvm");
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "uvm-blocked", "node-missing", NULL);
	assert_evidence("uvm-blocked", "missing");
	assert_fix("uvm-blocked", "gpu-provision prepare (makes /dev/nvidia-uvm)");
	/* Near: the node missing, cuInit fine (the probe's libcuda did without it). */
	healthy_result();
	drop_node("nvidia-uvm");
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "node-missing", NULL);
}

/* cuInit returned code: a failed verdict, no GPU judged, no HMM question. */
static void cuinit_fails(int code)
{
	cuinit_returns(code);
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_false(gp_diagnose_needs_hmm(&w.r));
}

/* Every other code: its own finding from the table, or cuinit-failed. */
static void cuinit_codes(void **state)
{
	(void)state;
	cuinit_fails(100);
	assert_ids(&w.f, "no-device", NULL);
	cuinit_fails(34);
	assert_ids(&w.f, "stub-libcuda", NULL);
	cuinit_fails(804);
	assert_ids(&w.f, "forward-compat", NULL);
	cuinit_fails(802);
	assert_ids(&w.f, "fabric-manager", NULL);
	cuinit_fails(803);
	assert_ids(&w.f, "driver-mismatch", NULL);
	cuinit_fails(46);
	assert_ids(&w.f, "cuinit-failed", NULL);
	assert_evidence("cuinit-failed", "libcuda 580.159.04");
	cuinit_fails(1);
	assert_ids(&w.f, "cuinit-failed", NULL);
	cuinit_fails(-1);
	assert_ids(&w.f, "cuinit-failed", NULL);
	/* The stub's own answer, as the toolkit's stub gives it (no name, no driver API). */
	cuinit_returns(34);
	snprintf(w.r.cuinit_name, sizeof(w.r.cuinit_name), "-");
	snprintf(w.r.libcuda_suffix, sizeof(w.r.libcuda_suffix), "1");
	w.r.driver_version = -1;
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "stub-libcuda", NULL);
	assert_fix("stub-libcuda", "stubs");
	cuinit_returns(0); /* near: success, and GPU 0 seen */
	seen_device("0000:41:00.0", UUID0);
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
}

static void gpu_sets(void **state)
{
	(void)state;
	w.r.ndevices = 0; /* cuInit 0, no device */
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "gpu-missing", NULL);
	assert_evidence("gpu-missing", "/dev/nvidia0 expected");
	seen_device("0000:41:00.0", "gpu-00000000-0000-4000-8000-000000000041");
	assert_int_equal(diagnose(), GP_PROBE_OK); /* near: the same UUID in lower case */
	assert_ids(&w.f, NULL);
	seen_device("0000:81:00.0", UUID1); /* one it was not given */
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "gpu-extra", NULL);
	assert_evidence("gpu-extra", "CUDA device 1 at 0000:81:00.0");
	seen_device("0000:c1:00.0",
		    "GPU-22222222-0000-4000-8000-0000000000c1"); /* not the host's */
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "gpu-extra", "gpu-extra", NULL);
	w.r.ndevices = 2; /* near: both given */
	w.chosen[1] = true;
	assert_int_equal(diagnose(), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
	w.r.ndevices = 1; /* and one of the two lost */
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "gpu-missing", NULL);
	seen_device("0000:81:00.0", UUID1);
	seen_device("", ""); /* counted, but the probe named nothing of it */
	assert_int_equal(diagnose(), GP_PROBE_FAILED);
	assert_ids(&w.f, "gpu-extra", NULL);
	assert_evidence("gpu-extra", "got no UUID of device 2");
}

/* The helper itself: a missing id and an extra one each fail. */
static void ids_match_fails_both_ways(void **state)
{
	static const char *const two[] = { "gpu-extra", "gpu-extra", NULL };
	static const char *const one[] = { "gpu-extra", NULL };
	static const char *const three[] = { "gpu-extra", "gpu-extra", "gpu-missing", NULL };
	static const char *const none[] = { NULL };
	struct gp_findings f = { 0 };
	char why[2048];

	(void)state;
	assert_non_null(gp_findings_add(&f, GP_FINDING_GPU_EXTRA));
	assert_non_null(gp_findings_add(&f, GP_FINDING_GPU_EXTRA));
	assert_true(ids_match(&f, two, why, sizeof(why)));
	assert_false(ids_match(&f, one, why, sizeof(why)));
	assert_string_equal(
	    why, "finding ids: missing [], extra [gpu-extra]; raised [gpu-extra gpu-extra]");
	assert_false(ids_match(&f, three, why, sizeof(why)));
	assert_string_equal(
	    why, "finding ids: missing [gpu-missing], extra []; raised [gpu-extra gpu-extra]");
	assert_false(ids_match(&f, none, why, sizeof(why)));
}

/*
 * Every catalogued finding is raised by a unit test. assert_ids checks a whole set, so an
 * id written in an assert_ids call of a unit test is one that a test raises (or that test
 * fails). This reads the unit tests' sources (tests/unit/test-*.c) and wants each id
 * of gp_finding_kinds in some assert_ids call, and every id written there catalogued. It
 * is a reading of the sources: a call in a test that is skipped (test-check's node cases
 * without root) still counts, and the cmocka summary shows the skip.
 */
/* Marks each quoted id between p and end (one assert_ids call's arguments but the first). */
static void mark_ids(const char *file, char *p, const char *end, bool *asserted)
{
	for (int depth = 0; p < end && (depth || *p != ','); p++)
		depth += (*p == '(') - (*p == ')');
	while ((p = memchr(p, '"', (size_t)(end - p)))) {
		char *close = strchr(p + 1, '"');
		size_t k = 0;

		assert_non_null(close);
		*close = '\0';
		while (k < gp_finding_nkinds && strcmp(gp_finding_kinds[k].id, p + 1) != 0)
			k++;
		if (k == gp_finding_nkinds)
			fail_msg("%s: assert_ids names \"%s\", which is not in the catalogue", file,
				 p + 1);
		asserted[k] = true;
		p = close + 1;
	}
}

static void every_finding_is_raised_by_a_test(void **state)
{
	static const char call[] = "assert_ids"
				   "(";
	bool asserted[128] = { false };
	glob_t g;

	(void)state;
	assert_true(gp_finding_nkinds <= GP_ARRAY_SIZE(asserted));
	assert_int_equal(glob(FIXTURES "/../unit/test-*.c", 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *buf = NULL, *p, *end;

		assert_int_equal(gp_read_file(g.gl_pathv[i], 1u << 20, &buf, NULL), 0);
		for (p = buf; (p = strstr(p, call)); p = end) {
			end = strstr(p, "NULL)");
			assert_non_null(end);
			mark_ids(g.gl_pathv[i], p + sizeof(call) - 1, end, asserted);
		}
		free(buf);
	}
	globfree(&g);
	for (size_t k = 0; k < gp_finding_nkinds; k++)
		if (!asserted[k])
			fail_msg("finding %s is raised by no unit test (no assert_ids names it)",
				 gp_finding_kinds[k].id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(healthy, setup),
		cmocka_unit_test_setup(not_attached, setup),
		cmocka_unit_test_setup(fixture_host, setup),
		cmocka_unit_test_setup(node_missing, setup),
		cmocka_unit_test_setup(node_stale, setup),
		cmocka_unit_test_setup(node_cgroup_and_mode, setup),
		cmocka_unit_test_setup(node_no_driver, setup),
		cmocka_unit_test_setup(probe_timeout, setup),
		cmocka_unit_test_setup(cuinit_hang, setup),
		cmocka_unit_test_setup(probe_crashed, setup),
		cmocka_unit_test_setup(probe_output, setup),
		cmocka_unit_test_setup(probe_lingering, setup),
		cmocka_unit_test_setup(nested_ended_early, setup),
		cmocka_unit_test_setup(nested_cleanup, setup),
		cmocka_unit_test_setup(libcuda_missing, setup),
		cmocka_unit_test_setup(libcuda_broken, setup),
		cmocka_unit_test_setup(driver_mismatch, setup),
		cmocka_unit_test_setup(cuinit_3, setup),
		cmocka_unit_test_setup(cuinit_999, setup),
		cmocka_unit_test_setup(cuinit_codes, setup),
		cmocka_unit_test_setup(gpu_sets, setup),
		cmocka_unit_test(ids_match_fails_both_ways),
		cmocka_unit_test(every_finding_is_raised_by_a_test),
	};
	return cmocka_run_group_tests_name("diagnose", tests, NULL, NULL);
}
