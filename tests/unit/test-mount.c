/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The bind's target resolution refuses a rootfs whose /dev leads out of it, before any mount. */
#include "unit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mount.h"
#include "util.h"

static void dev_symlink_is_refused(void **state)
{
	char dir[] = "/tmp/gp-mount.XXXXXX", path[320], victim[256], cmd[300];
	struct gp_plan plan = { .n = 1 };
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY), r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	mkdir(victim, 0755);
	snprintf(path, sizeof(path), "%s/rootfs", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/rootfs/dev", dir);
	assert_int_equal(symlink(victim, path), 0);
	plan.nodes[0] = (struct gp_node){ .name = "nvidia0", .major = 195, .minor = 0 };
	snprintf(path, sizeof(path), "%s/rootfs", dir);
	dup2(devnull, 2);
	r = gp_mount_plan(path, "/nonexistent-root", &plan);
	dup2(saved, 2);
	close(saved);
	close(devnull);
	assert_true(r < 0);
	snprintf(path, sizeof(path), "%s/nvidia0", victim);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dev_symlink_is_refused),
	};
	return cmocka_run_group_tests_name("mount", tests, NULL, NULL);
}
