/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* From what the probe saw, and what the host says, to findings with a fix. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/child.h"
#include "base/util.h"
#include "diagnose/diagnose.h"
#include "diagnose/diagnosedeep.h"
#include "start/cdi.h"

#define HMM_FIX                                                                                    \
	"load nvidia_uvm with uvm_disable_hmm=1: \"gpu-provision prepare\" reloads it when "       \
	"nothing uses it; \"gpu-provision prepare --persist\" and a reboot otherwise"

static const struct gp_probe_node *seen_node(const struct gp_probe_result *r, const char *name)
{
	for (size_t i = 0; i < r->nnodes; i++)
		if (strcmp(r->nodes[i].name, name) == 0)
			return &r->nodes[i];
	return NULL;
}

bool gp_diagnose_needs_hmm(const struct gp_probe_result *r)
{
	return (r->cuinit_done && r->cuinit_code == 3) ||
	       (r->timed_out && r->reached_cuinit && !r->cuinit_done);
}

/* A node that is there and today's, but that the probe could not open: why, by its errno. */
static void open_finding(struct gp_findings *f, const struct gp_expect *e,
			 const struct gp_devnode *want, const struct gp_probe_node *n)
{
	struct gp_finding *x;

	if (n->open_errno == EPERM) {
		x = gp_findings_add(f, GP_FINDING_NODE_CGROUP);
		if (!x)
			return;
		GP_SET(x->summary, "the device cgroup of %s refuses /dev/%s", e->name, want->name);
		GP_SET(x->evidence,
		       "open(\"/dev/%s\", O_RDWR) = EPERM inside; no allow rule for c %u:%u",
		       want->name, want->major, want->minor);
		GP_SET(x->fix,
		       "gpu-provision attach %s  (rewrites the rules for today's majors), then "
		       "restart it",
		       e->name);
	} else if (n->open_errno == EACCES) {
		x = gp_findings_add(f, GP_FINDING_NODE_MODE);
		if (!x)
			return;
		GP_SET(x->summary, "/dev/%s is not open to the probe's user in %s", want->name,
		       e->name);
		GP_SET(x->evidence, "open(O_RDWR) = EACCES; host mode %04o uid %u gid %u",
		       want->mode, want->uid, want->gid);
		GP_SET(
		    x->fix,
		    "set the driver's NVreg_DeviceFileMode/UID/GID (modprobe.d) so the "
		    "container's users can open it, or run the workload as a user in that group");
	} else if ((n->open_errno == ENXIO || n->open_errno == ENODEV) && !e->fixture_host) {
		x = gp_findings_add(f, GP_FINDING_NODE_NO_DRIVER);
		if (!x)
			return;
		GP_SET(x->summary, "no driver answers /dev/%s (c %u:%u)", want->name, want->major,
		       want->minor);
		GP_SET(x->evidence, "open(O_RDWR) = %s inside",
		       n->open_errno == ENXIO ? "ENXIO" : "ENODEV");
		GP_SET(x->fix,
		       "on the host: gpu-provision prepare  (loads the modules), then check "
		       "gpu-provision host");
	}
}

static void container_node_finding(struct gp_findings *f, const struct gp_expect *e,
				   const struct gp_devnode *want, const struct gp_probe_node *n)
{
	struct gp_finding *x;

	if ((!n || !n->exists) && !e->attached)
		return; /* without an ini, the host's full list is only a guess */
	if (!n || !n->exists) {
		x = gp_findings_add(f, GP_FINDING_NODE_MISSING);
		if (!x)
			return;
		GP_SET(x->summary, "/dev/%s is missing in container %s", want->name, e->name);
		GP_SET(x->evidence, "stat(\"/dev/%s\") failed inside; expected c %u:%u", want->name,
		       want->major, want->minor);
		GP_SET(x->fix, "restart the container so that gpu-hook binds it (check its log for "
			       "gpu-hook errors); on the host: gpu-provision prepare");
		return;
	}
	if (!n->is_chr || n->major != want->major || n->minor != want->minor) {
		x = gp_findings_add(f, GP_FINDING_NODE_STALE);
		if (!x)
			return;
		GP_SET(x->summary, "/dev/%s in container %s is not today's c %u:%u", want->name,
		       e->name, want->major, want->minor);
		GP_SET(x->evidence, "inside: %s %u:%u", n->is_chr ? "c" : "not a char device",
		       n->major, n->minor);
		GP_SET(x->fix,
		       "remove the static mount entry or node for it and restart the container: "
		       "gpu-hook binds today's node");
		return;
	}
	open_finding(f, e, want, n);
}

