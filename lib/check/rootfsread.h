/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/check/rootfsread.c. */
#ifndef GP_ROOTFSREAD_H
#define GP_ROOTFSREAD_H

#include <stdbool.h>
#include <sys/types.h>

#include "check/toolkit.h"
#include "host/userspace.h"

/*
 * What check reads of a container's rootfs without running anything in it: the driver
 * libraries its loader cache names, whether its C library is musl, and what NVIDIA's
 * container toolkit and Docker left there (toolkit.h). A running
 * container's rootfs (/proc/PID/root) holds the mounts its root made; a FUSE server of
 * its own may never answer, and a process that waits on it cannot even be killed. So a
 * rootfs whose own mount is FUSE is not read at all (its init may chroot into one), the
 * read resolves no path across a mount of the container's (lib/host/userspace.c), and a running
 * container's is read in a child (lib/base/child.c) that the caller abandons at its deadline,
 * holding no power of root's but reading.
 */
#define GP_ROOTFS_READ_TIMEOUT_MS 5000

struct gp_rootfs_read {
	/*
	 * 0; -ETIMEDOUT when the container's rootfs did not answer by the deadline; another
	 * -errno when a file could not be read (why says which and why).
	 */
	int status;
	char why[768];
	pid_t stuck; /* the reader left waiting in the kernel at the deadline, else 0 */
	bool musl;
	struct gp_userspace u;
	struct gp_toolkit toolkit; /* read whatever status says of the loader cache */
};

/*
 * Reads rootfs (a directory: a running container's "/proc/PID/root", in a child under
 * timeout_ms, or a stopped container's), version being the kernel module's. A reader left waiting
 * in the kernel at the deadline is noted in record (a file; NULL: none), and while it waits no
 * other is sent (status -EBUSY). Returns what was read, to be released with gp_rootfs_read_free
 * (status says whether it is whole), or NULL for no memory.
 */
struct gp_rootfs_read *gp_rootfs_read(const char *rootfs, const char *version, int timeout_ms,
				      const char *record);
void gp_rootfs_read_free(struct gp_rootfs_read *r);

#endif
