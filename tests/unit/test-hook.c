/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The hook's pre-start, mount and post-stop over a fixture root (the H200 capture, no device
 * node made): a container attached by gp_attach in a private lxcpath, started by no one.
 * What pre-start writes (the host's nodes under the root, the plan) and what post-stop and a
 * refused start leave. As root the nodes are real; as any other user (make unit runs it as
 * nobody too) only the kernel's part is stood in for: mknod and chown of a node, which need
 * CAP_MKNOD and CAP_CHOWN, make a plain file and record the device instead.
 */
#include "unit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/log.h"
#include "base/paths.h"
#include "base/util.h"
#include "ops/attach.h"
#include "plan/planfile.h"
#include "start/hook.h"

static char root[64], confdir[96], lxcpath[96], config[160];

/* The stand-in's record: the nodes it was asked to make, by the path they were made at. */
static struct {
	char path[256];
	dev_t dev;
} made[32];
static size_t nmade;

int __real_mknod(const char *path, mode_t mode, dev_t dev);
int __real_fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags);
int __wrap_mknod(const char *path, mode_t mode, dev_t dev);
int __wrap_fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags);

/* mknod: the real one as root; else a plain file, and the device recorded. */
int __wrap_mknod(const char *path, mode_t mode, dev_t dev)
{
	int fd;

	if (geteuid() == 0)
		return __real_mknod(path, mode, dev);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 07777);
	if (fd < 0)
		return -1;
	close(fd);
	assert_true(nmade < sizeof(made) / sizeof(made[0]));
	snprintf(made[nmade].path, sizeof(made[0].path), "%s", path);
	made[nmade++].dev = dev;
	return 0;
}

/* chown of a file the stand-in made: done (recorded as asked); any other, the real one. */
int __wrap_fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
	for (size_t i = 0; geteuid() != 0 && i < nmade; i++)
		if (strcmp(made[i].path, path) == 0)
			return 0;
	return __real_fchownat(dirfd, path, uid, gid, flags);
}

static int setup(void **state)
{
	(void)state;
	nmade = 0;
	snprintf(root, sizeof(root), "/tmp/gp-hook.XXXXXX");
	assert_non_null(mkdtemp(root));
	/* The root stands for this machine, whose layout the hook enforces: its mountinfo. */
	sh("cp -a %s/h200-580-open/. %s && chmod 755 %s && cat /proc/self/mountinfo "
	   ">%s/proc/self/mountinfo",
	   fixtures(), root, root, root);
	snprintf(confdir, sizeof(confdir), "%s/conf", root);
	snprintf(lxcpath, sizeof(lxcpath), "%s/lxc", root);
	snprintf(config, sizeof(config), "%s/c1/config", lxcpath);
	sh("mkdir -p %s %s/c1/rootfs && chmod 755 %s", confdir, lxcpath, confdir);
	/* The v1 key only where LXC enforces it: LXC 7 loads no config with one. */
	sh("printf 'lxc.uts.name = c1\\nlxc.rootfs.path = dir:%s/c1/rootfs\\n"
	   "lxc.autodev = 1\\nlxc.cgroup2.devices.deny = a\\n%s' >%s",
	   lxcpath, gp_cgroup_layout() == GP_CG_V1 ? "lxc.cgroup.devices.deny = a\\n" : "", config);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", root);
	return 0;
}

static void attach(const char *gpus)
{
	struct gp_attach_opts o = { .ctx = test_ctx(root, confdir, lxcpath, false),
				    .rt = test_runtime(root, false),
				    .name = "c1",
				    .gpus = gpus,
				    .hook = "/usr/bin/env",
				    .inject = -1,
				    .quiet = true };

	assert_int_equal(gp_attach(&o, NULL), 0);
}

static char *plan_path(void)
{
	char *p = gp_plan_path(root, "c1");

	assert_non_null(p);
	return p;
}

/* The device the stand-in made under its temporary name, path's ("<path>.gp-new.<pid>"). */
static dev_t made_at(const char *path)
{
	char tmp[300];

	snprintf(tmp, sizeof(tmp), "%s.gp-new.%d", path, (int)getpid());
	for (size_t i = 0; i < nmade; i++)
		if (strcmp(made[i].path, tmp) == 0)
			return made[i].dev;
	fail_msg("%s was not made", path);
	return 0;
}

