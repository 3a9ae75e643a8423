/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The findings of probe --deep, from lib/diagnose/deep.c's verdicts: one finding per kind of
 * failure, whatever number of GPUs it hit; its evidence names them (CUDA ordinal, PCI bus
 * id, UUID), grouped by the step and code that decided, and its fix is the one for that
 * code. A verdict the probe never reached ("hung", "not-reached") gives none: probe-timeout,
 * probe-crashed or probe-output already say where it stopped. The steps' words came from
 * the container: printable and bounded (lib/diagnose/proberun.c), and never put into a command line
 * of a fix (a host GPU is named by the host's own index).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"
#include "diagnose/diagnosedeep.h"
#include "host/userspace.h"

_Static_assert(GP_PROBE_MAX_DEVICES <= 64, "a set of devices is one 64-bit mask");

/* The kinds --deep raises, in the order they are listed. */
enum kind {
	K_COMPUTE,
	K_WRONG_RESULT,
	K_PTX,
	K_NVML_MISSING,
	K_NVDEC_MISSING,
	K_NVENC_MISSING,
	K_NVML,
	K_NVML_UNLISTED,
	K_NVDEC,
	K_NVENC,
	K_ENGINE,
	K_VULKAN,
	K_COUNT
};

static const enum gp_finding_id kind_ids[K_COUNT] = {
	[K_COMPUTE] = GP_FINDING_COMPUTE_FAILED,
	[K_WRONG_RESULT] = GP_FINDING_COMPUTE_WRONG_RESULT,
	[K_PTX] = GP_FINDING_PTX_JIT_FAILED,
	[K_NVML_MISSING] = GP_FINDING_NVML_MISSING,
	[K_NVDEC_MISSING] = GP_FINDING_NVDEC_MISSING,
	[K_NVENC_MISSING] = GP_FINDING_NVENC_MISSING,
	[K_NVML] = GP_FINDING_NVML_FAILED,
	[K_NVML_UNLISTED] = GP_FINDING_NVML_GPU_NOT_LISTED,
	[K_NVDEC] = GP_FINDING_NVDEC_FAILED,
	[K_NVENC] = GP_FINDING_NVENC_FAILED,
	[K_ENGINE] = GP_FINDING_VIDEO_ENGINE_ABSENT,
	[K_VULKAN] = GP_FINDING_VULKAN_FAILED,
};

/* The devices one step decided with one code (of one part: NVDEC's codecs are one). */
struct group {
	enum gp_deep_cap cap;		 /* the first verdict's */
	const struct gp_deep_verdict *v; /* the first device's */
	uint64_t devices;
};

#define MAX_GROUPS 8
struct hits {
	struct group g[MAX_GROUPS];
	int n;
	uint64_t devices; /* every device of the kind */
	uint64_t other;	  /* those past MAX_GROUPS groups */
};

struct deep {
	const struct gp_probe_result *r;
	const struct gp_expect *e;
	struct hits k[K_COUNT];
};

/* Text appended to a finding's field; what does not fit ends in "...". */
struct text {
	char *s;
	size_t size, len;
};
#define TEXT(field)                                                                                \
	{                                                                                          \
		field, sizeof(field), strlen(field)                                                \
	}

static void __attribute__((format(printf, 2, 3))) put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->len + 1 >= t->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->s + t->len, t->size - t->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	t->len += (size_t)n;
	if (t->len >= t->size) {
		t->len = t->size - 1;
		memcpy(t->s + t->len - 3, "...", 3);
	}
}

/* A fix more, unless the field says it already. */
static void add_fix(struct text *t, const char *fix)
{
	if (!strstr(t->s, fix))
		put(t, "%s%s", t->len ? "; " : "", fix);
}

/* "0, 1" */
static void put_ordinals(struct text *t, uint64_t m)
{
	bool first = true;

	for (int dev = 0; dev < GP_PROBE_MAX_DEVICES; dev++)
		if (m & (UINT64_C(1) << dev)) {
			put(t, "%s%d", first ? "" : ", ", dev);
			first = false;
		}
}

/* "GPU 0 (0000:41:00.0, GPU-…), GPU 1 (…)": CUDA's ordinals in the container. */
static void put_gpus(struct text *t, const struct gp_probe_result *r, uint64_t m)
{
	bool first = true;

	for (int dev = 0; dev < GP_PROBE_MAX_DEVICES; dev++)
		if (m & (UINT64_C(1) << dev)) {
			put(t, "%sGPU %d (%s, %s)", first ? "" : ", ", dev,
			    r->devices[dev].pci[0] ? r->devices[dev].pci : "?",
			    r->devices[dev].uuid[0] ? r->devices[dev].uuid : "?");
			first = false;
		}
}

