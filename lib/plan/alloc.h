/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/plan/alloc.c. */
#ifndef GP_ALLOC_H
#define GP_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "host/host.h"
#include "plan/plan.h"
#include "plan/select.h"

struct gp_ctx;
struct gp_ini;
struct gp_cg_rules;

/* A container that holds a GPU, with its selection. */
struct gp_holder {
	char name[65];
	char devices[GP_PORTABLE_MODEL_MAX + 16]; /* "any:1", "model:B200:2" */
};

/* Who holds the host's GPUs through this tool: the other containers' live plans. */
struct gp_held {
	char by[GP_MAX_GPUS][65];	/* the first container holding host->gpus[i]; "" free */
	unsigned int more[GP_MAX_GPUS]; /* how many others hold it too (fixed selections share) */
	/* The first of those whose selection is portable: it expects the GPU alone. */
	struct gp_holder alone[GP_MAX_GPUS];
};

/*
 * Fills held from <root>/run/gpu-provision/ *.plan, all but self's, against host: a plan
 * whose owner is gone (gp_alloc_plan_live) holds nothing, nor does a damaged one (said
 * as a warning). A GPU is known by the plan's gpu lines (UUID), or in a version 1 plan by
 * its /dev/nvidiaN node. With holders, and a confdir in ctx, each holder's ini is read
 * (gp_ini_load) for held->alone. 0, or -errno (said) when the directory cannot be read.
 */
int gp_alloc_held(const struct gp_ctx *ctx, bool holders, const char *self,
		  const struct gp_host *host, struct gp_held *held);

/* Whose a plan is, as far as this host can tell. */
enum gp_owner_state {
	GP_OWNER_RUNS,	  /* that pid runs, with that start time */
	GP_OWNER_GONE,	  /* no such process, a zombie, or the pid another process's since */
	GP_OWNER_UNKNOWN, /* its /proc/PID/stat could not be read: it may run */
	GP_OWNER_NONE,	  /* a version 1 plan names no owner */
};

/* The plan's owner (err, NULL or not, gets the -errno of an unknown one). Quiet. */
enum gp_owner_state gp_alloc_owner_state(const struct gp_plan *plan, int *err);

/*
 * True unless the plan's owner is gone: one that cannot be told (version 1) or read holds
 * (a pid the kernel gave to another process since is not it). Quiet.
 */
bool gp_alloc_owner_alive(const struct gp_plan *plan);

/*
 * The same for the plan at path, name's, as a start weighs it: an owner that could not be
 * read holds its GPUs, and a warning says so naming path.
 */
bool gp_alloc_plan_live(const struct gp_plan *plan, const char *path, const char *name);

/*
 * The first p->count of the candidates in chosen (in index order) that held leaves free:
 * chosen keeps those alone. 0, or -ENOSPC (nothing said, chosen unchanged) when fewer are.
 */
int gp_alloc_choose(const struct gp_host *host, const struct gp_portable *p,
		    const struct gp_held *held, bool chosen[GP_MAX_GPUS]);

/* "node NAME" on Proxmox VE (the node's name in the cluster), else "this host". */
void gp_alloc_node_label(const struct gp_ctx *ctx, char *out, size_t size);

/*
 * The plan of name's start on this node: conf's selection against host, a portable one
 * taking free GPUs (held by no other live plan); plan->gpus names the GPUs it got. The
 * caller holds gp_alloc_lock and sets the owner. A refusal is one message, after the
 * ini's path:line, naming the node, the selection, why, and the node's GPUs (index,
 * model, UUID, who holds each): -ENOSPC when too few are free, -GP_EBADCONF for a selection
 * the node cannot meet; -E2BIG, -ENOMEM, -errno otherwise. With rules (the container's
 * device rules, or NULL), free GPUs they cover are taken before others. A fixed
 * selection that takes a GPU a portable one holds (the holders' inis read as
 * gp_ini_load reads them; not where ctx has no confdir) is warned: that one expects it
 * alone.
 */
int gp_alloc_plan(const struct gp_ctx *ctx, const char *name, const struct gp_host *host,
		  const struct gp_ini *conf, const struct gp_cg_rules *rules, struct gp_plan *plan);

/*
 * Takes the exclusive flock on <root>/run/gpu-provision/alloc.lock for name's start,
 * waiting GP_LOCK_TIMEOUT_MS at most: the fd, or -EBUSY (said, naming the lock) or
 * another -errno (said). gp_alloc_unlock removes the file, then lets go: it exists only
 * while a start holds it, and a waiter that locked a removed file tries again.
 */
int gp_alloc_lock(const char *root, const char *name);
void gp_alloc_unlock(const char *root, int fd);

/* The container's plan, read quietly: 0, -ENOENT none, -GP_EBADCONF damaged, -errno. */
int gp_alloc_read_plan(const char *root, const char *name, struct gp_plan *plan);

/*
 * The host positions of the GPUs a plan records, by UUID, into chosen: 0, or -ENOENT when
 * it records none (a version 1 plan) or one the host does not have.
 */
int gp_alloc_plan_chosen(const struct gp_plan *plan, const struct gp_host *host,
			 bool chosen[GP_MAX_GPUS]);

/*
 * The GPUs name's running start got, as its plan records them, into plan and chosen: 0;
 * else why no such record is there, in why (for the caller's message, the plan's path
 * quoted): -ENOENT no plan, -ESRCH its owner is gone, -ENODATA it records no GPU
 * (version 1), -ENODEV it records a GPU host lacks, -GP_EBADCONF damaged, -errno unreadable.
 * Quiet: a portable selection's GPUs are known from this alone, never guessed.
 */
int gp_alloc_started_with(const char *root, const char *name, const struct gp_host *host,
			  struct gp_plan *plan, bool chosen[GP_MAX_GPUS], char *why, size_t size);

#endif