/* gpu-probe reports every node before libcuda: past that line, a node not named is absent. */
static bool past_nodes(const struct gp_probe_result *r)
{
	return r->complete || r->libcuda_seen;
}

/* Where the probe was when its report ended. */
static const char *stage(const struct gp_probe_result *r)
{
	static char deep[64];

	if (r->stage_cap[0] && r->stage_device >= 0)
		snprintf(deep, sizeof(deep), "in --deep's %s on device %d", r->stage_cap,
			 r->stage_device);
	else if (r->stage_cap[0])
		snprintf(deep, sizeof(deep), "in --deep's %s", r->stage_cap);
	return r->stage_cap[0]	   ? deep
	       : r->cuinit_done	   ? "after cuInit"
	       : r->reached_cuinit ? "inside cuInit"
				   : "before cuInit";
}

static void check_container_nodes(struct gp_findings *f, const struct gp_expect *e,
				  const struct gp_probe_result *r)
{
	for (size_t i = 0; i < e->plan->n; i++) {
		const struct gp_probe_node *seen = seen_node(r, e->plan->nodes[i].name);

		if (seen || past_nodes(r))
			container_node_finding(f, e, &e->plan->nodes[i], seen);
	}
}

static bool version_like(const char *s)
{
	return s[0] >= '0' && s[0] <= '9' && strchr(s, '.');
}

static void check_libcuda(struct gp_findings *f, const struct gp_expect *e,
			  const struct gp_probe_result *r)
{
	const char *host = e->host->version;
	struct gp_finding *x;

	if (!r->libcuda_seen) /* the report ended before it said */
		return;
	if (!r->libcuda_found) {
		x = gp_findings_add(f, GP_FINDING_LIBCUDA_MISSING);
		if (!x)
			return;
		GP_SET(x->summary, "no libcuda.so.1 in container %s", e->name);
		GP_SET(x->evidence, "dlopen(\"libcuda.so.1\") failed inside; host driver %s", host);
		GP_SET(x->fix,
		       "install the driver's user space of exactly %s in the container without "
		       "its kernel module: sh NVIDIA-Linux-x86_64-%s.run --no-kernel-module (or "
		       "the distribution's libcuda package of that version)",
		       host, host);
		return;
	}
	if (r->symbols_missing) {
		x = gp_findings_add(f, GP_FINDING_LIBCUDA_BROKEN);
		if (x) {
			GP_SET(x->summary, "%s is not a usable libcuda", r->libcuda_path);
			GP_SET(x->evidence,
			       "cuInit, cuDriverGetVersion or cuDeviceGetCount missing from it");
			GP_SET(x->fix, "reinstall the driver's user space %s in the container",
			       host);
		}
		return;
	}
	if (version_like(r->libcuda_suffix) && host[0] && strcmp(r->libcuda_suffix, host) != 0 &&
	    !(r->cuinit_done && r->cuinit_code == 803)) {
		x = gp_findings_add(f, GP_FINDING_DRIVER_MISMATCH);
		if (!x)
			return;
		GP_SET(x->summary, "libcuda %s in %s, kernel module %s on the host",
		       r->libcuda_suffix, e->name, host);
		GP_SET(x->evidence, "loaded %s; /proc/driver/nvidia/version says %s",
		       r->libcuda_path, host);
		GP_SET(x->fix,
		       "install user space %s in the container: sh NVIDIA-Linux-x86_64-%s.run "
		       "--no-kernel-module",
		       host, host);
	}
}

