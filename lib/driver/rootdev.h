/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/driver/rootdev.c. */
#ifndef GP_ROOTDEV_H
#define GP_ROOTDEV_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Before a block device or image file becomes a container's rootfs: libblkid's safe
 * probe must find nothing on it. A filesystem or partition table found is refused
 * unless force (its type named in what, e.g. "ext4 filesystem"); an ambiguous probe
 * (several signatures) is always refused. Returns 0 when it may be formatted, -EEXIST
 * (found), -EUCLEAN (ambiguous) or -errno.
 */
int gp_rootdev_check(const char *path, bool force, char *what, size_t size);

#endif
