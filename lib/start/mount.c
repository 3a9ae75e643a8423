/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Binding host nodes into a container's /dev. The rootfs belongs to whoever runs the
 * container, so every target is reached by fd (openat2, no symlinks, no mount point
 * crossed) and every mount lands on an fd, never on a path that could be swapped.
 */
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "base/paths.h"
#include "base/util.h"
#include "start/mount.h"

struct done {
	int dirfd;
	bool own_dirfd; /* else it is /dev's, which gp_mount_plan closes */
	char base[64];
	bool created;
	bool mounted;
};

/*
 * The host's node n as a detached bind of it (open_tree), from the host's /dev: the object
 * checked is the one that will be mounted.
 */
static int clone_source(int hostdev, const char *root, const struct gp_devnode *n)
{
	_cleanup_close_ int tree = -1;
	struct stat st;

	tree = (int)syscall(SYS_open_tree, hostdev, n->name,
			    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW);
	if (tree < 0)
		return gp_error_errno(-errno, "Failed to open host node \"%s/dev/%s\"",
				      root ? root : "", n->name);
	if (fstat(tree, &st) < 0)
		return -errno;
	if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(n->major, n->minor)) {
		gp_error("host node \"%s/dev/%s\" is not c %u:%u as planned; refusing to bind it "
			 "(restart the container so that pre-start makes it again)",
			 root ? root : "", n->name, n->major, n->minor);
		return -ESTALE;
	}
	return steal_fd(tree);
}

static int open_host_dev(const char *root)
{
	_cleanup_free_ char *path = gp_path(root, "/dev");
	int fd;

	if (!path)
		return -ENOMEM;
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? gp_error_errno(-errno, "Failed to open \"%s\"", path) : fd;
}

/* Opens <rootfs>/dev by fd; it may be the autodev tmpfs, so one mount crossing is allowed. */
static int open_dev(const char *rootfs)
{
	_cleanup_close_ int rootfd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int fd;

	if (rootfd < 0)
		return gp_error_errno(-errno, "Failed to open rootfs \"%s\"", rootfs);
	fd = gp_openat2(rootfd, "dev", O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
			RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd < 0)
		gp_error("\"%s/dev\" is not a plain directory inside the rootfs (%s): refusing to "
			 "bind GPU nodes through it",
			 rootfs, gp_strerror(errno));
	return fd < 0 ? -errno : fd;
}

/*
 * The directory a node goes in: /dev itself (devfd, not a new descriptor: *own is false) or
 * /dev/nvidia-caps, made if missing.
 */
static int open_parent(int devfd, const char *name, const char **base, bool *own)
{
	const char *slash = strchr(name, '/');
	char dir[32];
	int fd;

	*own = !!slash;
	if (!slash) {
		*base = name;
		return devfd;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - name), name);
	*base = slash + 1;
	if (mkdirat(devfd, dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = gp_openat2(devfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, GP_RESOLVE_STRICT);
	if (fd < 0)
		gp_error("/dev/%s in the container is not a plain directory (%s): refusing", dir,
			 gp_strerror(errno));
	return fd < 0 ? -errno : fd;
}

static int open_target(int dirfd, const char *base, const char *name, bool *created)
{
	struct stat st;
	int fd;

	fd = gp_openat2(dirfd, base, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0000,
			GP_RESOLVE_STRICT);
	if (fd >= 0) {
		*created = true;
		return fd;
	}
	*created = false;
	if (errno != EEXIST)
		goto refuse;
	fd = gp_openat2(dirfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0, GP_RESOLVE_STRICT);
	if (fd < 0)
		goto refuse;
	if (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode))) {
		close(fd);
		errno = EEXIST;
		goto refuse;
	}
	return fd;
refuse:
	gp_error("/dev/%s in the container cannot be a mount target (%s): it must be absent, a "
		 "plain file or a device node, not a link, directory, socket, FIFO or mount point "
		 "(a bind of the container's config, or another GPU hook? gpu-provision check "
		 "names such lines)",
		 name, gp_strerror(errno));
	return -errno;
}

