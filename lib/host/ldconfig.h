/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/host/ldconfig.c. */
#ifndef GP_LDCONFIG_H
#define GP_LDCONFIG_H

/* The host's ldconfig as pre-start checked it: the file, and which file it was. */
struct gp_ldconfig {
	char path[256];
	unsigned long long dev, ino;
};

/*
 * pre-start, on the host: glibc's ldconfig (Ubuntu's /sbin/ldconfig is a script in front
 * of /sbin/ldconfig.real), which must be root's all the way up and a static program.
 * 0, or -errno said with what to do.
 */
int gp_ldconfig_find(struct gp_ldconfig *l);

/*
 * The mount hook: runs that same file (refused if the path now names another) as
 * "ldconfig -X dir" in the rootfs at rootfd (mounted at rootfs, for messages), confined
 * as this file's head says, and waits for it at most 10 seconds. 0, or -errno said.
 */
int gp_ldconfig_run(const struct gp_ldconfig *l, int rootfd, const char *rootfs, const char *dir);

#endif
