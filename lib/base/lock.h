/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/base/lock.c. */
#ifndef GP_LOCK_H
#define GP_LOCK_H

/*
 * The locks the owners of a container's config take, taken the same way and with a
 * deadline (lib/base/lock.c owns all of this).
 */

/* flock(2), as Proxmox's lock_file; or an OFD write lock (fcntl), as liblxc's lxclock. */
enum gp_lock_kind { GP_LOCK_FLOCK, GP_LOCK_OFD };

/* Proxmox waits this long for a container's config lock (PVE::AbstractConfig). */
#define GP_LOCK_TIMEOUT_MS 10000

/*
 * Waits at most timeout_ms for an exclusive lock of kind on fd. 0, -ETIMEDOUT when
 * someone else held it all that time, or another -errno.
 */
int gp_lock_fd(int fd, enum gp_lock_kind kind, unsigned int timeout_ms);

/*
 * The lock file of a container's config: Proxmox's "<root>/run/lock/lxc/pve-config-<id>.lock",
 * or liblxc's "/run/lxc/lock/<lxcpath>/.<name>" (the real one: LXC is never under --root;
 * for another user than root's, in the run directory liblxc takes for them). Malloc'd, NULL
 * on ENOMEM or where liblxc would have no run directory.
 */
char *gp_lock_pve_path(const char *root, const char *vmid);
char *gp_lock_lxc_path(const char *lxcpath, const char *name);

/*
 * Opens path (making its directory) and locks it as above within timeout_ms; what is
 * locked is said in messages ("container 101's config"). Returns the fd, whose close
 * releases the lock, or -errno, explained: -EBUSY when it stayed locked.
 */
int gp_lock_take(const char *path, enum gp_lock_kind kind, unsigned int timeout_ms,
		 const char *what);

#endif
