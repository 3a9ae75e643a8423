/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host device nodes with today's majors, as nvidia-modprobe makes them. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/paths.h"
#include "base/util.h"
#include "start/nodes.h"

/*
 * Made under a temporary name and renamed into place: a concurrent start sees the old
 * node or the finished new one, never a missing or half-set one.
 */
static int make_node(const char *path, const struct gp_devnode *n, bool dry_run)
{
	_cleanup_free_ char *tmp = NULL;
	int r;

	if (dry_run) {
		printf("would run: mknod -m %04o %s c %u %u && chown %u:%u %s\n", n->mode, path,
		       n->major, n->minor, n->uid, n->gid, path);
		return 0;
	}
	if (asprintf(&tmp, "%s.gp-new.%d", path, (int)getpid()) < 0)
		return -ENOMEM;
	r = gp_mkdir_parents(path);
	unlink(tmp);
	if (r == 0 && mknod(tmp, S_IFCHR | 0600, makedev(n->major, n->minor)) < 0)
		r = -errno;
	if (r == 0 && fchownat(AT_FDCWD, tmp, n->uid, n->gid, AT_SYMLINK_NOFOLLOW) < 0)
		r = -errno;
	if (r == 0 && chmod(tmp, n->mode) < 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		gp_error("Failed to create \"%s\" (c %u:%u): %s", path, n->major, n->minor,
			 gp_strerror(-r));
	}
	return r;
}

static int ensure_one(const char *path, const struct gp_devnode *n, bool modify, bool dry_run)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return gp_error_errno(-errno, "Failed to inspect \"%s\"", path);
		if (!modify) {
			gp_error(
			    "\"%s\" is missing and the driver's ModifyDeviceFiles is 0: create "
			    "it with: mknod -m %04o %s c %u %u",
			    path, n->mode, path, n->major, n->minor);
			return -ENOENT;
		}
		if (!dry_run)
			gp_info("creating missing \"%s\" (c %u:%u)", path, n->major, n->minor);
		return make_node(path, n, dry_run);
	}
	if (!S_ISCHR(st.st_mode)) {
		gp_error("\"%s\" exists but is not a character device: remove it so that it can be "
			 "made as c %u:%u",
			 path, n->major, n->minor);
		return -EEXIST;
	}
	if (st.st_rdev == makedev(n->major, n->minor))
		return 0;
	if (!modify) {
		gp_error(
		    "\"%s\" is c %u:%u but the driver says c %u:%u, and ModifyDeviceFiles is 0",
		    path, major(st.st_rdev), minor(st.st_rdev), n->major, n->minor);
		return -ESTALE;
	}
	gp_info("replacing stale \"%s\" (c %u:%u, now c %u:%u)", path, major(st.st_rdev),
		minor(st.st_rdev), n->major, n->minor);
	return make_node(path, n, dry_run);
}

int gp_nodes_ensure(const char *root, const struct gp_plan *plan, bool modify, bool dry_run)
{
	for (size_t i = 0; i < plan->n; i++) {
		_cleanup_free_ char *rel = NULL, *path = NULL;
		int r;

		if (asprintf(&rel, "/dev/%s", plan->nodes[i].name) < 0)
			return -ENOMEM;
		path = gp_path(root, rel);
		if (!path)
			return -ENOMEM;
		r = ensure_one(path, &plan->nodes[i], modify, dry_run);
		if (r < 0)
			return r;
	}
	return 0;
}
