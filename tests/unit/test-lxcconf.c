/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* LXC config files: reading with includes, the device-rule check, atomic edits. */
#include "unit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "config/lxcconf.h"
#include "plan/cgroup.h"
#include "start/hook.h"

static char dir[64];

static void write_file(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	char conf[128], path[512];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gp-unit.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(conf, sizeof(conf), "%s/conf.d", dir);
	mkdir(conf, 0755);
	write_file("conf.d/10-deny.conf", "lxc.cgroup2.devices.deny = a\n");
	write_file("conf.d/20-allow.conf", "lxc.cgroup2.devices.allow = c 195:0 rwm\n");
	write_file("conf.d/skipped.txt", "lxc.cgroup2.devices.allow = c 238:0 rwm\n");
	snprintf(
	    path, sizeof(path),
	    "# a comment\nlxc.include = %s/conf.d\nlxc.include = %s/missing.conf\n"
	    "lxc.cgroup2.devices.allow = c 195:255 rwm\nlxc.cgroup2.devices.allow = c 238:1 rwm\n",
	    dir, dir);
	write_file("config", path);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

struct seen {
	char lines[16][128];
	int n;
};

static int collect(const char *key, const char *value, const char *file, unsigned int line,
		   void *user)
{
	struct seen *s = user;

	(void)file;
	if (s->n < 16)
		snprintf(s->lines[s->n++], 128, "%u %s=%s", line, key, value);
	return 0;
}

static void walk_follows_includes_in_order(void **state)
{
	struct seen s = { 0 };
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/config", dir);
	assert_int_equal(gp_lxcconf_walk(path, collect, &s), 0);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.lines[0], "1 lxc.cgroup2.devices.deny=a");
	assert_string_equal(s.lines[1], "1 lxc.cgroup2.devices.allow=c 195:0 rwm");
	assert_string_equal(s.lines[2], "4 lxc.cgroup2.devices.allow=c 195:255 rwm");
	assert_int_equal(gp_lxcconf_walk("/nonexistent/config", collect, &s), -ENOENT);
}

static struct gp_plan plan_of(unsigned int uvm_major)
{
	struct gp_plan p = { .n = 3 };

	p.nodes[0] = (struct gp_devnode){ .name = "nvidia0", .major = 195, .minor = 0 };
	p.nodes[1] = (struct gp_devnode){ .name = "nvidiactl", .major = 195, .minor = 255 };
	p.nodes[2] = (struct gp_devnode){ .name = "nvidia-uvm", .major = uvm_major, .minor = 1 };
	return p;
}

static void rule_check_names_the_missing_rule(void **state)
{
	struct gp_plan ok = plan_of(238), stale = plan_of(511);
	char path[128];
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);

	(void)state;
	snprintf(path, sizeof(path), "%s/config", dir);
	dup2(devnull, 2);
	/* nvidia-uvm minor 1 under 238 is allowed; under yesterday's major 511 it is not. */
	assert_int_equal(gp_hook_check_config(test_ctx(NULL, "/nonexistent", NULL, false), path,
					      GP_CG_V2, &ok, "ct"),
			 0);
	assert_int_equal(gp_hook_check_config(test_ctx(NULL, "/nonexistent", NULL, false), path,
					      GP_CG_V2, &stale, "ct"),
			 -EACCES);
	/* Read with the v1 keys, the file denies nothing. */
	assert_int_equal(gp_hook_check_config(test_ctx(NULL, "/nonexistent", NULL, false), path,
					      GP_CG_V1, &stale, "ct"),
			 0);
	dup2(saved, 2);
	close(saved);
	close(devnull);
}

static void edit_keeps_backup_and_is_idempotent(void **state)
{
	const char *add[] = { "lxc.hook.pre-start = /x/gpu-hook" };
	char path[128], bak[160];
	_cleanup_free_ char *before = NULL, *kept = NULL, *after = NULL;

	(void)state;
	snprintf(path, sizeof(path), "%s/config", dir);
	snprintf(bak, sizeof(bak), "%s.gpu-provision.bak", path);
	assert_int_equal(gp_read_file(path, 65536, &before, NULL), 0);
	assert_int_equal(gp_lxcconf_edit(path, add, 1, add, 1), 1);
	assert_int_equal(gp_read_file(bak, 65536, &kept, NULL), 0);
	assert_string_equal(kept, before);
	assert_int_equal(gp_lxcconf_edit(path, add, 1, add, 1), 0);
	assert_int_equal(gp_lxcconf_edit(path, add, 1, NULL, 0), 1);
	assert_int_equal(gp_read_file(path, 65536, &after, NULL), 0);
	assert_string_equal(after, before);
}

static void edit_of_missing_file_fails_cleanly(void **state)
{
	const char *add[] = { "a = b" };
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);
	int r;

	(void)state;
	dup2(devnull, 2);
	r = gp_lxcconf_edit("/nonexistent/dir/config", NULL, 0, add, 1);
	dup2(saved, 2);
	close(saved);
	close(devnull);
	assert_int_equal(r, -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walk_follows_includes_in_order),
		cmocka_unit_test(rule_check_names_the_missing_rule),
		cmocka_unit_test(edit_keeps_backup_and_is_idempotent),
		cmocka_unit_test(edit_of_missing_file_fails_cleanly),
	};
	return cmocka_run_group_tests_name("lxcconf", tests, setup, teardown);
}
