/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A container's rootfs read by check (lib/check/rootfsread.c), a running one's through a process
 * chrooted there as its init would be: a reader that never returns is given up at the deadline
 * (gp_userspace_scan_rootfs wrapped to wait forever, as a read on a dead network filesystem would);
 * a rootfs on FUSE, a real one that never answers a lookup (tests/helpers/stallfs), is refused
 * before anything in it is asked; what was read comes back whole. Runs as root (make check), as
 * check does.
 */
#include "unit.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "check/rootfsread.h"

#define STALLFS HELPERS "/stallfs"

static bool stall_reads;
static pid_t server; /* the running stallfs, ended by teardown if a test could not */
static char dir[] = "/tmp/gp-rootfsread.XXXXXX";

int __real_gp_userspace_scan_rootfs(int rootfd, const char *version, struct gp_userspace *u);
int __wrap_gp_userspace_scan_rootfs(int rootfd, const char *version, struct gp_userspace *u);
int __wrap_gp_userspace_scan_rootfs(int rootfd, const char *version, struct gp_userspace *u)
{
	while (stall_reads)
		pause();
	return __real_gp_userspace_scan_rootfs(rootfd, version, u);
}

/* A process rooted at path (chroot), as a container's init is: its "/proc/PID/root". */
static pid_t rooted;
static const char *root_of(const char *path)
{
	static char proc[32];
	int ready[2];
	char c;

	assert_int_equal(pipe(ready), 0);
	rooted = fork();
	if (rooted == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (chroot(path) < 0)
			_exit(1);
		(void)!write(ready[1], "r", 1);
		for (;;)
			pause();
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	snprintf(proc, sizeof(proc), "/proc/%d/root", (int)rooted);
	return proc;
}

static void unroot(void)
{
	if (rooted > 0 && kill(rooted, SIGKILL) == 0)
		waitpid(rooted, NULL, 0);
	rooted = 0;
}

static int setup(void **state)
{
	(void)state;
	if (geteuid() != 0 || !mkdtemp(dir))
		return -1;
	sh("mkdir -p %s/etc %s/lib && touch %s/lib/ld-musl-x86_64.so.1", dir, dir, dir);
	return 0;
}

/* After each test, however it ended: its server, its rooted process and its mounts gone. */
static int end_test(void **state)
{
	(void)state;
	if (server > 0 && kill(server, SIGKILL) == 0)
		waitpid(server, NULL, 0);
	server = 0;
	unroot();
	sh("for m in ovl f b; do umount -l %s/$m 2>/dev/null; done; true", dir);
	return 0;
}

static int teardown(void **state)
{
	end_test(state);
	sh("rm -rf %s", dir);
	return 0;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void read_whole(void **state)
{
	struct gp_rootfs_read *r = gp_rootfs_read(dir, "580.159.04", 5000, NULL);

	(void)state;
	assert_non_null(r);
	assert_int_equal(r->status, 0);
	assert_true(r->musl);
	assert_false(r->u.cache_found); /* none: not an error */
	gp_rootfs_read_free(r);
}

static void missing_rootfs(void **state)
{
	struct gp_rootfs_read *r = gp_rootfs_read("/nonexistent/rootfs", "580.159.04", 5000, NULL);

	(void)state;
	assert_int_equal(r->status, -ENOENT);
	assert_non_null(strstr(r->why, "Failed to open \"/nonexistent/rootfs\""));
	gp_rootfs_read_free(r);
}

static void reader_given_up_at_the_deadline(void **state)
{
	struct gp_rootfs_read *r;
	double t0, took;
	char b[64];

	(void)state;
	snprintf(b, sizeof(b), "%s/b", dir); /* a mount of its own, as a container's root is */
	sh("mkdir -p %s/etc && mount --bind %s %s", b, b, b);
	t0 = now();
	stall_reads = true;
	r = gp_rootfs_read(root_of(b), "580.159.04", 1000, NULL);
	took = now() - t0;
	stall_reads = false;
	unroot();
	sh("umount %s", b);
	assert_int_equal(r->status, -ETIMEDOUT);
	assert_non_null(strstr(r->why, "did not answer within 1 s"));
	assert_true(took >= 1.0 && took < 3.0);
	gp_rootfs_read_free(r);
}

/* The server, started on dir/f: its pid once it said "ready". */
static pid_t start_stallfs(const char *mnt)
{
	int out[2];
	char line[16] = "";
	pid_t pid;

	assert_int_equal(pipe(out), 0);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM); /* it goes with this test, however it ends */
		dup2(out[1], STDOUT_FILENO);
		execl(STALLFS, "stallfs", mnt, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	assert_true(read(out[0], line, sizeof(line) - 1) > 0);
	close(out[0]);
	assert_string_equal(line, "ready\n");
	return server = pid;
}

static void fuse_rootfs_is_not_read(void **state)
{
	char mnt[64];
	struct gp_rootfs_read *r;
	double t0;
	pid_t pid;

	(void)state;
	snprintf(mnt, sizeof(mnt), "%s/f", dir);
	sh("mkdir -p %s", mnt);
	pid = start_stallfs(mnt);
	t0 = now();
	r = gp_rootfs_read(root_of(mnt), "580.159.04", 5000, NULL); /* an init rooted there */
	assert_true(now() - t0 < 1.0);				    /* nothing waited on */
	assert_int_equal(r->status, -EXDEV);
	gp_rootfs_read_free(r);
	unroot();
	r = gp_rootfs_read(mnt, "580.159.04", 5000, NULL); /* a stopped container's there */
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	server = 0;
	assert_int_equal(r->status, -EXDEV);
	assert_non_null(strstr(r->why, "its root is on a FUSE filesystem (fuse.stallfs)"));
	gp_rootfs_read_free(r);
}

/*
 * An overlay over a mount that never answers (the container's own FUSE under an overlay
 * its init chrooted into): the mount check sees an overlay, the reader waits in the kernel
 * past the deadline and is left, noted in the record; the next read sends no second one
 * while it waits, and once the server is gone the record is stale and the rootfs read.
 */
static void reader_left_waiting_once(void **state)
{
	char f[80], ovl[80], record[80];
	struct gp_rootfs_read *r;
	const char *init;
	pid_t pid, stuck;
	double t0;

	(void)state;
	snprintf(f, sizeof(f), "%s/f", dir);
	snprintf(ovl, sizeof(ovl), "%s/ovl", dir);
	snprintf(record, sizeof(record), "%s/x.reader", dir);
	sh("mkdir -p %s %s/empty %s", f, dir, ovl);
	pid = start_stallfs(f);
	sh("mount -t overlay none -o lowerdir=%s/empty:%s %s", dir, f, ovl);
	init = root_of(ovl);
	r = gp_rootfs_read(init, "580.159.04", 1000, record);
	assert_int_equal(r->status, -ETIMEDOUT);
	assert_true(r->stuck > 0);
	assert_non_null(strstr(r->why, "waits in the kernel"));
	stuck = r->stuck;
	gp_rootfs_read_free(r);
	t0 = now();
	r = gp_rootfs_read(init, "580.159.04", 1000, record);
	assert_true(now() - t0 < 0.5);
	assert_int_equal(r->status, -EBUSY);
	assert_int_equal(r->stuck, stuck);
	gp_rootfs_read_free(r);
	kill(pid, SIGKILL); /* the connection goes with the server; the reader with it */
	waitpid(pid, NULL, 0);
	server = 0;
	unroot();
	assert_int_equal(waitpid(stuck, NULL, 0), stuck);
	sh("umount -l %s; umount -l %s || true", ovl, f);
	r = gp_rootfs_read(ovl, "580.159.04", 1000, record);
	assert_int_not_equal(r->status, -EBUSY);
	assert_int_equal(access(record, F_OK), -1);
	gp_rootfs_read_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(read_whole, end_test),
		cmocka_unit_test_teardown(missing_rootfs, end_test),
		cmocka_unit_test_teardown(reader_given_up_at_the_deadline, end_test),
		cmocka_unit_test_teardown(fuse_rootfs_is_not_read, end_test),
		cmocka_unit_test_teardown(reader_left_waiting_once, end_test),
	};

	return cmocka_run_group_tests_name("rootfsread", tests, setup, teardown);
}
