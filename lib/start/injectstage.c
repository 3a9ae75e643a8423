/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The host's side of an injection (inject.h): before LXC makes the container's namespaces,
 * pre-start stages each directory that holds a file to inject, bound read-only, nosuid and
 * nodev, in a tmpfs of ours at <root>/run/gpu-provision/<name>.driver. The container's
 * mount namespace starts as a copy of the host's; where it belongs to another user
 * namespace (an unprivileged container) the kernel locks those flags in the copy, and a
 * bind taken from a locked mount keeps them. The mount hook binds each file from there, so
 * the container's root cannot remount one read-write. Post-stop takes the tree away.
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/util.h"
#include "start/inject.h"
#include "start/mount.h"

int gp_inject_unstage(const char *root, const char *name)
{
	_cleanup_free_ char *path = gp_inject_stage_path(root, name);

	if (!path)
		return -ENOMEM;
	/* Detached with everything below it; not a mount (EINVAL) or none (ENOENT) is done. */
	if (umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 && errno != EINVAL && errno != ENOENT)
		return gp_error_errno(-errno, "Failed to unmount \"%s\"", path);
	if (rmdir(path) < 0 && errno != ENOENT)
		return gp_error_errno(-errno, "Failed to remove \"%s\"", path);
	return 0;
}

/* dir ("usr/lib/x86_64-linux-gnu") below fd, each part a directory made where missing. */
static int make_dirs(int fd, const char *dir)
{
	char part[PATH_MAX], *p, *slash;
	int cur = fcntl(fd, F_DUPFD_CLOEXEC, 3), next;

	snprintf(part, sizeof(part), "%s", dir);
	for (p = part; cur >= 0 && p && *p; p = slash ? slash + 1 : NULL) {
		if ((slash = strchr(p, '/')))
			*slash = '\0';
		if (mkdirat(cur, p, 0755) < 0 && errno != EEXIST)
			next = -1;
		else
			next = openat(cur, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(cur);
		cur = next;
	}
	return cur < 0 ? -errno : cur;
}

/* The host's directory dir (a path inside root) bound read-only at its own path in mnt. */
static int stage_dir(int mnt, const char *root, const char *dir)
{
	_cleanup_free_ char *path = gp_path(root, dir);
	_cleanup_close_ int src = -1, tgt = -1;
	int r;

	if (!path)
		return -ENOMEM;
	src = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (src < 0)
		return gp_error_errno(-errno, "Failed to open the host's \"%s\"", path);
	tgt = make_dirs(mnt, dir + 1);
	if (tgt < 0)
		return gp_error_errno(tgt, "Failed to make \"%s\" to stage the driver in", dir);
	r = gp_mount_bind_fd(src, tgt, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	return r < 0 ? gp_error_errno(r, "Failed to stage the host's \"%s\"", path) : 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directories of inj's files, as paths inside root, sorted (a parent first), each once. */
static size_t directories(const char *root, const struct gp_inject *inj, char **dirs)
{
	size_t top = gp_root_is_host(root) ? 0 : strlen(root), n = 0, k = 0;

	for (size_t i = 0; i < inj->n; i++) {
		const char *rel = inj->v[i].source + top, *slash = strrchr(rel, '/');

		if (!slash || slash == rel)
			continue;
		if (!(dirs[n] = strndup(rel, (size_t)(slash - rel)))) {
			while (n)
				free(dirs[--n]);
			return (size_t)-1;
		}
		n++;
	}
	qsort(dirs, n, sizeof(*dirs), by_name);
	for (size_t i = 0; i < n; i++) {
		if (k && strcmp(dirs[k - 1], dirs[i]) == 0)
			free(dirs[i]);
		else
			dirs[k++] = dirs[i];
	}
	return k;
}

/* The tmpfs on path, private (nothing made in it reaches other namespaces): its fd. */
static int stage_tmpfs(const char *path)
{
	struct mount_attr priv = { .propagation = MS_PRIVATE };
	_cleanup_close_ int dir = -1;
	int mnt;

	if (gp_mkdir_parents(path) < 0 || (mkdir(path, 0755) < 0 && errno != EEXIST) ||
	    (dir = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return gp_error_errno(-errno, "Failed to make \"%s\"", path);
	mnt = gp_mount_tmpfs(dir);
	if (mnt < 0)
		return gp_error_errno(mnt, "Failed to mount a tmpfs on \"%s\"", path);
	if (syscall(SYS_mount_setattr, mnt, "", AT_EMPTY_PATH, &priv, sizeof(priv)) < 0) {
		close(mnt);
		return gp_error_errno(-errno, "Failed to make \"%s\" private", path);
	}
	return mnt;
}

int gp_inject_stage(const char *root, const char *name, const struct gp_inject *inj)
{
	_cleanup_free_ char *path = gp_inject_stage_path(root, name);
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	_cleanup_close_ int mnt = -1;
	char *dirs[GP_INJECT_MAX];
	size_t n;
	int r = gp_inject_unstage(root, name);

	if (r < 0 || !path)
		return r < 0 ? r : -ENOMEM;
	n = directories(root, inj, dirs);
	if (n == (size_t)-1)
		return -ENOMEM;
	mnt = stage_tmpfs(path);
	r = mnt < 0 ? mnt : 0;
	for (size_t i = 0; i < n; i++) {
		if (r == 0)
			r = stage_dir(mnt, root, dirs[i]);
		free(dirs[i]);
	}
	if (r == 0 && syscall(SYS_mount_setattr, mnt, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
		r = gp_error_errno(-errno, "Failed to make \"%s\" read-only", path);
	if (r < 0)
		gp_inject_unstage(root, name);
	return r;
}
