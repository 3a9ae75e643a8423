/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A container's rootfs read in a child under a deadline (rootfsread.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "child.h"
#include "log.h"
#include "rootfsread.h"
#include "util.h"

struct job {
	const char *rootfs, *version;
	struct gp_rootfs_read *out; /* shared with the caller: written before the child exits */
};

/* In the child: what the caller reads once it exited 0. */
static int read_rootfs(void *arg)
{
	const struct job *job = arg;
	struct gp_rootfs_read *out = job->out;
	_cleanup_close_ int rootfd = open(job->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct gp_log_capture why;

	gp_log_capture_start(&why);
	if (rootfd < 0)
		out->status = gp_error_errno(-errno, "Failed to open \"%s\"", job->rootfs);
	else
		out->status = gp_userspace_scan_rootfs(rootfd, job->version, &out->u);
	if (rootfd >= 0)
		out->musl = gp_rootfs_is_musl(rootfd);
	gp_log_capture_stop(&why);
	snprintf(out->why, sizeof(out->why), "%s", why.text);
	return 0;
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
	struct gp_child_opts o = { .timeout_ms = timeout_ms, .output_max = 4096 };
	struct job job = { rootfs, version, r };
	struct gp_child c;
	int e;

	if (r == MAP_FAILED)
		return NULL;
	memset(r, 0, sizeof(*r));
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