/* Attaches the detached mount tree onto tgtfd with attrs set first. 0 or -errno. */
static int attach_tree(int tree, int tgtfd, uint64_t attrs)
{
	struct mount_attr attr = { .attr_set = attrs };

	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
		return -errno;
	if (syscall(SYS_move_mount, tree, "", tgtfd, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return -errno;
	return 0;
}

int gp_mount_bind_fd(int srcfd, int tgtfd, uint64_t attrs)
{
	_cleanup_close_ int tree = -1;

	tree = (int)syscall(SYS_open_tree, srcfd, "",
			    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	return tree < 0 ? -errno : attach_tree(tree, tgtfd, attrs);
}

int gp_mount_undo_at(int dirfd, const char *name)
{
	_cleanup_close_ int fd =
	    gp_openat2(dirfd, name, O_PATH | O_CLOEXEC, 0, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (fd < 0 || umount2(proc, MNT_DETACH) < 0)
		return -errno;
	return 0;
}

static void release(struct done *d)
{
	if (d->own_dirfd)
		gp_closep(&d->dirfd);
	d->dirfd = -1;
}

static void undo(struct done *d)
{
	if (d->mounted && gp_mount_undo_at(d->dirfd, d->base) < 0)
		gp_warn("Failed to undo the bind of /dev/%s: %s", d->base, gp_strerror(errno));
	if (d->created)
		unlinkat(d->dirfd, d->base, 0);
	release(d);
}

static int bind_node(int devfd, int hostdev, const char *root, const struct gp_devnode *n,
		     struct done *d)
{
	_cleanup_close_ int tree = -1, tgtfd = -1;
	const char *base;
	int r;

	tree = clone_source(hostdev, root, n);
	if (tree < 0)
		return tree;
	d->dirfd = open_parent(devfd, n->name, &base, &d->own_dirfd);
	if (d->dirfd < 0)
		return d->dirfd;
	snprintf(d->base, sizeof(d->base), "%s", base);
	tgtfd = open_target(d->dirfd, base, n->name, &d->created);
	if (tgtfd < 0)
		return tgtfd;
	r = attach_tree(tree, tgtfd, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
	if (r < 0)
		return gp_error_errno(r, "Failed to bind /dev/%s into the container", n->name);
	d->mounted = true;
	return 0;
}

/* The links of /dev/char made so far, to take back on failure. */
struct char_links {
	int dirfd;
	bool made_dir; /* /dev/char itself */
	bool made[GP_PLAN_MAX_NODES];
};

static void char_name(const struct gp_devnode *n, char *buf, size_t size)
{
	snprintf(buf, size, "%u:%u", n->major, n->minor);
}

/*
 * /dev/char/MAJOR:MINOR -> ../NAME for each planned node, as udev makes them on a host:
 * runc and systemd resolve device rules through them (without, NVML in a nested Docker
 * container fails after a systemctl daemon-reload). A /dev/char that is not a plain
 * directory, or a link of that name the container made, is left as it is and said.
 */
static void link_char(int devfd, const struct gp_plan *plan, struct char_links *l)
{
	char name[32], target[96], have[96];

	l->dirfd = -1;
	l->made_dir = mkdirat(devfd, "char", 0755) == 0;
	if (!l->made_dir && errno != EEXIST)
		return;
	l->dirfd =
	    gp_openat2(devfd, "char", O_PATH | O_DIRECTORY | O_CLOEXEC, 0, GP_RESOLVE_STRICT);
	if (l->dirfd < 0) {
		gp_warn("/dev/char in the container is not a plain directory: no MAJOR:MINOR links "
			"are made for the GPU nodes");
		return;
	}
	for (size_t i = 0; i < plan->n; i++) {
		ssize_t n;

		char_name(&plan->nodes[i], name, sizeof(name));
		snprintf(target, sizeof(target), "../%s", plan->nodes[i].name);
		l->made[i] = symlinkat(target, l->dirfd, name) == 0;
		if (l->made[i] || errno != EEXIST)
			continue;
		n = readlinkat(l->dirfd, name, have, sizeof(have) - 1);
		if (n < 0 || (have[n] = '\0', strcmp(have, target) != 0))
			gp_warn("/dev/char/%s in the container is not a link to %s; it is kept",
				name, target);
	}
}

static void unlink_char(int devfd, const struct gp_plan *plan, struct char_links *l, bool undo)
{
	char name[32];

	for (size_t i = 0; i < plan->n && l->dirfd >= 0 && undo; i++) {
		char_name(&plan->nodes[i], name, sizeof(name));
		if (l->made[i])
			unlinkat(l->dirfd, name, 0);
	}
	if (undo && l->made_dir)
		unlinkat(devfd, "char", AT_REMOVEDIR);
	gp_closep(&l->dirfd);
}

int gp_mount_plan(const char *rootfs, const char *root, const struct gp_plan *plan,
		  int (*then)(void *arg), void *arg)
{
	struct done done[GP_PLAN_MAX_NODES];
	_cleanup_close_ int devfd = open_dev(rootfs), hostdev = -1;
	struct char_links links = { .dirfd = -1 };
	size_t i;
	int r = 0;

	if (devfd < 0)
		return devfd;
	hostdev = open_host_dev(root);
	if (hostdev < 0)
		return hostdev;
	for (i = 0; i < plan->n && r == 0; i++) {
		done[i] = (struct done){ .dirfd = -1 };
		r = bind_node(devfd, hostdev, root, &plan->nodes[i], &done[i]);
	}
	if (r == 0)
		link_char(devfd, plan, &links);
	if (r == 0 && then)
		r = then(arg);
	unlink_char(devfd, plan, &links, r < 0);
	/* The i nodes tried, the one that failed included: it may have made its file. */
	for (size_t j = i; j-- > 0;) {
		if (r < 0)
			undo(&done[j]);
		release(&done[j]);
	}
	return r;
}

int gp_mount_tmpfs(int dirfd)
{
	_cleanup_close_ int fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	int mnt;

	if (fs < 0 || syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0755", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "nr_inodes", "1024", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -errno;
	mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (mnt < 0)
		return -errno;
	if (syscall(SYS_move_mount, mnt, "", dirfd, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) {
		int r = -errno;

		close(mnt);
		return r;
	}
	return mnt;
}
