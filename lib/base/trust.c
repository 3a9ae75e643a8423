/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Programs that run as root at every start: root's alone, up to / (trust.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/trust.h"
#include "base/util.h"

/* Refuses dir (the program or one above it) when it is not root's or others can write it. */
static int check_owner(const char *program, const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		return gp_error_errno(-errno, "Failed to check \"%s\"", dir);
	if (st.st_uid == 0 && !(st.st_mode & 022))
		return 0;
	gp_error("\"%s\" would run as root at every container start, but \"%s\" is owned by "
		 "uid %u with mode %04o, so others could change it: run \"make install\" and use "
		 "the installed gpu-provision, or move the build tree where every directory is "
		 "root's and not group- or world-writable",
		 program, dir, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
	return -GP_EBADCONF;
}

int gp_trust_program(const char *path, char *real, size_t size)
{
	_cleanup_free_ char *resolved = realpath(path, NULL);
	char *slash;
	int r;

	if (!resolved)
		return gp_error_errno(-errno, "Failed to resolve \"%s\"", path);
	if (snprintf(real, size, "%s", resolved) >= (int)size)
		return -ENAMETOOLONG;
	for (;;) {
		r = check_owner(path, resolved);
		if (r < 0 || strcmp(resolved, "/") == 0)
			return r;
		slash = strrchr(resolved, '/');
		slash[slash == resolved] = '\0';
	}
}

static const char *kind_of(mode_t mode)
{
	return S_ISLNK(mode)   ? "a link"
	       : S_ISDIR(mode) ? "a directory"
	       : S_ISREG(mode) ? "a file"
			       : "a special file";
}

/* Refuses the part fd (name, of the file path) unless owner's alone: -GP_EBADCONF, said. */
static int check_part(int fd, const char *path, const char *name, uid_t owner, bool last)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return gp_error_errno(-errno, "Failed to check \"%s\"", name);
	if (st.st_uid == owner && !(st.st_mode & 022) &&
	    (last ? S_ISREG(st.st_mode) : S_ISDIR(st.st_mode)))
		return 0;
	gp_error("the host's \"%s\" would be given into containers, but \"%s\" is %s owned by "
		 "uid %u with mode %04o, so others could change what every container runs: make "
		 "it root's and not group- or world-writable (chown root, chmod go-w), or "
		 "reinstall the driver",
		 path, name, kind_of(st.st_mode), (unsigned int)st.st_uid,
		 (unsigned int)(st.st_mode & 07777));
	return -GP_EBADCONF;
}

int gp_trust_open_file(const char *root, const char *path, uid_t owner)
{
	size_t n = strcmp(root, "/") == 0 ? 0 : strlen(root);
	char name[PATH_MAX], *p, *slash;
	int fd, next, r;

	if (strncmp(path, root, n) != 0 || path[n] != '/' ||
	    snprintf(name, sizeof(name), "%s", path) >= (int)sizeof(name))
		return gp_error_errno(-GP_EBADCONF, "\"%s\" is not below \"%s\"", path, root);
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return gp_error_errno(-errno, "Failed to open \"%s\"", root);
	r = check_part(fd, path, root, owner, false);
	/* name is path cut after the part at hand: each part is opened by its last name. */
	for (p = name + n + 1; r == 0 && p; p = slash ? slash + 1 : NULL) {
		if ((slash = strchr(p, '/')))
			*slash = '\0';
		next = openat(fd, p, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		r = next < 0 ? gp_error_errno(-errno, "Failed to open \"%s\"", name) : 0;
		close(fd);
		fd = next;
		if (r == 0)
			r = check_part(fd, path, name, owner, !slash);
		if (slash)
			*slash = '/';
	}
	if (r < 0 && fd >= 0)
		close(fd);
	return r < 0 ? r : fd;
}

/* The inside uid of the uid_map line that maps outside uid 0, if this one does. */
static bool maps_root(const char *line, uid_t *inside)
{
	unsigned long in, out, count;

	if (sscanf(line, "%lu %lu %lu", &in, &out, &count) != 3 || out != 0 || count == 0)
		return false;
	*inside = (uid_t)in;
	return true;
}

uid_t gp_host_root_uid(void)
{
	_cleanup_free_ char *map = NULL, *overflow = NULL;
	uid_t uid = 65534;

	/* The map first: on the host it maps root, and the overflow uid is not read. */
	if (gp_read_file("/proc/self/uid_map", 4096, &map, NULL) == 0)
		for (char *line = map; line && *line;
		     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
			if (maps_root(line, &uid))
				return uid;
	if (gp_read_file("/proc/sys/kernel/overflowuid", 64, &overflow, NULL) == 0)
		uid = (uid_t)strtoul(overflow, NULL, 10);
	return uid;
}
