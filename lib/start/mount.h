/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/start/mount.c. */
#ifndef GP_MOUNT_H
#define GP_MOUNT_H

#include <stdint.h>

#include "plan/plan.h"

/*
 * Binds every planned host node (<root>/dev/NAME, checked to be the planned
 * character device) onto <rootfs>/dev/NAME, nosuid and noexec. Targets are resolved
 * by fd inside the rootfs with no symlink followed and no mount point crossed below
 * /dev; a target that exists must be a plain file or character device. Each gets its
 * /dev/char/MAJOR:MINOR link, where the container has none of that name. Then, when
 * given, then(arg) runs, the rest of the start's work. On any failure (then's too)
 * every mount made so far is undone and the files it created removed. Returns 0, or
 * -errno after saying what failed and what to do.
 */
int gp_mount_plan(const char *rootfs, const char *root, const struct gp_plan *plan,
		  int (*then)(void *arg), void *arg);

/*
 * Binds what srcfd is onto the file or directory tgtfd is, with the mount attributes
 * attrs (MOUNT_ATTR_*): a clone of the source's mount, set before it is attached.
 * 0 or -errno.
 */
int gp_mount_bind_fd(int srcfd, int tgtfd, uint64_t attrs);

/*
 * Mounts a new tmpfs (mode 0755, at most 1024 inodes), nosuid and nodev, on the directory
 * dirfd is: the descriptor of its root, or -errno.
 */
int gp_mount_tmpfs(int dirfd);

/* Detaches the mount on name in dirfd (no symlink followed): 0 or -errno. */
int gp_mount_undo_at(int dirfd, const char *name);

#endif
