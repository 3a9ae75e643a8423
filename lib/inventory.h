/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/inventory.c. */
#ifndef GP_INVENTORY_H
#define GP_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The containers this host has given GPUs, sorted: the <name>.ini files of confdir; on
 * Proxmox VE this node's containers with an ini (in the cluster filesystem, or one still
 * in confdir). Returns how many names were put in names (malloc'd each), or -errno.
 */
int gp_inventory_names(const char *root, const char *confdir, char ***names);
void gp_inventory_free(char **names, int n);

/*
 * Every container of the host, with GPUs or not: Proxmox VE's IDs (<root>/etc/pve/lxc/
 * <id>.conf) when pve, else LXC's defined containers in lxcpath. Sorted; how many, or
 * -errno.
 */
int gp_inventory_containers(const char *root, const char *lxcpath, bool pve, char ***names);

/*
 * The last probe's verdict of a container, kept in <root>/run/gpu-provision: its status
 * ("ok", "failed" or "timeout") and, after --deep, each capability's worst status over
 * the GPUs ("compute=ok,nvml=ok,...,vulkan=absent"), else NULL or "" (no GPU judged).
 */
int gp_verdict_save(const char *root, const char *name, const char *status, const char *deep);

struct gp_verdict {
	char status[16];
	long when;
	char deep[256]; /* "" when the last probe was not --deep */
};

/* Reads it back, checked word by word: -ENOENT for none, -EINVAL for a bad one. */
int gp_verdict_load(const char *root, const char *name, struct gp_verdict *v);

#endif
