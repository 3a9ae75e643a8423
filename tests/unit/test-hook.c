/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The hook's pre-start and post-stop over a fixture root (the H200 capture, no device node
 * made): a container attached by gp_attach in a private lxcpath, started by no one. What
 * pre-start writes (the host's nodes under the root, the plan) and what post-stop and a
 * refused start leave. Root's files, as on a host: run as root (make check).
 */
#include "unit.h"

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

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/gp-hook.XXXXXX");
	assert_non_null(mkdtemp(root));
	sh("cp -a %s/h200-580-open/. %s && chmod 755 %s", FIXTURES, root, root);
	snprintf(confdir, sizeof(confdir), "%s/conf", root);
	snprintf(lxcpath, sizeof(lxcpath), "%s/lxc", root);
	snprintf(config, sizeof(config), "%s/c1/config", lxcpath);
	sh("mkdir -p %s %s/c1/rootfs && chmod 755 %s", confdir, lxcpath, confdir);
	sh("printf 'lxc.uts.name = c1\\nlxc.rootfs.path = dir:%s/c1/rootfs\\n"
	   "lxc.autodev = 1\\nlxc.cgroup2.devices.deny = a\\nlxc.cgroup.devices.deny = a\\n' >%s",
	   lxcpath, config);
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
	struct gp_attach_opts o = { .root = root,
				    .confdir = confdir,
				    .lxcpath = lxcpath,
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

static void assert_char_device(const char *rel, unsigned int major, unsigned int minor)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	if (lstat(path, &st) < 0)
		fail_msg("%s: %s", path, strerror(errno));
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(major(st.st_rdev), major);
	assert_int_equal(minor(st.st_rdev), minor);
}

/* pre-start makes the host's missing nodes with today's majors and writes the plan. */
static void pre_start_plans_and_makes_nodes(void **state)
{
	_cleanup_free_ char *path = plan_path();
	struct gp_plan plan;

	(void)state;
	attach("all");
	assert_int_equal(gp_hook_pre_start(root, confdir, "c1", config), 0);
	assert_char_device("/dev/nvidiactl", 195, 255);
	assert_char_device("/dev/nvidia0", 195, 0);
	assert_char_device("/dev/nvidia-uvm", 238, 0);
	assert_int_equal(gp_plan_read(path, &plan), 0);
	assert_true(plan.n >= 4);
	assert_int_equal(plan.owner, getppid());
	assert_int_equal(gp_hook_post_stop(root, "c1"), 0);
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
	assert_true(gp_hook_pre_start(root, confdir, "c1", config) < 0);
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
	assert_int_equal(gp_hook_pre_start(root, confdir, "c1", config), -GP_EBADCONF);
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
	assert_int_equal(gp_hook_mount(root, "c1", rootfs), -ENOENT);
	gp_log_capture_stop(&said);
	assert_non_null(strstr(said.text, "did the pre-start hook run?"));
	sh("mkdir -p $(dirname %s) && echo 'gpu-provision-plan 1' >%s && echo 'node ../x 1 2 0666 0 0' >>%s",
	   path, path, path);
	gp_log_capture_start(&said);
	assert_int_equal(gp_hook_mount(root, "c1", rootfs), -GP_EBADCONF);
	gp_log_capture_stop(&said);
	assert_non_null(strstr(said.text, "is damaged"));
	assert_int_equal(gp_hook_post_stop(root, "c1"), 0);
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
