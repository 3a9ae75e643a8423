/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The catalogue of findings and their rendering. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "findings.h"

#define REF_HMM                                                                                    \
	"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/797 "                            \
	"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/947 "                            \
	"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/901 "                            \
	"CUDA 12.9/13.0 release notes, known issues: CUDA initialization can fail on certain "     \
	"Linux kernels with KASLR enabled"
#define REF_ERRORS "CUDA Driver API, CUresult"

const struct gp_finding_kind gp_finding_kinds[] = {
	{ "probe-timeout", GP_SEV_ERROR, "the probe did not finish within [probe] timeout", NULL },
	{ "cuinit-hang", GP_SEV_ERROR,
	  "cuInit did not return within [probe] timeout (state D: stuck in the kernel)", REF_HMM },
	{ "cuinit-hmm", GP_SEV_ERROR,
	  "cuInit returned 3 (CUDA_ERROR_NOT_INITIALIZED) while HMM is or may be active", REF_HMM },
	{ "cuinit-not-initialized", GP_SEV_ERROR, "cuInit returned 3 and HMM is off", REF_ERRORS },
	{ "uvm-blocked", GP_SEV_ERROR,
	  "cuInit returned 999, or /dev/nvidia-uvm is missing or refused (EPERM)", NULL },
	{ "no-device", GP_SEV_ERROR, "cuInit returned 100 (CUDA_ERROR_NO_DEVICE)", REF_ERRORS },
	{ "stub-libcuda", GP_SEV_ERROR,
	  "cuInit returned 34 (CUDA_ERROR_STUB_LIBRARY): the toolkit's stub libcuda was loaded",
	  REF_ERRORS },
	{ "driver-mismatch", GP_SEV_ERROR,
	  "cuInit returned 803, or libcuda's version is not the kernel module's", REF_ERRORS },
	{ "forward-compat", GP_SEV_ERROR,
	  "cuInit returned 804: forward-compatibility libraries on a GPU they do not support",
	  "CUDA Compatibility guide, forward compatibility" },
	{ "fabric-manager", GP_SEV_ERROR,
	  "cuInit returned 802 (CUDA_ERROR_SYSTEM_NOT_READY): NVSwitch fabric not ready",
	  "NVIDIA Fabric Manager user guide" },
	{ "cuinit-failed", GP_SEV_ERROR, "cuInit returned another error", REF_ERRORS },
	{ "libcuda-missing", GP_SEV_ERROR, "dlopen(\"libcuda.so.1\") failed in the container",
	  NULL },
	{ "libcuda-broken", GP_SEV_ERROR,
	  "libcuda.so.1 lacks cuInit, cuDriverGetVersion or cuDeviceGetCount", NULL },
	{ "probe-crashed", GP_SEV_ERROR, "the probe died of a signal", NULL },
	{ "probe-output", GP_SEV_ERROR, "the probe's output was cut short or malformed", NULL },
	{ "probe-lingering", GP_SEV_WARNING,
	  "a process in the container kept the probe's output open after the probe ended", NULL },
	{ "node-missing", GP_SEV_ERROR, "an expected /dev node is absent in the container", NULL },
	{ "node-stale", GP_SEV_ERROR,
	  "a /dev node in the container has another number than the host's", NULL },
	{ "node-cgroup", GP_SEV_ERROR, "open(O_RDWR) of a node gave EPERM: the device cgroup",
	  NULL },
	{ "node-mode", GP_SEV_ERROR, "open(O_RDWR) of a node gave EACCES: its mode or owner",
	  NULL },
	{ "node-no-driver", GP_SEV_ERROR,
	  "open(O_RDWR) of a node gave ENXIO or ENODEV: no driver behind it", NULL },
	{ "gpu-missing", GP_SEV_ERROR, "a selected GPU is not among the devices CUDA sees", NULL },
	{ "gpu-extra", GP_SEV_ERROR, "CUDA sees a GPU the container was not given", NULL },
	/* gpu-provision check: the host */
	{ "driver-missing", GP_SEV_ERROR,
	  "no /proc/driver/nvidia/version: the driver is not loaded", NULL },
	{ "gpu-excluded", GP_SEV_WARNING, "a GPU's information says GPU Excluded: Yes", NULL },
	{ "gsp-firmware-missing", GP_SEV_ERROR,
	  "open module, and no gsp_*.bin under /lib/firmware/nvidia/<version>",
	  "NVIDIA open GPU kernel modules README: GSP firmware" },
	{ "uvm-not-loaded", GP_SEV_ERROR, "nvidia_uvm is not loaded (no nvidia-uvm major)", NULL },
	{ "hmm-active", GP_SEV_ERROR, "HMM is active in nvidia_uvm (the verdict of host)",
	  REF_HMM },
	{ "host-node-missing", GP_SEV_ERROR, "a host /dev node the driver has is absent", NULL },
	{ "host-node-stale", GP_SEV_ERROR, "a host /dev node has another number than today's",
	  NULL },
	{ "host-node-mode", GP_SEV_WARNING,
	  "a host /dev node's mode or owner differs from the driver's params", NULL },
	{ "persistenced-missing", GP_SEV_INFO,
	  "no nvidia-persistenced process: the driver is torn down between users", NULL },
	{ "fabric-manager-missing", GP_SEV_ERROR,
	  "NVSwitch devices present and no nv-fabricmanager process",
	  "NVIDIA Fabric Manager user guide" },
	{ "nokaslr-hint", GP_SEV_INFO, "HMM would be active and the kernel runs with KASLR",
	  REF_HMM },
	{ "kmsg-signature", GP_SEV_ERROR,
	  "the kernel log holds a known NVIDIA failure (Xid, fallen off the bus, RmInitAdapter, "
	  "HMM init)",
	  NULL },
	/* gpu-provision check: a container's config */
	{ "hook-missing", GP_SEV_ERROR, "the container has an ini but no gpu-hook lines", NULL },
	{ "hook-binary-missing", GP_SEV_ERROR, "a gpu-hook line names a file that does not exist",
	  NULL },
	{ "rule-stale", GP_SEV_ERROR, "a device rule attach wrote has a major that is not today's",
	  NULL },
	{ "cgroup-v1-keys", GP_SEV_ERROR,
	  "lxc.cgroup.devices.* keys on a host whose devices controller is cgroup v2", NULL },
	{ "optional-mount", GP_SEV_WARNING,
	  "an lxc.mount.entry for an NVIDIA node with \"optional\": a missing node is skipped "
	  "silently",
	  NULL },
	{ "unprivileged-node-mode", GP_SEV_WARNING,
	  "an unprivileged container, and nodes that only a host group may open", NULL },
	{ "pve-duplicate", GP_SEV_WARNING,
	  "a Proxmox devN entry and raw lxc.* lines for the same node", NULL },
	{ "fixture-host", GP_SEV_INFO,
	  "--root names a captured host: ENXIO from its nodes is expected and not reported", NULL },
	{ "not-attached", GP_SEV_WARNING,
	  "the container has no ini: probed without knowing its GPUs", NULL },
};
const size_t gp_finding_nkinds = sizeof(gp_finding_kinds) / sizeof(gp_finding_kinds[0]);

