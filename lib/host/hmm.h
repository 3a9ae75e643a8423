/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/host/hmm.c. */
#ifndef GP_HMM_H
#define GP_HMM_H

#include <stddef.h>

#include "host/host.h"
#include "host/modules.h"

#define GP_NVML_MAX_GPUS 64
enum gp_addressing { GP_ADDR_NONE = 0, GP_ADDR_HMM = 1, GP_ADDR_ATS = 2 };

/* What NVML says of each GPU's addressing mode, when it could be asked. */
struct gp_nvml {
	int status; /* 0 asked, -ENOENT no libnvidia-ml.so.1, other -errno */
	int modes[GP_NVML_MAX_GPUS];
	size_t n;
};

/* Known kernel messages of a failed HMM init, found in a kernel log buffer. */
const char *gp_kmsg_hmm_signature(const char *log);

#define GP_HMM_MAX_EVIDENCE 8
struct gp_hmm {
	enum gp_tristate active;	  /* now, with the loaded module's parameter */
	enum gp_tristate would_be_active; /* if nvidia_uvm ran with uvm_disable_hmm=N */
	const char *source;		  /* "nvml" or "host files" */
	char evidence[GP_HMM_MAX_EVIDENCE][160];
	size_t n;
};

/*
 * The HMM verdict: HMM is active only with the open module, uvm_disable_hmm=N, a kernel
 * with CONFIG_DEVICE_PRIVATE and no ATS. NVML's answer, where given, wins. nvml and
 * kmsg may be NULL.
 */
void gp_hmm_judge(const struct gp_host *host, const struct gp_modules *mods,
		  const struct gp_nvml *nvml, const char *kmsg, struct gp_hmm *out);

/* Reads the kernel log: klogctl on the real host, <root>/var/log/kern.log under a root. */
char *gp_kmsg_read(const char *root);

#endif