/*
 * The host's GPU of CUDA device dev in the container, by UUID, or NULL: only one given to
 * the container, so that a fix never names another container's GPU.
 */
static const struct gp_gpu *host_gpu(const struct deep *d, int dev)
{
	const char *uuid = d->r->devices[dev].uuid;

	for (size_t i = 0; uuid[0] && i < d->e->host->ngpus; i++)
		if ((!d->e->attached || (d->e->chosen && d->e->chosen[i])) &&
		    strcasecmp(d->e->host->gpus[i].uuid, uuid) == 0)
			return &d->e->host->gpus[i];
	return NULL;
}

static int first_device(uint64_t m)
{
	return m ? __builtin_ctzll(m) : 0;
}

static const char *version(const struct deep *d)
{
	return d->e->host->version[0] ? d->e->host->version : "of the kernel module";
}

/* Whether injection gives the container cap's libraries (video brings compute too). */
static bool injected(const struct gp_expect *e, enum gp_capability cap)
{
	unsigned int caps = e->capabilities;

	if (caps & GP_CAP_BIT(GP_CAP_VIDEO))
		caps |= GP_CAP_BIT(GP_CAP_COMPUTE);
	if (caps & GP_CAP_BIT(GP_CAP_DISPLAY))
		caps |= GP_CAP_BIT(GP_CAP_GRAPHICS);
	return e->inject && (caps & GP_CAP_BIT(cap));
}

bool gp_deep_cap_injected(const struct gp_expect *e, enum gp_deep_cap c)
{
	static const enum gp_capability of[GP_DEEP_COUNT] = {
		[GP_DEEP_COMPUTE] = GP_CAP_COMPUTE,  [GP_DEEP_NVML] = GP_CAP_UTILITY,
		[GP_DEEP_NVDEC_H264] = GP_CAP_VIDEO, [GP_DEEP_NVDEC_HEVC] = GP_CAP_VIDEO,
		[GP_DEEP_NVDEC_AV1] = GP_CAP_VIDEO,  [GP_DEEP_NVENC] = GP_CAP_VIDEO,
		[GP_DEEP_VULKAN] = GP_CAP_GRAPHICS,
	};

	return injected(e, of[c]);
}

/*
 * The capabilities to give attach: the container's (compute,utility by default) and cap
 * (GP_CAP_COUNT: none more).
 */
static void capability_list(const struct gp_expect *e, enum gp_capability cap, char *buf,
			    size_t size)
{
	unsigned int caps = e->capabilities
				? e->capabilities
				: GP_CAP_BIT(GP_CAP_COMPUTE) | GP_CAP_BIT(GP_CAP_UTILITY);
	struct text t = { buf, size, 0 };

	buf[0] = '\0';
	if (cap < GP_CAP_COUNT)
		caps |= GP_CAP_BIT(cap);
	for (int c = 0; c < GP_CAP_COUNT; c++)
		if (caps & GP_CAP_BIT(c))
			put(&t, "%s%s", t.len ? "," : "",
			    gp_capability_name((enum gp_capability)c));
}

/* How a container gets cap's library: attach's injection, or the driver's package. */
static void put_get_library(struct text *t, const struct deep *d, enum gp_capability cap,
			    const char *package)
{
	char caps[64];

	capability_list(d->e, cap, caps, sizeof(caps));
	if (d->e->inject)
		put(t, "gpu-provision attach %s --capabilities %s, then restart it", d->e->name,
		    caps);
	else
		put(t,
		    "gpu-provision attach %s --inject --capabilities %s, then restart it; or "
		    "install the driver's %s of exactly %s inside (the distribution's package of "
		    "that version, or NVIDIA-Linux-x86_64-%s.run --no-kernel-module)",
		    d->e->name, caps, package, version(d), version(d));
}

/* A verdict judged from no step: the probe timed out or died first (said elsewhere). */
static bool unreached(const struct gp_deep_verdict *v)
{
	return v->code == 0 &&
	       (strcmp(v->name, "hung") == 0 || strcmp(v->name, "not-reached") == 0);
}

static bool is_nvdec(enum gp_deep_cap c)
{
	return c == GP_DEEP_NVDEC_H264 || c == GP_DEEP_NVDEC_HEVC || c == GP_DEEP_NVDEC_AV1;
}

static enum kind missing_kind(enum gp_deep_cap c)
{
	return c == GP_DEEP_NVML    ? K_NVML_MISSING
	       : is_nvdec(c)	    ? K_NVDEC_MISSING
	       : c == GP_DEEP_NVENC ? K_NVENC_MISSING
				    : K_COUNT; /* Vulkan: no loader, nothing to say */
}

