/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/ops/containers.c. */
#ifndef GP_CONTAINERS_H
#define GP_CONTAINERS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The containers this host has given GPUs, sorted: the <name>.ini files of confdir; on
 * Proxmox VE this node's containers with an ini (in the cluster filesystem, or one still
 * in confdir). Returns how many names were put in names (malloc'd each), or -errno.
 */
struct gp_ctx;
int gp_containers_with_gpus(const struct gp_ctx *ctx, char ***names);
void gp_containers_free(char **names, int n);

/*
 * Every container of the host, with GPUs or not: Proxmox VE's IDs (<root>/etc/pve/lxc/
 * <id>.conf) on Proxmox VE, else LXC's defined containers in lxcpath. Sorted; how many,
 * or -errno.
 */
int gp_containers_all(const struct gp_ctx *ctx, char ***names);

#endif