static void assert_char_device(const char *rel, unsigned int major, unsigned int minor)
{
	char path[256];
	struct stat st;
	dev_t dev;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	if (lstat(path, &st) < 0)
		fail_msg("%s: %s", path, strerror(errno));
	assert_true(geteuid() == 0 ? S_ISCHR(st.st_mode) : S_ISREG(st.st_mode));
	dev = geteuid() == 0 ? st.st_rdev : made_at(path);
	assert_int_equal(major(dev), major);
	assert_int_equal(minor(dev), minor);
}

/* pre-start makes the host's missing nodes with today's majors and writes the plan. */
static void pre_start_plans_and_makes_nodes(void **state)
{
	_cleanup_free_ char *path = plan_path();
	struct gp_plan plan;

	(void)state;
	attach("all");
	assert_int_equal(gp_hook_pre_start(test_ctx(root, confdir, NULL, false), "c1", config), 0);
	assert_char_device("/dev/nvidiactl", 195, 255);
	assert_char_device("/dev/nvidia0", 195, 0);
	assert_char_device("/dev/nvidia-uvm", 238, 0);
	assert_int_equal(gp_plan_read(path, &plan), 0);
	assert_true(plan.n >= 4);
	assert_int_equal(plan.owner, getppid());
	assert_int_equal(gp_hook_post_stop(test_ctx(root, confdir, NULL, false), "c1"), 0);
	assert_int_equal(access(path, F_OK), -1);
}

/*
 * A config whose rules do not cover a planned node is refused: no plan is left, not even one
 * a start that died before it left behind (LXC runs no post-stop for a refused start).
 */
static void pre_start_refuses_missing_rules(void **state)
{
	_cleanup_free_ char *path = plan_path();
	struct gp_log_capture said;

	(void)state;
	attach("all");
	sh("sed -i '/devices.allow.* c 238:0 rwm/d' %s", config);
	sh("mkdir -p $(dirname %s) && echo 'gpu-provision-plan 1' >%s", path, path);
	gp_log_capture_start(&said);
	assert_true(gp_hook_pre_start(test_ctx(root, confdir, NULL, false), "c1", config) < 0);
	gp_log_capture_stop(&said);
	assert_non_null(strstr(said.text, "238:0"));
	assert_int_equal(access(path, F_OK), -1);
}

/* No ini: a configuration to fix, said, and nothing written. */
static void pre_start_without_ini(void **state)
{
	_cleanup_free_ char *path = plan_path();
	struct gp_log_capture said;

	(void)state;
	gp_log_capture_start(&said);
	assert_int_equal(gp_hook_pre_start(test_ctx(root, confdir, NULL, false), "c1", config),
			 -GP_EBADCONF);
	gp_log_capture_stop(&said);
	assert_non_null(strstr(said.text, "c1.ini"));
	assert_int_equal(access(path, F_OK), -1);
}

/* The mount hook without a plan, or with a damaged one, binds nothing and says why. */
static void mount_needs_its_plan(void **state)
{
	_cleanup_free_ char *path = plan_path();
	struct gp_log_capture said;
	char rootfs[192];

	(void)state;
	snprintf(rootfs, sizeof(rootfs), "%s/c1/rootfs", lxcpath);
	gp_log_capture_start(&said);
	assert_int_equal(gp_hook_mount(test_ctx(root, confdir, NULL, false), "c1", rootfs),
			 -ENOENT);
	gp_log_capture_stop(&said);
	assert_non_null(strstr(said.text, "did the pre-start hook run?"));
	sh("mkdir -p $(dirname %s) && echo 'gpu-provision-plan 1' >%s && echo 'node ../x 1 2 0666 "
	   "0 0' >>%s",
	   path, path, path);
	gp_log_capture_start(&said);
	assert_int_equal(gp_hook_mount(test_ctx(root, confdir, NULL, false), "c1", rootfs),
			 -GP_EBADCONF);
	gp_log_capture_stop(&said);
	assert_non_null(strstr(said.text, "is damaged"));
	assert_int_equal(gp_hook_post_stop(test_ctx(root, confdir, NULL, false), "c1"), 0);
	assert_int_equal(access(path, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(pre_start_plans_and_makes_nodes, setup, teardown),
		cmocka_unit_test_setup_teardown(pre_start_refuses_missing_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(pre_start_without_ini, setup, teardown),
		cmocka_unit_test_setup_teardown(mount_needs_its_plan, setup, teardown),
	};

	gp_log_stdout = false;
	return cmocka_run_group_tests_name("hook", tests, NULL, NULL);
}
