/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cluster filesystem's quorum as pmxcfs shows it (quorum.h). It reads by itself, with
 * no helper of util.c: util.c's config edit says what a refused write means through it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/quorum.h"

/* .members lists every node, some 60 bytes each: what it says of quorum comes first. */
#define MEMBERS_HEAD 4096

/* The first bytes of <root>/etc/pve/.members into buf, NUL-ended; -errno. */
static int read_head(const char *root, char *buf, size_t size)
{
	char path[4096];
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s%s", strcmp(root, "/") == 0 ? "" : root,
		     GP_PVE_MEMBERS) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return 0;
}

int gp_pve_quorate(const char *root)
{
	char buf[MEMBERS_HEAD];
	const char *q;
	int r = read_head(root && *root ? root : "/", buf, sizeof(buf));

	if (r < 0)
		return r;
	q = strstr(buf, "\"quorate\":");
	if (!q)
		return -GP_EBADCONF;
	q += strlen("\"quorate\":");
	q += strspn(q, " \t");
	return *q == '1' ? 1 : *q == '0' ? 0 : -GP_EBADCONF;
}

const char *gp_pve_write_refused(const char *path, int r)
{
	char root[4096];
	const char *at, *next;

	at = strstr(path, "/etc/pve/");
	if (!at || (r != -EACCES && r != -EROFS && r != -EEXIST))
		return "";
	/* pmxcfs keeps one config of a VMID in the cluster: a rename onto another is EEXIST. */
	if (r == -EEXIST)
		return "the cluster filesystem holds this container's config on another node now "
		       "(pct migrate moved it?): run it again on that node";
	/* The last one: a --root may itself lie under a path with etc/pve in it. */
	while ((next = strstr(at + 1, "/etc/pve/")))
		at = next;
	if ((size_t)(at - path) >= sizeof(root))
		return "";
	snprintf(root, sizeof(root), "%.*s", (int)(at - path), path);
	if (gp_pve_quorate(root) == 1)
		return "";
	return "no quorum: the cluster filesystem takes writes only with quorum (pvecm "
	       "status); run it again once the node is quorate";
}
