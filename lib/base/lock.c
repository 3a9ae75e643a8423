/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The config owners' locks. Proxmox (pve-common PVE::Tools::lock_file_full, called by
 * PVE::AbstractConfig::lock_config for pct and the API) opens
 * /run/lock/lxc/pve-config-<vmid>.lock for append and takes an exclusive flock with a
 * 10 s timeout. liblxc 5.0.2 (src/lxc/lxclock.c: lxclock_name, lxc_newlock, lxclock;
 * src/lxc/lxccontainer.c: lxc_container_new makes c->slock from c->config_path and the
 * name, container_disk_lock takes it around load_config, save_config and destroy) uses
 * "<rundir>/lxc/lock/<lxcpath>/.<name>", rundir "/run" for root, its directory made
 * 0755, the file opened O_CREAT|O_RDWR|O_NOFOLLOW|O_CLOEXEC|O_NOCTTY mode 0600, and
 * locks the whole file with fcntl(F_OFD_SETLKW, F_WRLCK), falling back to
 * flock(LOCK_EX) when the kernel answers EINVAL. It waits without a deadline; we poll
 * the non-blocking form of the same call until ours.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/lock.h"
#include "base/paths.h"
#include "base/util.h"

/* liblxc's RUNTIME_PATH, which Debian builds as /run: the rundir of its owner. */
#define LXC_RUNDIR "/run"
#define POLL_NS (50 * 1000 * 1000L)

static int try_lock(int fd, enum gp_lock_kind kind)
{
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	if (kind == GP_LOCK_OFD) {
		if (fcntl(fd, F_OFD_SETLK, &lk) == 0)
			return 0;
		if (errno != EINVAL)
			return errno == EACCES ? -EAGAIN : -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	return errno == EWOULDBLOCK ? -EAGAIN : -errno;
}

int gp_lock_fd(int fd, enum gp_lock_kind kind, unsigned int timeout_ms)
{
	double deadline = gp_now_ms() + timeout_ms;
	struct timespec pause = { 0, POLL_NS };
	int r;

	while ((r = try_lock(fd, kind)) == -EAGAIN || r == -EINTR) {
		if (gp_now_ms() >= deadline)
			return -ETIMEDOUT;
		nanosleep(&pause, NULL);
	}
	return r;
}

char *gp_lock_pve_path(const char *root, const char *vmid)
{
	_cleanup_free_ char *rel = NULL;

	if (asprintf(&rel, "/run/lock/lxc/pve-config-%s.lock", vmid) < 0)
		return NULL;
	return gp_path(root, rel);
}

/*
 * Where liblxc keeps its locks (its get_rundir): /run for the user or group that owns it,
 * else $XDG_RUNTIME_DIR, else $HOME/.cache/lxc/run. NULL where liblxc has none either.
 */
static const char *lxc_rundir(char *buf, size_t size)
{
	const char *dir = getenv("XDG_RUNTIME_DIR"), *home = getenv("HOME");
	struct stat st;

	if (stat(LXC_RUNDIR, &st) < 0)
		return NULL;
	if (geteuid() == st.st_uid || getegid() == st.st_gid)
		return LXC_RUNDIR;
	if (dir)
		return dir;
	if (!home || snprintf(buf, size, "%s/.cache/lxc/run/", home) >= (int)size)
		return NULL;
	return buf;
}

char *gp_lock_lxc_path(const char *lxcpath, const char *name)
{
	char buf[PATH_MAX];
	const char *rundir = lxc_rundir(buf, sizeof(buf));
	char *p;

	/* lxcpath as liblxc keeps it: absolute, so the path has "lock//"; the same file. */
	if (!rundir || asprintf(&p, "%s/lxc/lock/%s/.%s", rundir, lxcpath, name) < 0)
		return NULL;
	return p;
}

static int open_lock(const char *path, enum gp_lock_kind kind)
{
	int flags = O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;
	int r = gp_mkdir_parents(path);
	int fd;

	if (r < 0)
		return gp_error_errno(r, "Failed to create the directory of \"%s\"", path);
	if (kind == GP_LOCK_FLOCK)
		fd = open(path, flags | O_APPEND, 0644);
	else
		fd = open(path, flags, 0600);
	if (fd < 0) {
		r = -errno;
		return gp_error_errno(r, "Failed to open the lock \"%s\"", path);
	}
	return fd;
}

int gp_lock_take(const char *path, enum gp_lock_kind kind, unsigned int timeout_ms,
		 const char *what)
{
	_cleanup_close_ int fd = open_lock(path, kind);
	int r;

	if (fd < 0)
		return fd;
	r = gp_lock_fd(fd, kind, timeout_ms);
	if (r == -ETIMEDOUT) {
		gp_error("%s is locked by another operation (%s) for more than %u s: \"%s\"; "
			 "nothing was changed, try again when it is done",
			 what, kind == GP_LOCK_FLOCK ? "pct, the API" : "lxc-*, liblxc",
			 timeout_ms / 1000, path);
		return -EBUSY;
	}
	if (r < 0)
		return gp_error_errno(r, "Failed to lock \"%s\"", path);
	return steal_fd(fd);
}
