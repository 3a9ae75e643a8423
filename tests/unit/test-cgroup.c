/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device rules: the layout a host enforces and what a rule list lets a container open. */
#include "unit.h"

#include "cgroup.h"
#include "lxcconf.h"

static const char hybrid[] =
    "35 25 0:30 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n"
    "40 35 0:35 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices\n"
    "41 35 0:36 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
static const char unified[] = "35 25 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n"
			      "36 25 0:31 / /mnt/devices rw - ext4 /dev/devices rw,devices\n";

static void layout(void **state)
{
	(void)state;
	assert_int_equal(gp_cgroup_layout_parse(hybrid), GP_CG_V1);
	/* "devices" as an option of a non-cgroup filesystem does not count. */
	assert_int_equal(gp_cgroup_layout_parse(unified), GP_CG_V2);
	assert_string_equal(gp_cgroup_key_prefix(GP_CG_V1), "lxc.cgroup.devices");
	assert_string_equal(gp_cgroup_key_prefix(GP_CG_V2), "lxc.cgroup2.devices");
}

static void rule_parse(void **state)
{
	struct gp_cg_rule r;

	(void)state;
	assert_int_equal(gp_cg_rule_parse("c 195:* rwm", &r), 0);
	assert_int_equal(r.major, 195);
	assert_int_equal(r.minor, -1);
	assert_true(r.r && r.w && r.m);
	assert_int_equal(gp_cg_rule_parse("c *:* m", &r), 0);
	assert_false(r.r);
	assert_int_equal(gp_cg_rule_parse("a", &r), 0);
	assert_int_equal(gp_cg_rule_parse("x 1:1 rwm", &r), -EINVAL);
	assert_int_equal(gp_cg_rule_parse("c 19x:1 rwm", &r), -EINVAL);
}

static struct gp_node node(unsigned int major, unsigned int minor)
{
	return (struct gp_node){ .name = "n", .major = major, .minor = minor };
}

static void common_conf_then_ours(void **state)
{
	struct gp_cg_rules *rules = calloc(1, sizeof(*rules));
	struct gp_node n0 = node(195, 0), n1 = node(195, 1), uvm = node(238, 0);
	const char *p = "lxc.cgroup2.devices";

	(void)state;
	/* Without any deny everything is reachable. */
	assert_true(gp_cg_rules_allow(rules, &n1));
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.deny", "a"), 0);
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.allow", "c *:* m"), 0);
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.allow", "c 195:0 rwm"), 0);
	/* The v1 key is not the one this layout enforces. */
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup.devices.allow", "c 238:0 rwm"), 0);
	assert_true(gp_cg_rules_allow(rules, &n0));
	assert_false(gp_cg_rules_allow(rules, &n1));
	assert_false(gp_cg_rules_allow(rules, &uvm));
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.allow", "c 238:* rw"), 0);
	assert_true(gp_cg_rules_allow(rules, &uvm));
	/* A later specific deny wins over an allow. */
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.deny", "c 195:0 rwm"), 0);
	assert_false(gp_cg_rules_allow(rules, &n0));
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.allow", "bad"), -EINVAL);
	free(rules);
}

static void edit_text(void **state)
{
	const char *old = "# mine\nlxc.rootfs.path = dir:/x\nlxc.hook.pre-start = /old/hook\n"
			  "lxc.cgroup2.devices.allow=c 195:0 rwm\n";
	const char *remove[] = { "lxc.hook.pre-start = /old/hook",
				 "lxc.cgroup2.devices.allow = c 195:0 rwm" };
	const char *add[] = { "lxc.hook.pre-start = /new/hook" };
	bool changed;
	char *out, *again;

	(void)state;
	out = gp_lxcconf_edit_text(old, remove, 2, add, 1, &changed);
	assert_true(changed);
	assert_string_equal(out,
			    "# mine\nlxc.rootfs.path = dir:/x\nlxc.hook.pre-start = /new/hook\n");
	/* Idempotent: removing and re-adding the new line changes nothing. */
	again = gp_lxcconf_edit_text(out, add, 1, add, 1, &changed);
	assert_false(changed);
	assert_string_equal(again, out);
	free(out);
	free(again);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layout),
		cmocka_unit_test(rule_parse),
		cmocka_unit_test(common_conf_then_ours),
		cmocka_unit_test(edit_text),
	};
	return cmocka_run_group_tests_name("cgroup", tests, NULL, NULL);
}