/* The kind of finding a failed verdict of capability c is, or K_COUNT for none. */
static enum kind failed_kind(enum gp_deep_cap c, const struct gp_deep_verdict *v)
{
	if (unreached(v))
		return K_COUNT;
	switch (c) {
	case GP_DEEP_COMPUTE:
		if (strcmp(v->step, "compare") == 0 || strcmp(v->step, "kernel-result") == 0)
			return K_WRONG_RESULT;
		return strcmp(v->step, "module") == 0 ? K_PTX : K_COMPUTE;
	case GP_DEEP_NVML:
		return v->code == 0 ? K_NVML_UNLISTED : K_NVML; /* 0: its list lacks the GPU */
	case GP_DEEP_NVENC:
		return K_NVENC;
	case GP_DEEP_VULKAN:
		return K_VULKAN;
	default:
		return K_NVDEC;
	}
}

static enum kind kind_of(enum gp_deep_cap c, const struct gp_deep_verdict *v)
{
	switch (v->status) {
	case GP_DEEP_ABSENT:
		return c == GP_DEEP_COMPUTE ? K_COMPUTE : missing_kind(c);
	case GP_DEEP_UNSUPPORTED:
		return K_ENGINE;
	case GP_DEEP_FAILED:
		return failed_kind(c, v);
	default:
		return K_COUNT;
	}
}

static bool same_group(const struct group *g, enum gp_deep_cap c, const struct gp_deep_verdict *v)
{
	bool part = g->cap == c || (is_nvdec(g->cap) && is_nvdec(c));

	return part && g->v->code == v->code && strcmp(g->v->step, v->step) == 0;
}

static void hit(struct hits *h, enum gp_deep_cap c, int dev, const struct gp_deep_verdict *v)
{
	uint64_t bit = UINT64_C(1) << dev;
	int i = 0;

	h->devices |= bit;
	while (i < h->n && !same_group(&h->g[i], c, v))
		i++;
	if (i == MAX_GROUPS) {
		h->other |= bit;
		return;
	}
	if (i == h->n)
		h->g[h->n++] = (struct group){ c, v, 0 };
	h->g[i].devices |= bit;
}

/*
 * Whether a word from the container is a C identifier, as error and function names are:
 * only such a word goes into a summary's or a fix's text, where an admin may copy it.
 */
static bool is_identifier(const char *s)
{
	return s[0] &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
		   strlen(s);
}

/* A verdict's code for a summary: its name, the symbol missing, or the number. */
static const char *code_text(const struct gp_deep_verdict *v, char *buf, size_t size)
{
	if (strcmp(v->step, "symbols") == 0)
		snprintf(buf, size, "%s missing",
			 is_identifier(v->detail) ? v->detail : "a function");
	else if (is_identifier(v->name) && strcmp(v->name, "-") != 0)
		snprintf(buf, size, "%s", v->name);
	else
		snprintf(buf, size, "code %d", v->code);
	return buf;
}

/* "alloc: CUDA_ERROR_OUT_OF_MEMORY (2), 0.4 ms, on GPU 0 (…)" */
static void put_group(struct text *t, const struct deep *d, const struct group *g)
{
	const struct gp_deep_verdict *v = g->v;

	if (strcmp(v->step, "symbols") == 0)
		put(t, "symbols: %s missing", v->detail);
	else if (strcmp(v->name, "-") != 0)
		put(t, "%s: %s (%d)", v->step, v->name, v->code);
	else
		put(t, "%s: code %d", v->step, v->code);
	if (strcmp(v->step, "symbols") != 0 && strcmp(v->detail, "-") != 0)
		put(t, ", %s", v->detail);
	put(t, ", %.1f ms, on ", v->ms);
	put_gpus(t, d->r, g->devices);
}

static void put_groups(struct text *t, const struct deep *d, const struct hits *h)
{
	for (int i = 0; i < h->n; i++) {
		put(t, "%s", i ? "; " : "");
		put_group(t, d, &h->g[i]);
	}
	if (h->other) {
		put(t, "; and other steps or codes on ");
		put_gpus(t, d->r, h->other);
	}
}

/* A finding of kind k with its evidence (the groups after lead); NULL when the list is full. */
static struct gp_finding *add(struct gp_findings *f, const struct deep *d, enum kind k,
			      const char *lead)
{
	struct gp_finding *x = gp_findings_add(f, kind_ids[k]);
	struct text t;

	if (!x)
		return NULL;
	GP_SET(x->evidence, "%s", lead);
	t = (struct text)TEXT(x->evidence);
	put_groups(&t, d, &d->k[k]);
	return x;
}