static void hmm_evidence(char *dst, size_t size, const struct gp_hmm *hmm)
{
	size_t len = 0;

	len += (size_t)snprintf(dst, size, "HMM active: %s (from %s)",
				!hmm			? "unknown"
				: hmm->active == GP_YES ? "yes"
				: hmm->active == GP_NO	? "no"
							: "unknown",
				hmm ? hmm->source : "nothing");
	for (size_t i = 0; hmm && i < hmm->n && len < size; i++)
		len += (size_t)snprintf(dst + len, size - len, "; %s", hmm->evidence[i]);
}

static bool hmm_possible(const struct gp_hmm *hmm)
{
	return !hmm || hmm->active != GP_NO || hmm->would_be_active == GP_YES;
}

static void check_hang(struct gp_findings *f, const struct gp_expect *e,
		       const struct gp_probe_result *r)
{
	struct gp_finding *x;
	char ev[512];

	if (r->reached_cuinit && !r->cuinit_done) {
		x = gp_findings_add(f, GP_FINDING_CUINIT_HANG);
		if (!x)
			return;
		hmm_evidence(ev, sizeof(ev), e->hmm);
		GP_SET(x->summary, "cuInit hung in %s", e->name);
		GP_SET(x->evidence, "no answer within %d s; the process was in state %c%s%s; %s",
		       e->timeout_ms / 1000, r->state ? r->state : '?',
		       r->state == 'D' ? " (stuck in the kernel)" : "",
		       r->reaped ? "" : "; it could not be reaped", ev);
		GP_SET(x->fix, "%s; or boot the host with nokaslr", HMM_FIX);
		return;
	}
	x = gp_findings_add(f, GP_FINDING_PROBE_TIMEOUT);
	if (x) {
		GP_SET(x->summary, "the probe did not finish in %s", e->name);
		GP_SET(x->evidence, "no end within %d s, %s; state %c", e->timeout_ms / 1000,
		       stage(r), r->state ? r->state : '?');
		GP_SET(x->fix, "raise [probe] timeout, or look at what blocks in the container "
			       "(dlopen of libcuda, a slow filesystem)");
	}
}

static void cuinit_3(struct gp_findings *f, const struct gp_expect *e)
{
	bool hmm = hmm_possible(e->hmm) && e->host->flavor != GP_FLAVOR_PROPRIETARY;
	struct gp_finding *x =
	    gp_findings_add(f, hmm ? GP_FINDING_CUINIT_HMM : GP_FINDING_CUINIT_NOT_INITIALIZED);
	char ev[512];

	if (!x)
		return;
	hmm_evidence(ev, sizeof(ev), e->hmm);
	GP_SET(x->summary, "cuInit returned 3 (CUDA_ERROR_NOT_INITIALIZED) in %s", e->name);
	GP_SET(x->evidence, "%s", ev);
	if (hmm)
		GP_SET(x->fix, "%s", HMM_FIX);
	else
		GP_SET(x->fix,
		       "look at the kernel log (dmesg | grep -i nvrm) for the driver's reason");
}

static void cuinit_999(struct gp_findings *f, const struct gp_expect *e,
		       const struct gp_probe_result *r)
{
	const struct gp_probe_node *uvm = seen_node(r, "nvidia-uvm");
	struct gp_finding *x = gp_findings_add(f, GP_FINDING_UVM_BLOCKED);

	if (!x)
		return;
	GP_SET(x->summary, "cuInit returned 999 (CUDA_ERROR_UNKNOWN) in %s: nvidia-uvm unreachable",
	       e->name);
	GP_SET(x->evidence, "/dev/nvidia-uvm inside: %s",
	       !uvm || !uvm->exists	  ? "missing"
	       : uvm->open_errno == EPERM ? "open = EPERM (device cgroup)"
	       : uvm->open_errno	  ? gp_strerror(uvm->open_errno)
					  : "opens");
	if (!uvm || !uvm->exists)
		GP_SET(x->fix,
		       "on the host: gpu-provision prepare (makes /dev/nvidia-uvm), then "
		       "restart %s",
		       e->name);
	else
		GP_SET(x->fix,
		       "gpu-provision attach %s  (allows c %u:0 and c %u:1, nvidia-uvm's "
		       "major today), then restart it",
		       e->name, e->host->majors.uvm, e->host->majors.uvm);
}

