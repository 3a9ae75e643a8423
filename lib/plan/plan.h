/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/plan/plan.c. */
#ifndef GP_PLAN_H
#define GP_PLAN_H

#include <stdbool.h>
#include <sys/types.h>

#include "host/host.h"

#define GP_PLAN_MAX_NODES 160

struct gp_ini;

/* One device node of a start: its name under /dev, its number and its host mode. */
struct gp_devnode {
	char name[64]; /* as its vendor names it: nvidia0, nvidia-caps/nvidia-cap3 */
	unsigned int major, minor;
	unsigned int mode, uid, gid;
};

/* A GPU a start was given: its nvidia-smi index on this host then, its UUID and its PCI
 * address (as /proc/driver/nvidia/gpus names it; empty in a plan from before). */
struct gp_plan_gpu {
	unsigned int index;
	char uuid[64];
	char pci[32];
};

struct gp_plan {
	struct gp_devnode nodes[GP_PLAN_MAX_NODES];
	size_t n;
	/* The start's (lib/plan/alloc.c): the GPUs it got, and whose it is. None in a plan of
	 * attach. */
	struct gp_plan_gpu gpus[GP_MAX_GPUS];
	size_t ngpus;
	pid_t owner;			/* LXC's monitor, the pre-start hook's parent; 0 for none */
	unsigned long long owner_start; /* its start time, field 22 of /proc/PID/stat */
};

/*
 * Adds a copy of node (its mode cut to 07777) unless the plan holds one of that name: 0.
 * A full plan (GP_PLAN_MAX_NODES) is said after where and gives -E2BIG.
 */
int gp_plan_add(struct gp_plan *plan, const struct gp_devnode *node, const char *where);

#endif
