/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef GP_PLAN_H
#define GP_PLAN_H

#include <stdbool.h>
#include <sys/types.h>

#include "host.h"

#define GP_PLAN_MAX_NODES 160

/* One device node of a start: its name under /dev, its number and its host mode. */
struct gp_node {
	char name[64]; /* nvidia0, nvidiactl, nvidia-uvm, nvidia-caps/nvidia-cap3 */
	unsigned int major, minor;
	unsigned int mode, uid, gid;
};

struct gp_plan {
	struct gp_node nodes[GP_PLAN_MAX_NODES];
	size_t n;
};

/*
 * Resolves a selector list ("all", indexes, GPU-UUIDs, PCI addresses, comma-separated)
 * against the host. chosen[i] is set for host->gpus[i]. Errors are written to err
 * (one line saying what and what to do) and give -EINVAL.
 */
int gp_select_gpus(const char *spec, const struct gp_host *host, bool chosen[GP_MAX_GPUS],
		   char *err, size_t errlen);

/*
 * Builds the plan: nvidiactl, the chosen GPUs' /dev/nvidiaN (N = device minor),
 * nvidia-uvm, nvidia-uvm-tools and the nodes of caps ("mig-config", "mig-monitor",
 * "gpuM/giG", "gpuM/giG/ciC"). root is read for the caps' modes. -EINVAL with err set.
 */
int gp_plan_build(const char *root, const struct gp_host *host, const bool chosen[GP_MAX_GPUS],
		  const char *caps, struct gp_plan *plan, char *err, size_t errlen);

/*
 * Every node the host should have for containers: nvidiactl, each GPU, nvidia-uvm(-tools)
 * when uvm is loaded, the MIG config and monitor caps, and the access caps of each GPU
 * and compute instance that exists (as /proc/driver/nvidia/capabilities lists them).
 */
int gp_plan_all(const char *root, const struct gp_host *host, struct gp_plan *plan);

/* Serialises a plan as text (malloc'd) and parses it back strictly: -EINVAL on any doubt. */
char *gp_plan_format(const struct gp_plan *plan);
int gp_plan_parse(const char *buf, struct gp_plan *plan);

/* True when name is one that a plan may hold (the names above, nothing else). */
bool gp_node_name_is_valid(const char *name);

#endif
