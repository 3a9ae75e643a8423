/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A container's rootfs read in a child under a deadline (rootfsread.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/child.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/util.h"
#include "check/rootfsread.h"

struct job {
	int rootfd;
	int tablefd; /* the mount table rootfd is seen in, for a running container's own tmpfs */
	bool running;
	const char *version;
	struct gp_rootfs_read *out; /* shared with the caller: written before the child exits */
};

/*
 * What the reader keeps of root's powers: reading any file and searching any directory
 * (a container's files are not all world-readable), nothing else, and no way to gain more.
 */
static int keep_only_reading(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { { 0 } };

	d[0].effective = d[0].permitted = 1u << CAP_DAC_READ_SEARCH;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall(SYS_capset, &h, d) < 0)
		return -errno;
	return 0;
}

/* What the caller reads: the cache's libraries, the musl loader, what was not read. */
static void read_rootfs(const struct job *job)
{
	struct gp_rootfs_read *out = job->out;
	struct gp_log_capture why;

	gp_log_capture_start(&why);
	out->status = gp_userspace_scan_rootfs(job->rootfd, job->version, &out->u);
	out->musl = gp_rootfs_is_musl(job->rootfd);
	gp_toolkit_read(job->rootfd, job->tablefd, job->running, &out->toolkit);
	gp_log_capture_stop(&why);
	snprintf(out->why, sizeof(out->why), "%s", why.text);
}

/* In the child: what the caller reads once it exited 0. */
static int reader(void *arg)
{
	if (keep_only_reading() < 0)
		return 126;
	read_rootfs(arg);
	return 0;
}

/* A running container's root, "/proc/PID/root": PID, else 0. */
static int init_of(const char *rootfs)
{
	int pid = 0, n = 0;

	return sscanf(rootfs, "/proc/%d/root%n", &pid, &n) == 1 && rootfs[n] == '\0' && pid > 0
		   ? pid
		   : 0;
}

/*
 * The root to read, and the mount table it is seen in, both from one directory: the
 * init's /proc/PID for "/proc/PID/root" (a pid reused meanwhile cannot mix two processes),
 * else this process's. Opening the magic link root asks no filesystem. 0 or -errno.
 */