static const char *compute_fix(const struct deep *d, const struct group *g, char *buf, size_t size)
{
	const struct gp_gpu *host = host_gpu(d, first_device(g->devices));
	int code = g->v->code;
	char name[96];

	if (strcmp(g->v->step, "symbols") == 0 && injected(d->e, GP_CAP_COMPUTE))
		snprintf(buf, size,
			 "libcuda.so.1 in %s must be the driver's %s: the hook injects it, so "
			 "another, older one comes first (ldconfig -p | grep libcuda inside): "
			 "remove it",
			 d->e->name, version(d));
	else if (strcmp(g->v->step, "symbols") == 0)
		snprintf(buf, size,
			 "libcuda.so.1 in %s is older than the probe needs or not the driver's: "
			 "install the driver's %s inside (NVIDIA-Linux-x86_64-%s.run "
			 "--no-kernel-module), or gpu-provision attach %s --inject",
			 d->e->name, version(d), version(d), d->e->name);
	else if (strcmp(g->v->step, "memory") == 0)
		snprintf(buf, size, "raise the memory limit of %s: the probe needs 1 MiB",
			 d->e->name);
	else if (code == 2)
		snprintf(buf, size,
			 "the GPU's memory is taken: on the host, nvidia-smi "
			 "--query-compute-apps=gpu_uuid,pid,used_memory --format=csv lists who "
			 "holds it; stop them, or give %s another GPU",
			 d->e->name);
	else if (code == 46 && host)
		snprintf(buf, size,
			 "the GPU is in exclusive-process compute mode and another process holds "
			 "it (nvidia-smi -q -d COMPUTE,PIDS -i %d on the host): stop that process, "
			 "or nvidia-smi -i %d -c DEFAULT",
			 host->index, host->index);
	else if (code == 46)
		snprintf(buf, size,
			 "the GPU is in exclusive-process compute mode and another process holds "
			 "it (nvidia-smi -q -d COMPUTE,PIDS on the host): stop that process, or "
			 "set the GPU's compute mode to DEFAULT (nvidia-smi -c DEFAULT)");
	else if (code == 700 || code == 719 || code == 999 || code == 214)
		snprintf(buf, size,
			 "a GPU fault: look for Xid lines in the host's kernel log (journalctl -k "
			 "| grep Xid) and at nvidia-smi -q -d ECC; the GPU may need a reset "
			 "(nvidia-smi -r) or the host a reboot");
	else
		snprintf(buf, size,
			 "see what %s means (refs); the host's kernel log (journalctl -k | grep -i "
			 "nvrm) often says more",
			 code_text(g->v, name, sizeof(name)));
	return buf;
}

static void compute_failed(struct gp_findings *f, const struct deep *d)
{
	const struct hits *h = &d->k[K_COMPUTE];
	struct gp_finding *x = add(f, d, K_COMPUTE, "");
	char buf[400], code[96];
	struct text s, fix;

	if (!x)
		return;
	s = (struct text)TEXT(x->summary);
	put(&s, "CUDA work failed at %s (%s) on GPU ", h->g[0].v->step,
	    code_text(h->g[0].v, code, sizeof(code)));
	put_ordinals(&s, h->devices);
	put(&s, " in %s", d->e->name);
	fix = (struct text)TEXT(x->fix);
	for (int i = 0; i < h->n; i++)
		add_fix(&fix, compute_fix(d, &h->g[i], buf, sizeof(buf)));
}

static void wrong_result(struct gp_findings *f, const struct deep *d)
{
	const struct hits *h = &d->k[K_WRONG_RESULT];
	struct gp_finding *x =
	    add(f, d, K_WRONG_RESULT, "the number is how many of 262144 32-bit words differ: ");
	struct text s;

	if (!x)
		return;
	s = (struct text)TEXT(x->summary);
	put(&s, "GPU ");
	put_ordinals(&s, h->devices);
	put(&s, " in %s gave back other data than %s", d->e->name,
	    strcmp(h->g[0].v->step, "compare") == 0 ? "was written to it" : "its kernel computes");
	if (h->g[0].v->code >= 1 && h->g[0].v->code <= 262144) /* else not our probe's count */
		put(&s, " (%d of 262144 words differ)", h->g[0].v->code);
	GP_SET(x->fix,
	       "memory that does not hold what was written: on the host, nvidia-smi -q -d ECC "
	       "(uncorrectable errors, retired or remapped rows) and journalctl -k | grep Xid; "
	       "or libcuda.so.1 in %s is a shim or wrapper, not the driver's %s",
	       d->e->name, version(d));
}

