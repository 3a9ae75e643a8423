/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The host's ldconfig over a container's rootfs (lib/host/ldconfig.c), run for real: a test
 * double of ldconfig (tests/helpers/ldconfig-report.c, static) reports how it was run.
 * Needs root, as the hook is.
 */
#include "unit.h"
#include <fcntl.h>
#include <limits.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/child.h"
#include "base/log.h"
#include "base/util.h"
#include "host/ldconfig.h"

#define REPORT HELPERS "/ldconfig-report"

static char rootfs[] = "/tmp/gp-ldconfig.XXXXXX";

static int group_setup(void **state)
{
	char path[PATH_MAX];

	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "test-ldconfig must run as root (sudo make unit)\n");
		return -1;
	}
	if (!mkdtemp(rootfs))
		return -1;
	snprintf(path, sizeof(path), "%s/node", rootfs);
	if (mknod(path, S_IFCHR | 0666, makedev(1, 3)) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/sub", rootfs);
	if (mkdir(path, 0755) < 0 || mount("tmpfs", path, "tmpfs", 0, "size=1m") < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/inside", rootfs);
	return mkdir(path, 0755);
}

static int group_teardown(void **state)
{
	char cmd[2 * PATH_MAX + 32];

	(void)state;
	snprintf(cmd, sizeof(cmd), "umount %s/sub; rm -rf %s", rootfs, rootfs);
	return system(cmd) == 0 ? 0 : -1;
}

static void vouch(struct gp_ldconfig *l, const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	snprintf(l->path, sizeof(l->path), "%s", path);
	l->dev = st.st_dev;
	l->ino = st.st_ino;
}

/* Returns the runner's result; what the double said is in why. */
static int run(const struct gp_ldconfig *l, struct gp_log_capture *why)
{
	int rootfd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC), r;

	assert_true(rootfd >= 0);
	gp_log_capture_start(why);
	r = gp_ldconfig_run(l, rootfd, rootfs, "/usr/local/nvidia/lib64");
	gp_log_capture_stop(why);
	close(rootfd);
	return r;
}

/*
 * Root of the rootfs only, no capability left nor to gain, nothing of ours, no
 * environment, no network but its own loopback, its limits, the rootfs copy nodev, nosuid
 * and noexec, no device node of the rootfs opened (the container's device cgroup is not on
 * yet while hooks run; /node is /dev/null's number, made as a container could), and no
 * mount below the rootfs's own written (/sub, as its /proc or /sys would be).
 */
static void runs_confined(void **state)
{
	struct gp_ldconfig l;
	struct gp_log_capture why;

	(void)state;
	vouch(&l, REPORT);
	assert_int_equal(run(&l, &why), -EIO);
	assert_non_null(strstr(why.text,
			       "uid 0 eff 0 prm 0 bnd 0 nnp 1 fds 0 env none node refused "
			       "top made net lo as 1073741824 cpu 10 fsize 67108864 nofile 64 "
			       "core 0 mount nodev nosuid noexec exe /dev/fd/"));
	assert_non_null(strstr(why.text, " sub refused root ")); /* executed by descriptor */
	assert_non_null(strstr(why.text, " inside ")); /* the rootfs, in readdir's order */
	assert_non_null(strstr(why.text, "argv ldconfig -X /usr/local/nvidia/lib64"));
}

/* The copy ldconfig runs from: a memfd sealed against writes, growth, shrinking, new seals. */
static void the_copy_is_sealed(void **state)
{
	int fd = gp_sealed_copy(REPORT, 64u << 20, "ldconfig");

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GET_SEALS),
			 F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
	assert_int_equal(write(fd, "x", 1), -1);
	assert_int_equal(errno, EPERM);
	close(fd);
}

static void refuses_another_file(void **state)
{
	struct gp_ldconfig l;
	struct gp_log_capture why;

	(void)state;
	vouch(&l, REPORT);
	l.ino++;
	assert_int_equal(run(&l, &why), -ESTALE);
	assert_non_null(strstr(why.text, "is not the file pre-start checked"));
}

/* A program the kernel would start with an interpreter would run the rootfs's loader. */
static void refuses_a_dynamic_program(void **state)
{
	struct gp_ldconfig l;
	struct gp_log_capture why;

	(void)state;
	vouch(&l, "/bin/true");
	assert_int_equal(run(&l, &why), -GP_EBADCONF);
	assert_non_null(strstr(why.text, "is no longer a static program"));
}

static void stops_at_the_deadline(void **state)
{
	char hang[PATH_MAX];
	struct gp_ldconfig l;
	struct gp_log_capture why;

	(void)state;
	snprintf(hang, sizeof(hang), "%s/hang", rootfs);
	assert_int_equal(close(open(hang, O_CREAT | O_WRONLY, 0644)), 0);
	vouch(&l, REPORT);
	assert_int_equal(run(&l, &why), -EIO);
	unlink(hang);
	assert_non_null(strstr(why.text, "took too long"));
}

/* This host's own: Debian's /sbin/ldconfig is glibc's static program. */
static void finds_the_hosts(void **state)
{
	struct gp_ldconfig l;

	(void)state;
	assert_int_equal(gp_ldconfig_find(&l), 0);
	assert_non_null(strstr(l.path, "sbin/ldconfig"));
	assert_true(l.ino != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(runs_confined),
		cmocka_unit_test(the_copy_is_sealed),
		cmocka_unit_test(refuses_another_file),
		cmocka_unit_test(refuses_a_dynamic_program),
		cmocka_unit_test(stops_at_the_deadline),
		cmocka_unit_test(finds_the_hosts),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
