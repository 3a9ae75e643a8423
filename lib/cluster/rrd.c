/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The guests' state that Proxmox itself shares: /etc/pve/.rrd (rrd.h). */
#include <ctype.h>
#include <string.h>

#include "base/util.h"
#include "cluster/rrd.h"

/* --- Proxmox's guest status: /etc/pve/.rrd ----------------------------------------------- */

/*
 * pmxcfs serves /etc/pve/.rrd from its status hash (pve-cluster src/pmxcfs/pmxcfs.c,
 * create_dot_rrd_cb; src/pmxcfs/status.c, cfs_rrd_dump): one "KEY:DATA\n" line per entry
 * any node broadcast in the last 5 minutes (rrd_entry_is_old), then a NUL. pvestatd
 * broadcasts each container every 10 s (pve-manager PVE/Service/pvestatd.pm,
 * update_lxc_status, through PVE::Cluster::broadcast_rrd) with KEY "pve-vm-9.0/<vmid>"
 * (PVE 9) or "pve2.3-vm/<vmid>" (before), and DATA "uptime:name:status:template:ctime:..."
 * (generate_rrd_string: ':'-joined, "U" for none); status is PVE::LXC::vmstatus's
 * ("running", "stopped"), ctime pvestatd's time(). Proxmox's own reader prefers the 9.0 key
 * (pve-manager PVE/API2Tools.pm, get_rrd_key; extract_vm_stats reads status as field 2).
 */
static bool rrd_line(const char *buf, size_t len, const char *key, const char **data, size_t *dlen)
{
	const char *pos = buf, *end = buf + strnlen(buf, len), *line;
	size_t klen = strlen(key), n;

	while (gp_line_next(&pos, end, &line, &n)) {
		if (n > klen && memcmp(line, key, klen) == 0 && line[klen] == ':') {
			*data = line + klen + 1;
			*dlen = n - klen - 1;
			return true;
		}
	}
	return false;
}

static int rrd_fields(const char *data, size_t len, long now, char *state, size_t size)
{
	char copy[512], *field[6], *save = NULL;
	size_t n = 0;
	unsigned long long ctime;
	char *end;

	if (len >= sizeof(copy))
		len = sizeof(copy) - 1;
	memcpy(copy, data, len);
	copy[len] = '\0';
	for (char *f = strtok_r(copy, ":", &save); f && n < GP_ARRAY_SIZE(field);
	     f = strtok_r(NULL, ":", &save))
		field[n++] = f;
	if (n < 5 || !*field[2] || strlen(field[2]) >= size || strlen(field[2]) > 15 ||
	    field[2][strspn(field[2], "abcdefghijklmnopqrstuvwxyz")] != '\0')
		return -GP_EBADCONF;
	errno = 0;
	ctime = strtoull(field[4], &end, 10);
	if (errno || *end || end == field[4])
		return -GP_EBADCONF;
	for (size_t i = 0; field[2][i]; i++)
		state[i] = (char)toupper((unsigned char)field[2][i]);
	state[strlen(field[2])] = '\0';
	return now - (long)ctime > GP_RRD_STALE_S ? -ESTALE : 0;
}

int gp_rrd_state(const char *buf, size_t len, const char *id, long now, char *state, size_t size)
{
	static const char *const prefixes[] = { "pve-vm-9.0/", "pve2.3-vm/" };
	const char *data;
	size_t dlen;

	state[0] = '\0';
	for (size_t i = 0; i < GP_ARRAY_SIZE(prefixes); i++) {
		char key[64];

		snprintf(key, sizeof(key), "%s%s", prefixes[i], id);
		if (rrd_line(buf, len, key, &data, &dlen))
			return rrd_fields(data, dlen, now, state, size);
	}
	return -ENOENT;
}