static void cuinit_other(struct gp_findings *f, const struct gp_expect *e,
			 const struct gp_probe_result *r)
{
	static const struct {
		int code;
		enum gp_finding_id id;
		const char *fix;
	} map[] = {
		{ 100, GP_FINDING_NO_DEVICE,
		  "check the findings on the nodes above: binding, device cgroup, or a selection "
		  "that names no GPU of this host (gpu-provision host)" },
		{ 34, GP_FINDING_STUB_LIBCUDA,
		  "remove the CUDA toolkit's stubs directory (…/lib64/stubs) from LD_LIBRARY_PATH "
		  "and "
		  "ld.so.conf inside the container; libcuda.so.1 must be the driver's" },
		{ 804, GP_FINDING_FORWARD_COMPAT,
		  "remove the cuda-compat libraries from the library path: this GPU does not "
		  "support forward compatibility; use the driver's own libcuda" },
		{ 802, GP_FINDING_FABRIC_MANAGER,
		  "start nvidia-fabricmanager on the host (same version as the driver) and wait "
		  "for the fabric to come up" },
		{ 803, GP_FINDING_DRIVER_MISMATCH,
		  "install the user space of the host's driver version in the container "
		  "(--no-kernel-module)" },
	};
	enum gp_finding_id id = GP_FINDING_CUINIT_FAILED;
	const char *fix = "see the CUDA error's meaning in the refs";
	struct gp_finding *x;

	for (size_t i = 0; i < GP_ARRAY_SIZE(map); i++)
		if (map[i].code == r->cuinit_code) {
			id = map[i].id;
			fix = map[i].fix;
		}
	x = gp_findings_add(f, id);
	if (!x)
		return;
	GP_SET(x->summary, "cuInit returned %d (%s) in %s", r->cuinit_code, r->cuinit_name,
	       e->name);
	GP_SET(x->evidence, "libcuda %s (%s), driver API %d; host driver %s", r->libcuda_suffix,
	       r->libcuda_path, r->driver_version, e->host->version);
	GP_SET(x->fix, "%s", fix);
}

static bool device_seen(const struct gp_probe_result *r, const struct gp_gpu *g)
{
	for (int i = 0; i < r->ndevices; i++)
		if (strcasecmp(r->devices[i].uuid, g->uuid) == 0)
			return true;
	return false;
}

static bool device_selected(const struct gp_expect *e, const char *uuid)
{
	for (size_t i = 0; i < e->host->ngpus; i++)
		if (e->chosen[i] && strcasecmp(e->host->gpus[i].uuid, uuid) == 0)
			return true;
	return false;
}

static void check_devices(struct gp_findings *f, const struct gp_expect *e,
			  const struct gp_probe_result *r)
{
	struct gp_finding *x;

	for (size_t i = 0; e->attached && i < e->host->ngpus; i++) {
		if (!e->chosen[i] || device_seen(r, &e->host->gpus[i]))
			continue;
		x = gp_findings_add(f, GP_FINDING_GPU_MISSING);
		if (!x)
			continue;
		GP_SET(x->summary, "GPU %zu (%s) is not visible in %s", i, e->host->gpus[i].uuid,
		       e->name);
		GP_SET(x->evidence, "CUDA sees %d device(s); /dev/nvidia%u expected", r->ndevices,
		       e->host->gpus[i].minor);
		GP_SET(x->fix, "restart %s; if it stays, check its /dev/nvidia%u and cgroup rules",
		       e->name, e->host->gpus[i].minor);
	}
	for (int i = 0; e->attached && i < r->ndevices; i++) {
		if (device_selected(e, r->devices[i].uuid))
			continue;
		x = gp_findings_add(f, GP_FINDING_GPU_EXTRA);
		if (!x)
			continue;
		if (r->devices[i].uuid[0]) {
			GP_SET(x->summary, "%s sees %s, which it was not given", e->name,
			       r->devices[i].uuid);
			GP_SET(x->evidence, "CUDA device %d at %s", i, r->devices[i].pci);
		} else {
			GP_SET(x->summary, "%s sees more GPUs than it was given: CUDA device %d",
			       e->name, i);
			GP_SET(x->evidence,
			       "CUDA counts %d device(s); the probe got no UUID of "
			       "device %d",
			       r->ndevices, i);
		}
		GP_SET(x->fix,
		       "remove static lxc.mount.entry or devN lines for other GPUs and any "
		       "broad rule such as c 195:* rwm; gpu-provision attach %s --gpus ...",
		       e->name);
	}
}

