/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Is HMM active in nvidia_uvm, or would it be? The evidence, and the verdict. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/utsname.h>

#include "base/paths.h"
#include "base/util.h"
#include "host/hmm.h"

static void __attribute__((format(printf, 2, 3))) note(struct gp_hmm *h, const char *fmt, ...)
{
	va_list ap;

	if (h->n == GP_HMM_MAX_EVIDENCE)
		return;
	va_start(ap, fmt);
	vsnprintf(h->evidence[h->n++], sizeof(h->evidence[0]), fmt, ap);
	va_end(ap);
}

/* The kernel messages NVIDIA's HMM init leaves when it fails (open-gpu-kernel-modules #797). */
static const char *const signatures[] = {
	"request_free_mem_region() err -34",
	"failed to intialize device private memory",
	"failed to initialize device private memory",
};

const char *gp_kmsg_hmm_signature(const char *log)
{
	for (size_t i = 0; log && i < GP_ARRAY_SIZE(signatures); i++)
		if (strstr(log, signatures[i]))
			return signatures[i];
	return NULL;
}

char *gp_kmsg_read(const char *root)
{
	char *buf = NULL;
	int size, n;

	if (!gp_root_is_host(root))
		return gp_read_file_at(root, "/var/log/kern.log", 16u << 20, &buf, NULL) == 0
			   ? buf
			   : NULL;
	size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (size <= 0 || !(buf = malloc((size_t)size + 1)))
		return NULL;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* ATS needs a CPU that shares page tables with the GPU: arm64 (Grace) or ppc64le. */
static bool arch_has_ats(const char *machine)
{
	return strcmp(machine, "aarch64") == 0 || strncmp(machine, "ppc64", 5) == 0;
}

static void judge_files(const struct gp_host *host, const struct gp_modules *mods, struct gp_hmm *h)
{
	struct utsname u;
	const char *machine = uname(&u) == 0 ? u.machine : "unknown";

	if (host->flavor == GP_FLAVOR_PROPRIETARY) {
		note(h, "proprietary kernel module %s: it has no HMM", host->version);
		h->would_be_active = GP_NO;
		return;
	}
	note(h, "open kernel module %s", host->version);
	if (host->kconfig.device_private == GP_NO) {
		note(h, "CONFIG_DEVICE_PRIVATE is not set (%s)", host->kconfig.source);
		h->would_be_active = GP_NO;
		return;
	}
	if (mods->uvm_ats_mode > 0 && arch_has_ats(machine)) {
		note(h, "ATS is available (%s, uvm_ats_mode=%d): UVM uses ATS, not HMM", machine,
		     mods->uvm_ats_mode);
		h->would_be_active = GP_NO;
		return;
	}
	if (host->kconfig.device_private == GP_YES) {
		note(h, "CONFIG_DEVICE_PRIVATE=y (%s)", host->kconfig.source);
		h->would_be_active = GP_YES;
	} else {
		note(h, "kernel build options unknown (no /boot/config-%s or /proc/config.gz)",
		     host->kernel_release);
	}
}

static void judge_params(const struct gp_modules *mods, struct gp_hmm *h)
{
	if (!mods->uvm.loaded) {
		note(h, "nvidia_uvm is not loaded");
		h->active = GP_NO;
		return;
	}
	if (mods->uvm_disable_hmm == GP_YES) {
		note(h, "uvm_disable_hmm=Y");
		h->active = GP_NO;
		return;
	}
	if (mods->uvm_disable_hmm == GP_NO)
		note(h, "uvm_disable_hmm=N");
	h->active = mods->uvm_disable_hmm == GP_NO ? h->would_be_active : GP_UNKNOWN;
	if (h->would_be_active == GP_NO)
		h->active = GP_NO;
}

static void judge_nvml(const struct gp_nvml *nvml, const struct gp_modules *mods, struct gp_hmm *h)
{
	static const char *names[] = { "None", "HMM", "ATS" };
	bool hmm = false;

	if (!nvml || nvml->status < 0 || nvml->n == 0)
		return;
	for (size_t i = 0; i < nvml->n; i++)
		hmm |= nvml->modes[i] == GP_ADDR_HMM;
	note(h, "NVML: addressing mode %s (GPU 0 of %zu)",
	     nvml->modes[0] >= 0 && nvml->modes[0] <= 2 ? names[nvml->modes[0]] : "unknown",
	     nvml->n);
	h->source = "nvml";
	h->active = hmm ? GP_YES : GP_NO;
	if (hmm)
		h->would_be_active = GP_YES;
	else if (mods->uvm.loaded && mods->uvm_disable_hmm == GP_NO)
		h->would_be_active = GP_NO;
}

void gp_hmm_judge(const struct gp_host *host, const struct gp_modules *mods,
		  const struct gp_nvml *nvml, const char *kmsg, struct gp_hmm *out)
{
	const char *sig = gp_kmsg_hmm_signature(kmsg);

	memset(out, 0, sizeof(*out));
	out->source = "host files";
	out->active = out->would_be_active = GP_UNKNOWN;
	if (!host->driver_loaded) {
		note(out, "the NVIDIA driver is not loaded");
		return;
	}
	judge_files(host, mods, out);
	judge_params(mods, out);
	judge_nvml(nvml, mods, out);
	if (sig) {
		note(out, "kernel log: \"%s\" (HMM init failed)", sig);
		if (out->would_be_active == GP_UNKNOWN)
			out->would_be_active = GP_YES;
	}
}
