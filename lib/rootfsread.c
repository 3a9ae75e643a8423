/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A container's rootfs read in a child under a deadline (rootfsread.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "child.h"
#include "log.h"
#include "rootfsread.h"
#include "util.h"

struct job {
	int rootfd;
	const char *version;
	struct gp_rootfs_read *out; /* shared with the caller: written before the child exits */
};

/* In the child: what the caller reads once it exited 0. */
static int read_rootfs(void *arg)
{
	const struct job *job = arg;
	struct gp_rootfs_read *out = job->out;
	struct gp_log_capture why;

	gp_log_capture_start(&why);
	out->status = gp_userspace_scan_rootfs(job->rootfd, job->version, &out->u);
	out->musl = gp_rootfs_is_musl(job->rootfd);
	gp_log_capture_stop(&why);
	snprintf(out->why, sizeof(out->why), "%s", why.text);
	return 0;
}

/* The id of the mount fd is on, from /proc/self/fdinfo (no filesystem is asked): or -1. */
static int mount_id(int fd)
{
	_cleanup_free_ char *buf = NULL;
	char path[64];
	const char *p;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (gp_read_file(path, 4096, &buf, NULL) < 0 || !(p = strstr(buf, "mnt_id:")))
		return -1;
	return atoi(p + strlen("mnt_id:"));
}

/* The mount table rootfs is seen in: its init's for "/proc/PID/root", else this process's. */
static void mountinfo_of(const char *rootfs, char *path, size_t size)
{
	int pid = 0, n = 0;

	if (sscanf(rootfs, "/proc/%d/root%n", &pid, &n) == 1 && rootfs[n] == '\0' && pid > 0)
		snprintf(path, size, "/proc/%d/mountinfo", pid);
	else
		snprintf(path, size, "/proc/self/mountinfo");
}

/* The filesystem type of mount id in a mountinfo text: 0, or -ENOENT. */
static int fstype_of(const char *mountinfo, int id, char *fstype, size_t size)
{
	const char *pos = mountinfo, *end = mountinfo + strlen(mountinfo), *line, *sep;
	char copy[4096], type[64];
	size_t n;

	while (gp_line_next(&pos, end, &line, &n)) {
		if (n >= sizeof(copy) || atoi(line) != id)
			continue;
		memcpy(copy, line, n);
		copy[n] = '\0';
		if (!(sep = strstr(copy, " - ")) || sscanf(sep + 3, "%63s", type) != 1)
			return -ENOENT;
		snprintf(fstype, size, "%s", type);
		return 0;
	}
	return -ENOENT;
}

/*
 * The rootfs's own mount, as rootfd holds it, is one no server of the container's answers
 * for: a FUSE filesystem (a running container's init may chroot into one of its own) is
 * refused before anything in it is asked, since a process waiting on FUSE cannot be killed.
 * 0, or -errno with why said in out.
 */
static int check_mount(int rootfd, const char *rootfs, struct gp_rootfs_read *out)
{
	_cleanup_free_ char *buf = NULL;
	char path[64], fstype[64];
	int id = mount_id(rootfd);

	mountinfo_of(rootfs, path, sizeof(path));
	if (id < 0 || gp_read_file(path, GP_ROOTFS_MOUNTINFO_MAX, &buf, NULL) < 0 ||
	    fstype_of(buf, id, fstype, sizeof(fstype)) < 0) {
		snprintf(out->why, sizeof(out->why),
			 "the mount of its root is not in %s: the container changed its root",
			 path);
		return -ESTALE;
	}
	if (strcmp(fstype, "fuse") != 0 && strcmp(fstype, "fuseblk") != 0 &&
	    strncmp(fstype, "fuse.", 5) != 0)
		return 0;
	snprintf(out->why, sizeof(out->why),
		 "its root is on a FUSE filesystem (%s), whose server the container may run: not "
		 "read",
		 fstype);
	return -EXDEV;
}

/* Why the child said nothing of its own: its deadline, or its end. */
static void note_failure(struct gp_rootfs_read *r, const struct gp_child *c, int timeout_ms)
{
	memset(r, 0, sizeof(*r));
	r->status = c->timed_out ? -ETIMEDOUT : -EIO;
	if (c->timed_out)
		snprintf(r->why, sizeof(r->why),
			 "the container's rootfs did not answer within %d s (a mount of its own "
			 "that never answers)%s",
			 timeout_ms / 1000,
			 c->state == 'D' ? "; the reader waits in the kernel until it answers or "
					   "goes"
					 : "");
	else
		snprintf(r->why, sizeof(r->why),
			 "the reader of the rootfs failed (exit %d, signal %d)", c->exit_code,
			 c->signal);
}

struct gp_rootfs_read *gp_rootfs_read(const char *rootfs, const char *version, int timeout_ms)
{
	struct gp_rootfs_read *r =
	    mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	/* Opening the magic link /proc/PID/root asks no filesystem: the mount is its now. */
	_cleanup_close_ int rootfd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct job job = { rootfd, version, r };
	struct gp_child_opts o = {
		.timeout_ms = timeout_ms, .output_max = 4096, .keep_fds = &job.rootfd, .nkeep = 1
	};
	struct gp_child c;
	int e;

	if (r == MAP_FAILED)
		return NULL;
	memset(r, 0, sizeof(*r));
	if (rootfd < 0) {
		r->status = -errno;
		snprintf(r->why, sizeof(r->why), "Failed to open \"%s\": %s", rootfs,
			 strerror(errno));
		return r;
	}
	r->status = check_mount(rootfd, rootfs, r);
	if (r->status < 0)
		return r;
	e = gp_child_start(&c, &o, read_rootfs, &job);
	if (e < 0) {
		r->status = e;
		snprintf(r->why, sizeof(r->why), "the reader of the rootfs did not start: %s",
			 strerror(-e));
		return r;
	}
	if (gp_child_wait(&c) < 0)
		note_failure(r, &c, timeout_ms);
	gp_child_free(&c);
	return r;
}

void gp_rootfs_read_free(struct gp_rootfs_read *r)
{
	if (r)
		munmap(r, sizeof(*r));
}
