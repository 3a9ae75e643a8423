/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/driver/hoststate.c. */
#ifndef GP_HOSTSTATE_H
#define GP_HOSTSTATE_H

#include "host/hmm.h"
#include "host/host.h"
#include "host/modules.h"

struct kmod_ctx;

/*
 * The host state a command judges by, read once per command: the driver, GPUs and
 * majors (all parts), the modules through libkmod, the kernel log, NVML's addressing
 * modes when asked on the real host, and the HMM verdict of all of it. The static hook
 * reads its own smaller part (lib/start/hook.c, lib/start/hookuvm.c): it cannot link libkmod.
 */
struct gp_host_state {
	struct gp_host host;
	bool kconfig_read; /* host.kconfig is read (GP_HOST_KCONFIG) */
	struct gp_modules mods;
	int mods_status; /* gp_modules_read's result; prepare refuses to act on a failed one */
	struct gp_nvml nvml;
	struct gp_hmm hmm;
	char *kmsg;
	struct kmod_ctx *kmod; /* for prepare's module actions; freed with the state */
};

#define GP_STATE_NVML (1u << 0) /* ask NVML (real host with the driver loaded only) */

/* Reads it all under root (NULL for the real host). 0, or -errno of the driver's files. */
int gp_host_state_read(const char *root, unsigned int what, struct gp_host_state *s);

/*
 * The HMM half alone, over a host already read into s->host, the rest of s zeroed (probe
 * reads the host first, and the rest only when a result needs the verdict).
 */
void gp_host_state_judge(const char *root, unsigned int what, struct gp_host_state *s);

void gp_host_state_free(struct gp_host_state *s);

#endif
