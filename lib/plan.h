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
 * Says an error of a selection or a plan once, after "where: " (the ini's "path:line";
 * nothing for NULL), and returns ret: "return gp_plan_error(-EINVAL, where, ...)".
 */
int gp_plan_error(int ret, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Resolves a selector list ("all", indexes, GPU-UUIDs, PCI addresses, comma-separated)
 * against the host. chosen[i] is set for host->gpus[i]. A refusal is said once (one
 * line saying what and what to do, after where) and gives -EINVAL.
 */
int gp_select_gpus(const char *spec, const struct gp_host *host, const char *where,
		   bool chosen[GP_MAX_GPUS]);

/*
 * Builds the plan: nvidiactl, the chosen GPUs' /dev/nvidiaN (N = device minor),
 * nvidia-uvm, nvidia-uvm-tools and the nodes of caps ("mig-config", "mig-monitor",
 * "gpuM/giG", "gpuM/giG/ciC"). root is read for the caps' modes. A refusal is said
 * once, after where: -EINVAL, or -E2BIG for more than GP_PLAN_MAX_NODES nodes.
 */
int gp_plan_build(const char *root, const struct gp_host *host, const bool chosen[GP_MAX_GPUS],
		  const char *caps, const char *where, struct gp_plan *plan);

/*
 * Every node the host should have for containers: nvidiactl, each GPU, nvidia-uvm(-tools)
 * when uvm is loaded, the MIG config and monitor caps, and the access caps of each GPU
 * and compute instance that exists (as /proc/driver/nvidia/capabilities lists them).
 * Says nothing but a full plan (-E2BIG); a host without the driver gives no nodes.
 */
int gp_plan_all(const char *root, const struct gp_host *host, struct gp_plan *plan);

/* Serialises a plan as text (malloc'd) and parses it back strictly: -EINVAL on any doubt. */
char *gp_plan_format(const struct gp_plan *plan);
int gp_plan_parse(const char *buf, struct gp_plan *plan);

/* True when name is one that a plan may hold (the names above, nothing else). */
bool gp_node_name_is_valid(const char *name);

#endif
