/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Programs that run as root at every start: root's alone, up to / (trust.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trust.h"
#include "util.h"

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
	return -EINVAL;
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