static int open_root(const char *rootfs, int *rootfd, FILE **table)
{
	_cleanup_close_ int proc = -1;
	int pid = init_of(rootfs), fd;

	if (pid) {
		char dir[32];

		snprintf(dir, sizeof(dir), "/proc/%d", pid);
		proc = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		*rootfd = proc < 0 ? -1 : openat(proc, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
		fd = proc < 0 ? -1 : openat(proc, "mountinfo", O_RDONLY | O_CLOEXEC);
	} else {
		*rootfd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
		fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	}
	if (*rootfd < 0 || fd < 0 || !(*table = fdopen(fd, "r"))) {
		int e = errno;

		gp_closep(rootfd);
		if (fd >= 0)
			close(fd);
		return -e;
	}
	return 0;
}

static bool is_fuse(const char *fstype)
{
	return strcmp(fstype, "fuse") == 0 || strcmp(fstype, "fuseblk") == 0 ||
	       strncmp(fstype, "fuse.", 5) == 0;
}

/*
 * The rootfs's own mount, as rootfd holds it, is one no server of the container's answers
 * for: a FUSE filesystem (a running container's init may chroot into one of its own) is
 * refused before anything in it is asked, since a process waiting on FUSE cannot be killed.
 * 0, or -errno with why said in out.
 */
static int check_mount(int rootfd, FILE *table, struct gp_rootfs_read *out)
{
	char fstype[64];
	int id = gp_proc_mount_id(rootfd);

	if (id < 0 || gp_mountinfo_fstype(table, id, fstype, sizeof(fstype)) < 0) {
		snprintf(out->why, sizeof(out->why),
			 "the mount of its root is not in its mount table: the container changed "
			 "its root");
		return -ESTALE;
	}
	if (!is_fuse(fstype))
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
	r->stuck = c->timed_out && !c->reaped ? c->pid : 0;
	if (r->stuck)
		snprintf(r->why, sizeof(r->why),
			 "the container's rootfs did not answer within %d s (a mount of its own "
			 "that never answers): the reader, pid %d, waits in the kernel until it "
			 "answers or goes",
			 timeout_ms / 1000, (int)r->stuck);
	else if (c->timed_out)
		snprintf(r->why, sizeof(r->why),
			 "the container's rootfs did not answer within %d s", timeout_ms / 1000);
	else
		snprintf(r->why, sizeof(r->why),
			 "the reader of the rootfs failed (exit %d, signal %d)", c->exit_code,
			 c->signal);
}

/* What the child wrote is the caller's to print: bounded and terminated, whatever it did. */
static void seal(struct gp_rootfs_read *r)
{
	struct gp_userspace *u = &r->u;

	r->why[sizeof(r->why) - 1] = '\0';
	if (u->n > GP_USERSPACE_MAX)
		u->n = GP_USERSPACE_MAX;
	for (size_t i = 0; i < u->n; i++) {
		struct gp_userspace_lib *l = &u->v[i];

		l->soname[sizeof(l->soname) - 1] = l->path[sizeof(l->path) - 1] = '\0';
		l->real[sizeof(l->real) - 1] = l->file[sizeof(l->file) - 1] = '\0';
		l->version[sizeof(l->version) - 1] = '\0';
	}
	gp_toolkit_seal(&r->toolkit);
}

/* Reads rootfd in the child; r says what came of it. */
static void read_in_child(int rootfd, int tablefd, const char *version, int timeout_ms,
			  struct gp_rootfs_read *r)
{
	struct job job = { rootfd, tablefd, true, version, r };
	int keep[] = { rootfd, tablefd };
	struct gp_child_opts o = {
		.timeout_ms = timeout_ms,
		.output_max = 4096,
		.keep_fds = keep,
		.nkeep = tablefd < 0 ? 1 : 2 /* without its table no mount of its own is entered */
	};
	struct gp_child c;
	int e = gp_child_start(&c, &o, reader, &job);

	if (e < 0) {
		r->status = e;
		snprintf(r->why, sizeof(r->why), "the reader of the rootfs did not start: %s",
			 gp_strerror(-e));
		return;
	}
	if (gp_child_wait(&c) < 0)
		note_failure(r, &c, timeout_ms);
	gp_child_free(&c);
	seal(r);
}

/*
 * A reader an earlier check left waiting on this rootfs, as record notes it, still waits:
 * no second one is sent after it (a timer's checks would pile them up). True, said in r.
 */
static bool earlier_stuck(const char *record, struct gp_rootfs_read *r)
{
	_cleanup_free_ char *buf = NULL;
	unsigned long long start, now;
	int pid;

	if (!record || gp_read_file(record, 64, &buf, NULL) < 0)
		return false;
	if (sscanf(buf, "%d %llu", &pid, &start) != 2 || pid <= 0 ||
	    gp_proc_start_time(pid, &now) < 0 || now != start) {
		unlink(record);
		return false;
	}
	r->status = -EBUSY;
	r->stuck = pid;
	snprintf(r->why, sizeof(r->why),
		 "the reader an earlier check left, pid %d, still waits on this rootfs: not read "
		 "again until it ends",
		 pid);
	return true;
}

/* Notes a reader left waiting in record, so that the next check sends none after it. */
static void note_stuck(const char *record, pid_t pid)
{
	unsigned long long start;
	char line[64];

	if (!record || gp_proc_start_time(pid, &start) < 0)
		return;
	snprintf(line, sizeof(line), "%d %llu\n", (int)pid, start);
	if (gp_mkdir_parents(record) == 0)
		(void)gp_write_file_atomic(record, line, strlen(line), 0644, 0);
}

struct gp_rootfs_read *gp_rootfs_read(const char *rootfs, const char *version, int timeout_ms,
				      const char *record)
{
	struct gp_rootfs_read *r =
	    mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	_cleanup_close_ int rootfd = -1, tablefd = -1;
	FILE *table = NULL;

	if (r == MAP_FAILED)
		return NULL;
	memset(r, 0, sizeof(*r));
	if (earlier_stuck(record, r))
		return r;
	r->status = open_root(rootfs, &rootfd, &table);
	if (r->status < 0) {
		snprintf(r->why, sizeof(r->why), "Failed to open \"%s\": %s", rootfs,
			 gp_strerror(-r->status));
		return r;
	}
	r->status = check_mount(rootfd, table, r);
	tablefd = fcntl(fileno(table), F_DUPFD_CLOEXEC, 3);
	fclose(table);
	/*
	 * A stopped container's directory, where no process of its runs and no mount of its
	 * own is, is read here (still across no mount); a running one's in the child.
	 */
	if (r->status == 0 && !init_of(rootfs)) {
		struct job job = { rootfd, -1, false, version, r };

		read_rootfs(&job);
	} else if (r->status == 0) {
		read_in_child(rootfd, tablefd, version, timeout_ms, r);
	}
	if (r->stuck)
		note_stuck(record, r->stuck);
	return r;
}

void gp_rootfs_read_free(struct gp_rootfs_read *r)
{
	if (r)
		munmap(r, sizeof(*r));
}