static void check_end(struct gp_findings *f, const struct gp_expect *e,
		      const struct gp_probe_result *r)
{
	struct gp_finding *x;

	if (r->signal) {
		x = gp_findings_add(f, GP_FINDING_PROBE_CRASHED);
		if (x) {
			GP_SET(x->summary, "the probe died of signal %d in %s", r->signal, e->name);
			GP_SET(x->evidence, "%s", stage(r));
			GP_SET(x->fix,
			       "a crash inside libcuda: reinstall the driver's user space %s in "
			       "the container",
			       e->host->version);
		}
		return;
	}
	x = gp_findings_add(f, GP_FINDING_PROBE_OUTPUT);
	if (!x)
		return;
	GP_SET(x->summary, "the probe's report from %s is incomplete", e->name);
	if (r->attach_failed)
		GP_SET(x->evidence, "liblxc could not attach to the container");
	else if (r->bad_lineno)
		GP_SET(x->evidence, "exit code %d, %s; line %u refused: \"%s\"", r->exit_code,
		       stage(r), r->bad_lineno, r->bad_line);
	else
		GP_SET(x->evidence, "exit code %d, %s", r->exit_code, stage(r));
	GP_SET(x->fix,
	       "run gpu-provision probe %s again; if it repeats, look at the container's libc, "
	       "libcuda and /etc/ld.so.preload",
	       e->name);
}

/*
 * A nested run that ended without the probe's report: the image without a loader for it, or
 * the runtime refusing to run it. False when neither: the plain probe's findings say it.
 */
static bool nested_end(struct gp_findings *f, const struct gp_expect *e,
		       const struct gp_probe_result *r)
{
	const struct gp_nested *n = e->nested;
	const char *rt = n ? gp_nested_runtime_name(n->runtime) : "";
	struct gp_finding *x;

	if (!n || r->signal || r->bad_lineno != 1 || r->attach_failed)
		return false;
	x = gp_findings_add(f,
			    n->no_loader ? GP_FINDING_NESTED_NO_GLIBC : GP_FINDING_NESTED_FAILED);
	if (!x)
		return true;
	if (n->no_loader) {
		GP_SET(x->summary, "image %s in %s has no glibc that runs gpu-probe", n->image,
		       e->name);
		GP_SET(x->fix,
		       "probe with an image that has glibc 2.28 or later (debian:12, ubuntu:22.04, "
		       "the application's own); a musl or distroless-static image runs no "
		       "glibc program");
	} else {
		GP_SET(x->summary, "%s in %s did not run image %s", rt, e->name, n->image);
		GP_SET(x->fix,
		       "run %s run --rm --device " GP_CDI_KIND "=all %s inside %s: it says "
		       "what stops it",
		       rt, n->image, e->name);
	}
	GP_SET(x->evidence, "%s run exited %d; it said: \"%s\"", rt, r->exit_code,
	       n->err[0] ? n->err : "nothing");
	return true;
}

/* What the second run said of a nested container that outlived the first. */
static void nested_cleanup(struct gp_findings *f, const struct gp_expect *e)
{
	const struct gp_nested *n = e->nested;
	const char *rt = gp_nested_runtime_name(n->runtime);
	struct gp_finding *x;

	if (!n->cleanup_ran || n->cleanup == GP_NESTED_CLEANUP_NONE)
		return;
	if (n->cleanup == GP_NESTED_CLEANUP_REMOVED) {
		x = gp_findings_add(f, GP_FINDING_NESTED_REMOVED);
		if (x) {
			GP_SET(x->summary, "nested container %s removed from %s", n->name, e->name);
			GP_SET(x->evidence, "the probe's run did not end cleanly; %s rm -f %s", rt,
			       n->name);
			GP_SET(x->fix, "nothing: it is gone");
		}
		return;
	}
	x = gp_findings_add(f, GP_FINDING_NESTED_LEFT);
	if (!x)
		return;
	GP_SET(x->summary, "nested container %s is still in %s", n->name, e->name);
	GP_SET(x->evidence, "%s rm -f %s %s", rt, n->name,
	       n->cleanup == GP_NESTED_CLEANUP_LEFT ? "left it there"
						    : "did not finish within its deadline");
	GP_SET(x->fix, "run %s rm -f %s inside %s", n->runtime == GP_NESTED_AUTO ? "podman" : rt,
	       n->name, e->name);
}