struct gp_finding *gp_findings_add(struct gp_findings *f, const char *id)
{
	struct gp_finding *x;

	if (f->n == GP_MAX_FINDINGS)
		return NULL;
	for (size_t i = 0; i < gp_finding_nkinds; i++) {
		if (strcmp(gp_finding_kinds[i].id, id) != 0)
			continue;
		x = &f->v[f->n++];
		memset(x, 0, sizeof(*x));
		x->id = gp_finding_kinds[i].id;
		x->severity = gp_finding_kinds[i].severity;
		x->refs = gp_finding_kinds[i].refs;
		return x;
	}
	return NULL;
}

void gp_finding_put(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, size, fmt, ap);
	va_end(ap);
}

int gp_findings_errors(const struct gp_findings *f)
{
	int n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += f->v[i].severity == GP_SEV_ERROR;
	return n;
}

const char *gp_severity_name(enum gp_severity s)
{
	return s == GP_SEV_ERROR ? "error" : s == GP_SEV_WARNING ? "warning" : "info";
}

struct json_object *gp_findings_json(const struct gp_findings *f)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < f->n; i++) {
		const struct gp_finding *x = &f->v[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "id", json_object_new_string(x->id));
		json_object_object_add(o, "severity",
				       json_object_new_string(gp_severity_name(x->severity)));
		json_object_object_add(o, "summary", json_object_new_string(x->summary));
		json_object_object_add(o, "evidence", json_object_new_string(x->evidence));
		json_object_object_add(o, "fix", json_object_new_string(x->fix));
		json_object_object_add(o, "refs", json_object_new_string(x->refs ? x->refs : ""));
		json_object_array_add(a, o);
	}
	return a;
}

static const char *color(enum gp_severity s, bool tty)
{
	if (!tty)
		return "";
	return s == GP_SEV_ERROR ? "\033[31m" : s == GP_SEV_WARNING ? "\033[33m" : "\033[36m";
}

/* One field of a finding, escaped: evidence can quote what a container said. */
static void print_field(FILE *out, const char *indent, const char *label, const char *text)
{
	char esc[4 * sizeof(((struct gp_finding *)0)->evidence)];

	gp_escape(esc, sizeof(esc), text, strlen(text), false);
	fprintf(out, "%s%s%s\n", indent, label, esc);
}

void gp_findings_print(const struct gp_findings *f, FILE *out, const char *indent, bool tty)
{
	char more[32];

	snprintf(more, sizeof(more), "%s  ", indent);
	for (int sev = GP_SEV_ERROR; sev <= GP_SEV_INFO; sev++) {
		for (size_t i = 0; i < f->n; i++) {
			const struct gp_finding *x = &f->v[i];
			char esc[4 * sizeof(x->summary)];

			if ((int)x->severity != sev)
				continue;
			gp_escape(esc, sizeof(esc), x->summary, strlen(x->summary), false);
			fprintf(out, "%s%s%s%s %s: %s\n", indent, color(x->severity, tty),
				gp_severity_name(x->severity), tty ? "\033[0m" : "", x->id, esc);
			print_field(out, more, "evidence: ", x->evidence);
			if (x->fix[0])
				print_field(out, more, "fix:      ", x->fix);
			if (x->refs)
				print_field(out, more, "refs:     ", x->refs);
		}
	}
}
