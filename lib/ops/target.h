/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/ops/target.c. */
#ifndef GP_TARGET_H
#define GP_TARGET_H

#include <limits.h>
#include <stdbool.h>

#include "base/lock.h"
#include "ops/attachopts.h"

/* Where a container's GPU lines go: its LXC config, or its Proxmox VE config. */
enum gp_target_kind { GP_TARGET_LXC, GP_TARGET_PVE };

struct gp_target {
	enum gp_target_kind kind;
	char config[PATH_MAX];
	bool autodev; /* LXC runs autodev hooks for it (Proxmox always) */
	bool running;
	const char *sep;	     /* " = " or ": " between key and value */
	const char *rules;	     /* the device rules' key: "lxc.cgroup2.devices" */
	char name[72];		     /* the container's name or Proxmox ID */
	char lock[PATH_MAX];	     /* the config owner's lock file, held while editing */
	unsigned long long pve_devs; /* Proxmox: the devN numbers its config uses, as opened */
	enum gp_lock_kind lock_kind;
};

/* True when liblxc says the container runs (one that is not defined does not). */
bool gp_container_running(const char *name, const char *lxcpath);

/*
 * Finds the container: through liblxc for plain LXC, <root>/etc/pve/lxc/<id>.conf on
 * Proxmox (o->pve forces it), refusing a Proxmox container that is locked.
 * 0, -GP_EBADCONF (no such container), -EBUSY (locked), each explained.
 */
int gp_target_open(const struct gp_attach_opts *o, struct gp_target *t);

/*
 * Takes lines out and puts lines in, atomically with a backup, under the config owner's
 * lock (Proxmox: also refusing a "lock:" line read under it, and then changing item, if
 * not NULL, in the same write). 1 changed, 0 not, -errno: -EBUSY locked, -ESTALE changed
 * under us by someone not taking the lock, -GP_EBADCONF an item line to fix (said).
 */
struct gp_pveconf_item;
int gp_target_edit(const struct gp_target *t, const char *const *remove, size_t nremove,
		   const char *const *add, size_t nadd, const struct gp_pveconf_item *item);

/* Reads the config back: it must load, and hold (or no longer hold) line. 0 or -EIO. */
int gp_target_verify(const struct gp_attach_opts *o, const struct gp_target *t, const char *line,
		     bool present);

#endif