static void ptx_jit_failed(struct gp_findings *f, const struct deep *d)
{
	const struct hits *h = &d->k[K_PTX];
	struct gp_finding *x = add(f, d, K_PTX,
				   "cuModuleLoadData of the probe's PTX (.version 6.0, sm_50), "
				   "which the driver compiles for the GPU: ");
	char caps[64], code[96];

	if (!x)
		return;
	GP_SET(x->summary,
	       "the driver's PTX JIT failed in %s (%s): every CUDA program whose kernels were "
	       "built for an older GPU needs it",
	       d->e->name, code_text(h->g[0].v, code, sizeof(code)));
	capability_list(d->e, GP_CAP_COMPUTE, caps, sizeof(caps));
	if (injected(d->e, GP_CAP_COMPUTE))
		GP_SET(x->fix,
		       "the hook injects libnvidia-ptxjitcompiler.so.1 with compute: check that "
		       "the host has it at %s (ldconfig -p | grep ptxjit; gpu-provision check %s) "
		       "and that no older one in %s comes first, then restart it",
		       version(d), d->e->name, d->e->name);
	else if (d->e->inject)
		GP_SET(x->fix,
		       "gpu-provision attach %s --capabilities %s (compute carries "
		       "libnvidia-ptxjitcompiler.so.1), then restart it",
		       d->e->name, caps);
	else
		GP_SET(x->fix,
		       "libnvidia-ptxjitcompiler.so.1 is missing in %s or older than the driver: "
		       "install the driver's libnvidia-ptxjitcompiler of exactly %s inside "
		       "(NVIDIA-Linux-x86_64-%s.run --no-kernel-module), or gpu-provision attach "
		       "%s --inject",
		       d->e->name, version(d), version(d), d->e->name);
}

static const struct {
	enum kind kind;
	enum gp_capability cap;
	const char *soname, *use, *package;
} libraries[] = {
	{ K_NVML_MISSING, GP_CAP_UTILITY, "libnvidia-ml.so.1",
	  "no NVML for nvidia-smi and GPU monitoring (DCGM, exporters)", "libnvidia-ml" },
	{ K_NVDEC_MISSING, GP_CAP_VIDEO, "libnvcuvid.so.1",
	  "no NVDEC hardware decoding (Jellyfin, Plex, Frigate, ffmpeg -hwaccel cuda)",
	  "libnvidia-decode" },
	{ K_NVENC_MISSING, GP_CAP_VIDEO, "libnvidia-encode.so.1",
	  "no NVENC hardware encoding (Jellyfin, Plex, OBS, ffmpeg -c:v h264_nvenc)",
	  "libnvidia-encode" },
};

/* A library the container lacks: an error where injection should have given it. */
static void library_missing(struct gp_findings *f, const struct deep *d, size_t i)
{
	struct gp_finding *x = gp_findings_add(f, kind_ids[libraries[i].kind]);
	const char *cap = gp_capability_name(libraries[i].cap);
	struct text t;

	if (!x)
		return;
	GP_SET(x->evidence, "dlopen(\"%s\") failed inside; GPU ", libraries[i].soname);
	t = (struct text)TEXT(x->evidence);
	put_ordinals(&t, d->k[libraries[i].kind].devices);
	put(&t, " without it; [driver] inject = %s", d->e->inject ? "yes" : "no");
	if (d->e->inject) {
		char caps[64];

		capability_list(d->e, GP_CAP_COUNT, caps, sizeof(caps));
		put(&t, ", capabilities = %s", caps);
	}
	if (injected(d->e, libraries[i].cap)) {
		x->severity = GP_SEV_ERROR;
		GP_SET(x->summary, "%s was not injected into %s, whose capabilities have %s",
		       libraries[i].soname, d->e->name, cap);
		GP_SET(x->fix,
		       "the hook injects only the host's libraries of the module's version %s: "
		       "check that the host has %s of it (ldconfig -p on the host; gpu-provision "
		       "check %s), then restart %s",
		       version(d), libraries[i].soname, d->e->name, d->e->name);
		return;
	}
	x->severity = GP_SEV_INFO;
	GP_SET(x->summary, "no %s in %s: %s", libraries[i].soname, d->e->name, libraries[i].use);
	t = (struct text)TEXT(x->fix);
	put(&t, "if %s's programs need it: ", d->e->name);
	put_get_library(&t, d, libraries[i].cap, libraries[i].package);
}

/* A libnvidia-ml that is not the kernel module's: rejected by it, or lacking a call. */
static void nvml_version_fix(struct text *fix, const struct deep *d)
{
	if (strstr(fix->s, "libnvidia-ml.so.1 in"))
		return;
	put(fix, "%slibnvidia-ml.so.1 in %s must be the kernel module's version %s: ",
	    fix->len ? "; " : "", d->e->name, version(d));
	if (injected(d->e, GP_CAP_UTILITY))
		put(fix, "the hook injects that one, so another comes first (ldconfig -p | grep "
			 "libnvidia-ml inside): remove it");
	else
		put_get_library(fix, d, GP_CAP_UTILITY, "libnvidia-ml");
}

