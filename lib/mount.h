/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/mount.c. */
#ifndef GP_MOUNT_H
#define GP_MOUNT_H

#include "plan.h"

/*
 * Binds every planned host node (<root>/dev/NAME, checked to be the planned
 * character device) onto <rootfs>/dev/NAME, nosuid and noexec. Targets are resolved
 * by fd inside the rootfs with no symlink followed and no mount point crossed below
 * /dev; a target that exists must be a plain file or character device. On any
 * failure every mount made so far is undone and the files it created removed.
 * Returns 0, or -errno after saying what failed and what to do.
 */
int gp_mount_plan(const char *rootfs, const char *root, const struct gp_plan *plan);

#endif
