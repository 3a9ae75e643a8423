/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether a process runs, and since when: the start time that tells a pid's owners apart; and
 * the mount a descriptor is on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/proc.h"
#include "base/util.h"

int gp_parse_proc_stat(const char *buf, char *state, unsigned long long *start)
{
	const char *p = strrchr(buf, ')');
	char *end;

	/* After "pid (comm)" come state (field 3) and 18 more before starttime (field 22). */
	if (!p || sscanf(p + 1, " %c", state) != 1)
		return -GP_EBADCONF;
	p += 2;
	for (int field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -GP_EBADCONF;
		p++;
	}
	if (*p < '0' || *p > '9')
		return -GP_EBADCONF;
	errno = 0;
	*start = strtoull(p, &end, 10);
	return errno || (*end != ' ' && *end != '\n' && *end != '\0') ? -GP_EBADCONF : 0;
}

bool gp_proc_gone(int err)
{
	return err == -ENOENT || err == -ESRCH;
}

int gp_proc_start_time(pid_t pid, unsigned long long *start)
{
	_cleanup_free_ char *buf = NULL;
	char path[64], state;
	int r;

	/*
	 * The real host's /proc, even under --root: the owner is LXC's monitor, a process of
	 * the container runtime, which a --root never holds (DESIGN: the runtime stays real).
	 * Only "no such process" is one: an fd limit or short memory says nothing of it.
	 */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	r = gp_read_file(path, 4096, &buf, NULL);
	if (r < 0)
		return gp_proc_gone(r) ? -ENOENT : r;
	if (gp_parse_proc_stat(buf, &state, start) < 0)
		return -GP_EBADCONF;
	return state == 'Z' || state == 'X' ? -ENOENT : 0;
}

int gp_proc_mount_id(int fd)
{
	_cleanup_free_ char *buf = NULL;
	char path[64];
	const char *p;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (gp_read_file(path, 4096, &buf, NULL) < 0 || !(p = strstr(buf, "mnt_id:")))
		return -1;
	return atoi(p + strlen("mnt_id:"));
}

#define LINE_MAX_BYTES (64u << 10)

int gp_mountinfo_fstype(FILE *f, int id, char *fstype, size_t size)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	char type[64];
	const char *sep;

	while ((n = getline(&line, &cap, f)) > 0) {
		if ((size_t)n > LINE_MAX_BYTES || atoi(line) != id)
			continue;
		if (!(sep = strstr(line, " - ")) || sscanf(sep + 3, "%63s", type) != 1)
			return -ENOENT;
		snprintf(fstype, size, "%s", type);
		return 0;
	}
	return -ENOENT;
}
