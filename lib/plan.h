/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/plan.c. */
#ifndef GP_PLAN_H
#define GP_PLAN_H

#include <stdbool.h>
#include <sys/types.h>

#include "host.h"

#define GP_PLAN_MAX_NODES 160

struct gp_ctconf;

/* One device node of a start: its name under /dev, its number and its host mode. */
struct gp_node {
	char name[64]; /* as its vendor names it: nvidia0, nvidia-caps/nvidia-cap3 */
	unsigned int major, minor;
	unsigned int mode, uid, gid;
};

/* A GPU a start was given: its nvidia-smi index on this host then, and its UUID. */
struct gp_plan_gpu {
	unsigned int index;
	char uuid[64];
};

struct gp_plan {
	struct gp_node nodes[GP_PLAN_MAX_NODES];
	size_t n;
	/* The start's (lib/alloc.c): the GPUs it got, and whose it is. None in a plan of attach. */
	struct gp_plan_gpu gpus[GP_MAX_GPUS];
	size_t ngpus;
	pid_t owner;			/* LXC's monitor, the pre-start hook's parent; 0 for none */
	unsigned long long owner_start; /* its start time, field 22 of /proc/PID/stat */
};

/*
 * Adds a copy of node (its mode cut to 07777) unless the plan holds one of that name: 0.
 * A full plan (GP_PLAN_MAX_NODES) is said after where and gives -E2BIG.
 */
int gp_plan_add(struct gp_plan *plan, const struct gp_node *node, const char *where);

/* Where gp_plan_for_conf's refusals point: the caller's choice, as each said it before. */
enum gp_conf_where {
	GP_WHERE_NONE, /* nothing: the selection may not be the ini's (attach --gpus) */
	GP_WHERE_LINE, /* "path:devices_line: " for the selectors, "path: " for the rest */
};

/*
 * An ini's selection (conf->devices, conf->caps) against the host, through the host's
 * vendor (vendor.h): chosen[i] for host->gpus[i] (chosen may be NULL) and the plan of
 * a start. root is read for the nodes' modes. A refusal is said once: -EINVAL, or
 * -E2BIG for more than GP_PLAN_MAX_NODES nodes.
 */
int gp_plan_for_conf(const char *root, const struct gp_host *host, const struct gp_ctconf *conf,
		     enum gp_conf_where where, bool chosen[GP_MAX_GPUS], struct gp_plan *plan);

/*
 * The same for GPUs already chosen (host->gpus[i] where chosen[i]; a portable selection's
 * at a start, lib/alloc.c), with conf's caps and display nodes. 0, -EINVAL, -E2BIG, said.
 */
int gp_plan_for_chosen(const char *root, const struct gp_host *host, const struct gp_ctconf *conf,
		       enum gp_conf_where where, const bool chosen[GP_MAX_GPUS],
		       struct gp_plan *plan);

/*
 * Every node the host should have for containers, as its vendor says (for NVIDIA:
 * nvidiactl, each GPU, nvidia-uvm(-tools), the MIG caps that exist). Says nothing but
 * a full plan (-E2BIG); a host without the driver gives no nodes.
 */
int gp_plan_all(const char *root, const struct gp_host *host, struct gp_plan *plan);

/*
 * Serialises a plan as text (malloc'd) and parses it back strictly: -EINVAL on any doubt.
 * Version 1 holds node lines; version 2 adds "owner PID START" and "gpu INDEX UUID" before
 * them. A plan without owner or GPUs is written as version 1, as before; both are read.
 */
char *gp_plan_format(const struct gp_plan *plan);
int gp_plan_parse(const char *buf, struct gp_plan *plan);

/* True when name is one that some vendor's plan may hold (vendor.h), nothing else. */
bool gp_node_name_is_valid(const char *name);

#endif
