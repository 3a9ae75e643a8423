/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/cluster/rrd.c. */
#ifndef GP_RRD_H
#define GP_RRD_H

#include <stddef.h>

#define GP_RRD_MAX (8 * 1024 * 1024)	/* /etc/pve/.rrd: one line per guest, node, storage */
#define GP_RRD_STALE_S 60		/* pvestatd sends every 10 s: a minute is stale */
#define GP_PVE_RRD_FILE "/etc/pve/.rrd" /* pmxcfs's plug of the status of every guest */

/*
 * A guest's state in Proxmox's /etc/pve/.rrd (buf, len bytes): pvestatd's status field,
 * upper-cased ("RUNNING", "STOPPED"). 0; -ENOENT when the file has no line for id;
 * -ESTALE when its line is older than GP_RRD_STALE_S at now; -GP_EBADCONF for a bad line.
 */
int gp_rrd_state(const char *buf, size_t len, const char *id, long now, char *state, size_t size);

#endif