static void nvml_fix(struct text *fix, const struct deep *d, const struct gp_deep_verdict *v)
{
	char buf[400], name[96];

	if (v->code == 18 || strcmp(v->step, "symbols") == 0) {
		nvml_version_fix(fix, d);
		return;
	}
	if (v->code == 9)
		snprintf(buf, sizeof(buf),
			 "NVML cannot reach the driver: /dev/nvidiactl is missing or refused in "
			 "%s; gpu-provision check %s, then restart it",
			 d->e->name, d->e->name);
	else if (v->code == 4)
		snprintf(buf, sizeof(buf),
			 "the driver's nodes refuse the probe's user: their mode "
			 "(NVreg_DeviceFileMode) or the device cgroup; gpu-provision check %s",
			 d->e->name);
	else if (v->code == 15)
		snprintf(buf, sizeof(buf),
			 "the GPU is lost (fallen off the bus): journalctl -k | grep Xid on the "
			 "host; it needs a reset or a reboot");
	else
		snprintf(buf, sizeof(buf), "see what %s means (refs)",
			 code_text(v, name, sizeof(name)));
	add_fix(fix, buf);
}

static void nvml_failed(struct gp_findings *f, const struct deep *d)
{
	const struct hits *h = &d->k[K_NVML];
	struct gp_finding *x;
	char lead[64], code[96];
	struct text fix;

	snprintf(lead, sizeof(lead), "the host's kernel module is %s; ", version(d));
	x = add(f, d, K_NVML, lead);
	if (!x)
		return;
	GP_SET(x->summary, "NVML failed in %s at %s (%s): nvidia-smi and monitoring fail too",
	       d->e->name, h->g[0].v->step, code_text(h->g[0].v, code, sizeof(code)));
	fix = (struct text)TEXT(x->fix);
	for (int i = 0; i < h->n; i++)
		nvml_fix(&fix, d, h->g[i].v);
}

static void nvml_unlisted(struct gp_findings *f, const struct deep *d)
{
	const struct hits *h = &d->k[K_NVML_UNLISTED];
	struct gp_finding *x = gp_findings_add(f, kind_ids[K_NVML_UNLISTED]);
	struct text t;

	if (!x)
		return;
	t = (struct text)TEXT(x->summary);
	put(&t, "NVML in %s does not list GPU ", d->e->name);
	put_ordinals(&t, h->devices);
	put(&t, ", which CUDA sees: nvidia-smi and monitoring will not show it");
	t = (struct text)TEXT(x->evidence);
	put(&t, "no UUID of NVML's (nvmlDeviceGetUUID) is that of ");
	put_gpus(&t, d->r, h->devices);
	GP_SET(x->fix,
	       "libnvidia-ml.so.1 in %s must be the driver's %s, not a shim; if it is, "
	       "gpu-provision check %s (the GPU's /dev/nvidiaN and its rule)",
	       d->e->name, version(d), d->e->name);
}

static void nvdec_failed(struct gp_findings *f, const struct deep *d)
{
	const struct hits *h = &d->k[K_NVDEC];
	struct gp_finding *x = add(f, d, K_NVDEC, "");
	const struct gp_deep_verdict *v = h->g[0].v;
	bool library = false; /* a failure of libnvcuvid itself */
	struct text fix;
	char code[96];

	if (!x)
		return;
	GP_SET(x->summary, "NVDEC failed in %s at %s (%s)", d->e->name, v->step,
	       code_text(v, code, sizeof(code)));
	fix = (struct text)TEXT(x->fix);
	for (int i = 0; i < h->n; i++) {
		v = h->g[i].v;
		if (strcmp(v->step, "symbols") == 0 &&
		    strcmp(v->detail, "cuvidGetDecoderCaps") == 0)
			add_fix(&fix, "libnvcuvid.so.1 lacks cuvidGetDecoderCaps: older than Video "
				      "Codec SDK 8, or not the driver's");
		else if (strcmp(v->step, "symbols") == 0)
			add_fix(&fix, "libcuda.so.1 lacks a call the decoder needs: not the "
				      "driver's");
		else if (strcmp(v->step, "context") == 0)
			add_fix(&fix, "the GPU's CUDA context failed: see the compute findings");
		library |= strcmp(v->step, "context") != 0 &&
			   (strcmp(v->step, "symbols") != 0 ||
			    strcmp(v->detail, "cuvidGetDecoderCaps") == 0);
	}
	if (!library)
		return;
	put(&fix, "%slibnvcuvid.so.1 must be the driver's %s: ", fix.len ? "; " : "", version(d));
	put_get_library(&fix, d, GP_CAP_VIDEO, "libnvidia-decode");
}

