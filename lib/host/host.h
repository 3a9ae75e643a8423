/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/host/host.c. */
#ifndef GP_HOST_H
#define GP_HOST_H

#include <stdbool.h>
#include <sys/types.h>

#include "host/facts.h"

/* The host as the NVIDIA driver shows it; vendor.h's gp_vendor_nvidia plans from it. */
struct gp_host {
	bool driver_loaded;
	char version[32];
	enum gp_flavor flavor;
	struct gp_params params;
	struct gp_gpu gpus[GP_MAX_GPUS];
	size_t ngpus;
	struct gp_majors majors;
	struct gp_caps_table caps;
	char kernel_release[128];
	struct gp_kconfig kconfig;
	char kconfig_source[256];
};

/* Which nvidia-smi indexes the host's GPUs have, for a message: "the host has GPUs 0-7". */
void gp_host_describe_indexes(const struct gp_host *host, char *out, size_t size);

/* Orders gpus by PCI address and numbers their index as nvidia-smi does. */
void gp_host_index_gpus(struct gp_host *host);

/* What gp_host_read reads besides the driver, GPUs, majors and modules. */
#define GP_HOST_MIG (1u << 0)	  /* the MIG cap minors table */
#define GP_HOST_KCONFIG (1u << 1) /* kernel build options, for the HMM verdict */
#define GP_HOST_ALL (GP_HOST_MIG | GP_HOST_KCONFIG)

/*
 * Reads the host's driver state under root (NULL or "/" for the real host); parts
 * adds the slower reads above (the hook at each start skips what it does not need).
 * A host without the driver is not an error: driver_loaded stays false.
 * Returns 0 or -errno for a file that exists but cannot be read or parsed.
 */
int gp_host_read(const char *root, unsigned int parts, struct gp_host *host);
void gp_host_free(struct gp_host *host);
/* Adds the kernel build options to a host read without GP_HOST_KCONFIG. */
void gp_host_read_kconfig(const char *root, struct gp_host *host);

const char *gp_flavor_name(enum gp_flavor f);
/* Returns the minor of a MIG cap name in the table, or -ENOENT. */
int gp_caps_lookup(const struct gp_caps_table *caps, const char *name);

#endif