/* More output than any probe writes: it was killed there, and nothing it said counts. */
static void check_overflow(struct gp_findings *f, const struct gp_expect *e)
{
	struct gp_finding *x = gp_findings_add(f, GP_FINDING_PROBE_OUTPUT);

	if (!x)
		return;
	GP_SET(x->summary, "the probe in %s wrote more than %d KiB", e->name,
	       GP_PROBE_OUTPUT_MAX / 1024);
	GP_SET(x->evidence, "output cut at %d KiB and the probe killed: no probe writes that much",
	       GP_PROBE_OUTPUT_MAX / 1024);
	GP_SET(x->fix,
	       "look in %s for what writes to the probe's output: its libcuda.so.1, "
	       "/etc/ld.so.preload",
	       e->name);
}

/* Something the probe started (its libcuda, a preloaded library) outlived it. */
static void check_lingering(struct gp_findings *f, const struct gp_expect *e)
{
	struct gp_finding *x = gp_findings_add(f, GP_FINDING_PROBE_LINGERING);

	if (!x)
		return;
	GP_SET(x->summary, "a process in %s kept the probe's output open after it ended", e->name);
	GP_SET(x->evidence,
	       "no end of file %d ms after the probe exited; the probe's process "
	       "group was killed, so the holder left it",
	       GP_CHILD_GRACE_MS);
	GP_SET(x->fix,
	       "look in %s for a process started by its libcuda.so.1 or by "
	       "/etc/ld.so.preload (ps -ef inside the container)",
	       e->name);
}

void gp_diagnose(struct gp_probe_result *r, const struct gp_expect *e, struct gp_findings *f)
{
	if (!e->attached) {
		struct gp_finding *x = gp_findings_add(f, GP_FINDING_NOT_ATTACHED);
		if (x) {
			GP_SET(x->summary, "%s has no GPU ini: which GPUs it should see is unknown",
			       e->name);
			GP_SET(x->evidence, "no <confdir>/%s.ini", e->name);
			GP_SET(x->fix, "gpu-provision attach %s --gpus SEL", e->name);
		}
	}
	if (e->fixture_host) {
		struct gp_finding *x = gp_findings_add(f, GP_FINDING_FIXTURE_HOST);
		if (x) {
			GP_SET(x->summary, "the host is a capture given with --root");
			GP_SET(x->evidence,
			       "its nodes reach no driver on this machine: an open that "
			       "passes the device cgroup ends in ENXIO, which is not reported");
		}
	}
	check_container_nodes(f, e, r);
	if (r->timed_out)
		check_hang(f, e, r);
	else if (r->truncated)
		check_overflow(f, e);
	else if (!r->complete && !nested_end(f, e, r))
		check_end(f, e, r);
	if (!r->timed_out && !r->truncated)
		check_libcuda(f, e, r);
	if (r->held_open)
		check_lingering(f, e);
	if (e->nested)
		nested_cleanup(f, e);
	if (r->cuinit_done && r->cuinit_code == 3)
		cuinit_3(f, e);
	else if (r->cuinit_done && r->cuinit_code == 999)
		cuinit_999(f, e, r);
	else if (r->cuinit_done && r->cuinit_code != 0)
		cuinit_other(f, e, r);
	else if (r->cuinit_done)
		check_devices(f, e, r);
	if (e->deep)
		gp_diagnose_deep(r, e, f);
	if (r->timed_out)
		r->status = GP_PROBE_TIMEOUT;
	else if (r->cuinit_done && r->cuinit_code == 0 && !gp_findings_errors(f))
		r->status = GP_PROBE_OK;
	else
		r->status = GP_PROBE_FAILED;
}