/* "13.0", "1.0.61": numbers joined by points. */
static bool is_version(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (!n || s[n] != '.')
		return false;
	while (s[n] == '.') {
		size_t digits = strspn(s + n + 1, "0123456789");

		if (!digits)
			return false;
		n += 1 + digits;
	}
	return s[n] == '\0';
}

/* The NVENC API version the probe asked for: its instance step's detail ("13.0"). */
static const char *nvenc_api(const struct deep *d)
{
	for (size_t i = 0; i < d->r->nsteps; i++)
		if (strcmp(d->r->steps[i].cap, "nvenc") == 0 &&
		    strcmp(d->r->steps[i].step, "instance") == 0)
			return is_version(d->r->steps[i].detail) ? d->r->steps[i].detail
								 : "the probe's";
	return "the probe's";
}

static const char *nvenc_fix(const struct deep *d, const struct gp_deep_verdict *v, char *buf,
			     size_t size)
{
	char name[96];

	if (v->code == 15)
		snprintf(buf, size,
			 "libnvidia-encode.so.1 refused API version %s: it is older than that, or "
			 "not the driver's %s",
			 nvenc_api(d), version(d));
	else if (strcmp(v->step, "instance") == 0 || strcmp(v->step, "symbols") == 0)
		snprintf(buf, size, "libnvidia-encode.so.1 is not the driver's %s", version(d));
	else if (v->code == 10)
		snprintf(buf, size,
			 "on a GeForce card the driver's limit of concurrent encode sessions is "
			 "reached: other containers or processes encode (nvidia-smi -q -d "
			 "ENCODER_STATS on the host); end some, or use a card without the limit");
	else if (v->code == 21)
		snprintf(buf, size,
			 "the driver refused the client key: a feature of a licence this system "
			 "lacks (vGPU), or a library that is not the driver's %s",
			 version(d));
	else if (strcmp(v->step, "context") == 0)
		snprintf(buf, size, "the GPU's CUDA context failed: see the compute findings");
	else
		snprintf(buf, size, "see what %s means (refs)", code_text(v, name, sizeof(name)));
	return buf;
}

static void nvenc_failed(struct gp_findings *f, const struct deep *d)
{
	const struct hits *h = &d->k[K_NVENC];
	struct gp_finding *x = add(f, d, K_NVENC, "");
	char buf[400], code[96];
	struct text fix;

	if (!x)
		return;
	GP_SET(x->summary, "NVENC failed in %s at %s (%s)", d->e->name, h->g[0].v->step,
	       code_text(h->g[0].v, code, sizeof(code)));
	fix = (struct text)TEXT(x->fix);
	for (int i = 0; i < h->n; i++)
		add_fix(&fix, nvenc_fix(d, h->g[i].v, buf, sizeof(buf)));
	for (int i = 0; i < h->n; i++)
		if (h->g[i].v->code == 15 || strcmp(h->g[i].v->step, "instance") == 0) {
			put(&fix, "; to give it the driver's: ");
			put_get_library(&fix, d, GP_CAP_VIDEO, "libnvidia-encode");
			break;
		}
}

/* "no NVENC", "no AV1 decoder". */
static const char *engine_name(const struct group *g)
{
	switch (g->cap) {
	case GP_DEEP_NVENC:
		return "no NVENC";
	case GP_DEEP_NVDEC_H264:
		return "no H.264 decoder";
	case GP_DEEP_NVDEC_HEVC:
		return "no HEVC decoder";
	default:
		return "no AV1 decoder";
	}
}

static void engine_absent(struct gp_findings *f, const struct deep *d)
{
	const struct hits *h = &d->k[K_ENGINE];
	const struct gp_gpu *host = host_gpu(d, first_device(h->devices));
	struct gp_finding *x = add(f, d, K_ENGINE, "");
	struct text s;

	if (!x)
		return;
	s = (struct text)TEXT(x->summary);
	for (int i = 0; i < h->n; i++) {
		put(&s, "%s%s on GPU ", i ? "; " : "", engine_name(&h->g[i]));
		put_ordinals(&s, h->g[i].devices);
	}
	put(&s, " in %s", d->e->name);
	if (host && host->model[0])
		put(&s, " (%s)", host->model);
	put(&s, ": the GPU lacks the engine, not a fault");
	GP_SET(x->fix,
	       "nothing to fix in %s: a program that needs the engine needs a GPU that has "
	       "it (NVIDIA's Video Encode and Decode support matrix), or encodes and decodes "
	       "in software",
	       d->e->name);
}

