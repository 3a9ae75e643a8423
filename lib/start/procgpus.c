/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The container's /proc/driver/nvidia/gpus showing the start's GPUs only. Its procfs is the
 * host kernel's, listing every GPU; the tools that read it (nvidia-smi, nvidia-bug-report,
 * a monitoring agent) then name GPUs the container cannot open. The rest of
 * /proc/driver/nvidia stays live: params, version and capabilities are the driver's own.
 */
#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include "base/util.h"
#include "start/mount.h"
#include "start/procgpus.h"

#define PROC_GPUS "driver/nvidia/gpus"

static bool given(const struct gp_plan *plan, const char *pci)
{
	for (size_t i = 0; i < plan->ngpus; i++)
		if (plan->gpus[i].pci[0] && strcmp(plan->gpus[i].pci, pci) == 0)
			return true;
	return false;
}

/* The container's procfs: <rootfs>/proc with no link followed, or -errno (ENOENT: none). */
static int open_proc(const char *rootfs)
{
	_cleanup_close_ int rootfd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int fd = -1;
	struct statfs fs;

	if (rootfd < 0)
		return -errno;
	/* A mount point crossed on purpose: proc is one. */
	fd = gp_openat2(rootfd, "proc", O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
			RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &fs) < 0)
		return -errno;
	return fs.f_type == PROC_SUPER_MAGIC ? steal_fd(fd) : -ENOENT;
}

/* How many GPUs gpusfd lists that the plan was not given: 0 when none is to hide. */
static int count_hidden(int gpusfd, const struct gp_plan *plan)
{
	_cleanup_close_ int fd = openat(gpusfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	int hidden = 0;

	if (!d)
		return -errno;
	fd = -1; /* the DIR's now */
	while ((e = readdir(d)))
		hidden += e->d_name[0] != '.' && !given(plan, e->d_name);
	closedir(d);
	return hidden;
}

/* The given GPUs' directories, bound read-only into the tmpfs mnt. */
static int bind_given(int gpusfd, int mnt, const struct gp_plan *plan)
{
	const uint64_t ro =
	    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;

	for (size_t i = 0; i < plan->ngpus; i++) {
		const char *pci = plan->gpus[i].pci;
		_cleanup_close_ int src = -1, tgt = -1;
		int r;

		if (!pci[0])
			continue;
		src =
		    gp_openat2(gpusfd, pci, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, GP_RESOLVE_STRICT);
		if (src < 0 && errno == ENOENT)
			continue;
		if (src < 0 || (mkdirat(mnt, pci, 0555) < 0))
			return -errno;
		tgt = gp_openat2(mnt, pci, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, GP_RESOLVE_STRICT);
		if (tgt < 0)
			return -errno;
		r = gp_mount_bind_fd(src, tgt, ro);
		if (r < 0)
			return r;
	}
	return 0;
}

static int set_readonly(int mnt)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };

	if (syscall(SYS_mount_setattr, mnt, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
		return -errno;
	return 0;
}

/* The mask over name (gpusfd) in parentfd, or -errno with nothing left mounted. */
static int mask(int parentfd, const char *name, int gpusfd, const struct gp_plan *plan)
{
	_cleanup_close_ int mnt = gp_mount_tmpfs(gpusfd);
	int r;

	if (mnt < 0)
		return mnt;
	r = bind_given(gpusfd, mnt, plan);
	if (r == 0)
		r = set_readonly(mnt);
	if (r < 0)
		gp_mount_undo_at(parentfd, name);
	return r;
}

/* The container's /proc/driver/nvidia: an O_PATH descriptor, or -errno (ENOENT: none). */
static int open_nvidia(const char *rootfs)
{
	_cleanup_close_ int procfd = open_proc(rootfs);
	int fd;

	if (procfd < 0)
		return procfd;
	fd = gp_openat2(procfd, "driver/nvidia", O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
			GP_RESOLVE_STRICT);
	return fd < 0 ? -errno : fd;
}

int gp_procgpus_mask_dir(int parentfd, const char *name, const struct gp_plan *plan)
{
	_cleanup_close_ int gpusfd = -1;
	int hidden, r;

	if (plan->ngpus == 0 || !plan->gpus[0].pci[0])
		return 0; /* a plan of attach, or from before */
	gpusfd =
	    gp_openat2(parentfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, GP_RESOLVE_STRICT);
	if (gpusfd < 0)
		return errno == ENOENT ? 0 : -errno;
	hidden = count_hidden(gpusfd, plan);
	if (hidden <= 0)
		return hidden;
	r = mask(parentfd, name, gpusfd, plan);
	return r < 0 ? r : 1;
}

int gp_procgpus_mask(const char *rootfs, const struct gp_plan *plan)
{
	_cleanup_close_ int nvidiafd = -1;
	int r;

	if (plan->ngpus == 0)
		return 0;
	nvidiafd = open_nvidia(rootfs);
	if (nvidiafd == -ENOENT)
		return 0; /* no procfs there, or no driver in it: nothing lists the GPUs */
	r = nvidiafd < 0 ? nvidiafd : gp_procgpus_mask_dir(nvidiafd, "gpus", plan);
	if (r < 0)
		gp_warn("/proc/" PROC_GPUS " in the container lists every GPU of the host, not "
			"only the given ones: it could not be masked (%s); the GPUs the container "
			"was not given stay unopenable",
			gp_strerror(-r));
	return r;
}
