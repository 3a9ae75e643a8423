/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Implemented in lib/base/quorum.c: whether Proxmox VE's cluster filesystem takes writes,
 * as pmxcfs says in /etc/pve/.members, and the words for a write it refused for want of it.
 */
#ifndef GP_QUORUM_H
#define GP_QUORUM_H

/* pmxcfs's membership file: JSON, "quorate": 0 or 1 in its "cluster" object. */
#define GP_PVE_MEMBERS "/etc/pve/.members"

/*
 * 1 when <root>/etc/pve/.members says the cluster is quorate, 0 when it says not, -errno
 * when it cannot be read (-ENOENT: no cluster filesystem, or a single node without one),
 * -GP_EBADCONF when it says neither. Says nothing.
 */
int gp_pve_quorate(const char *root);

/*
 * What a write of path under an etc/pve that failed with r (-errno) means, for its error
 * message: "no quorum: ..." when r is EACCES or EROFS and that etc/pve's .members does not
 * say it is quorate (pmxcfs without quorum refuses every write so); that another node holds
 * the container's config when r is EEXIST (pmxcfs refuses a second config of one VMID);
 * else "". A static string.
 */
const char *gp_pve_write_refused(const char *path, int r);

#endif