static void vulkan_summary(struct gp_finding *x, const struct deep *d, const struct hits *h)
{
	const struct gp_deep_verdict *v = h->g[0].v;
	struct text t = TEXT(x->summary);
	char code[96];

	if (strcmp(v->step, "version") == 0)
		put(&t, "the Vulkan loader in %s is older than Vulkan 1.1 (%s)", d->e->name,
		    is_version(v->detail) ? v->detail : "its version");
	else if (v->code == -9)
		put(&t, "Vulkan in %s finds no driver (VK_ERROR_INCOMPATIBLE_DRIVER)", d->e->name);
	else if (v->code == 0) {
		put(&t, "no Vulkan device in %s is GPU ", d->e->name);
		put_ordinals(&t, h->g[0].devices);
		put(&t, ": the driver that answered is not NVIDIA's");
	} else
		put(&t, "Vulkan failed in %s at %s (%s)", d->e->name, v->step,
		    code_text(v, code, sizeof(code)));
}

static void vulkan_failed(struct gp_findings *f, const struct deep *d)
{
	const struct hits *h = &d->k[K_VULKAN];
	struct gp_finding *x = add(f, d, K_VULKAN, "");
	bool icd = false;
	struct text fix;

	if (!x)
		return;
	x->severity = injected(d->e, GP_CAP_GRAPHICS) ? GP_SEV_ERROR : GP_SEV_WARNING;
	vulkan_summary(x, d, h);
	fix = (struct text)TEXT(x->fix);
	for (int i = 0; i < h->n; i++) {
		const struct gp_deep_verdict *v = h->g[i].v;

		icd |= strcmp(v->step, "version") != 0;
		if (strcmp(v->step, "version") == 0)
			add_fix(&fix, "upgrade the container's Vulkan loader (libvulkan.so.1, "
				      "Debian's libvulkan1) to 1.1 or newer");
		else if (v->code == -9)
			add_fix(&fix, "NVIDIA's ICD (/usr/share/vulkan/icd.d/nvidia_icd.json and "
				      "libGLX_nvidia.so.0) is missing in the container");
		else if (v->code == 0)
			add_fix(&fix,
				"the ICD that answered is another (Mesa's llvmpipe?): "
				"NVIDIA's nvidia_icd.json and libGLX_nvidia.so.0 are missing");
	}
	if (!icd)
		return;
	put(&fix, "%sNVIDIA's ICD must be the driver's %s: ", fix.len ? "; " : "", version(d));
	if (injected(d->e, GP_CAP_GRAPHICS))
		put(&fix,
		    "the hook injects it with graphics: gpu-provision check %s, then restart it",
		    d->e->name);
	else
		put_get_library(&fix, d, GP_CAP_GRAPHICS, "Vulkan ICD (libnvidia-gl)");
}

static void collect(struct deep *d)
{
	const struct gp_deep *deep = d->e->deep;

	for (int dev = 0; dev < deep->ndevices && dev < GP_PROBE_MAX_DEVICES; dev++)
		for (int c = 0; c < GP_DEEP_COUNT; c++) {
			const struct gp_deep_verdict *v = &deep->v[dev][c];
			enum kind k = kind_of((enum gp_deep_cap)c, v);

			if (k != K_COUNT)
				hit(&d->k[k], (enum gp_deep_cap)c, dev, v);
		}
}

void gp_diagnose_deep(const struct gp_probe_result *r, const struct gp_expect *e,
		      struct gp_findings *f)
{
	struct deep d = { .r = r, .e = e };

	collect(&d);
	if (d.k[K_COMPUTE].n)
		compute_failed(f, &d);
	if (d.k[K_WRONG_RESULT].n)
		wrong_result(f, &d);
	if (d.k[K_PTX].n)
		ptx_jit_failed(f, &d);
	for (size_t i = 0; i < GP_ARRAY_SIZE(libraries); i++)
		if (d.k[libraries[i].kind].n)
			library_missing(f, &d, i);
	if (d.k[K_NVML].n)
		nvml_failed(f, &d);
	if (d.k[K_NVML_UNLISTED].n)
		nvml_unlisted(f, &d);
	if (d.k[K_NVDEC].n)
		nvdec_failed(f, &d);
	if (d.k[K_NVENC].n)
		nvenc_failed(f, &d);
	if (d.k[K_ENGINE].n)
		engine_absent(f, &d);
	if (d.k[K_VULKAN].n)
		vulkan_failed(f, &d);
}
