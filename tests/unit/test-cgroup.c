/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device rules: the layout a host enforces and what a rule list lets a container open. */
#include "unit.h"

#include "config/lxcconf.h"
#include "plan/cgroup.h"
#include "base/error.h"

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

/*
 * The two readers agree where both can answer: this process's mount table (what a capture
 * records) and the filesystem, which the hook asks (hybrid here, v2 in a v2 view).
 */
static void layout_of_this_host(void **state)
{
	enum gp_cg_layout table = GP_CG_V1 + 1;

	(void)state;
	assert_int_equal(gp_cgroup_layout_at(NULL, &table), 0);
	assert_int_equal(gp_cgroup_layout(), table);
}

/* Only a cgroup (v1) mount with the option devices, wherever it is among the options. */
static void layout_by_the_super_options(void **state)
{
	(void)state;
	assert_int_equal(gp_cgroup_layout_parse("40 35 0:35 / /sys/fs/cgroup/dev rw shared:9 - "
						"cgroup cgroup rw,nosuid,devices,freezer\n"),
			 GP_CG_V1);
	assert_int_equal(gp_cgroup_layout_parse("40 35 0:35 / /x rw - cgroup cgroup devices\n"),
			 GP_CG_V1);
	assert_int_equal(gp_cgroup_layout_parse("40 35 0:35 / /x rw - cgroup cgroup rw,devicesx\n"
						"41 35 0:36 / /y rw - cgroup2 cgroup2 rw,devices\n"
						"42 35 0:37 / /z rw - cgroup devices rw,cpu\n"
						"43 35 0:38 / /devices rw - cgroup\n"),
			 GP_CG_V2);
}

/* A line longer than any real one is skipped whole; the lines after it still count. */
static void long_mountinfo_line(void **state)
{
	static const char devices[] =
	    "40 35 0:35 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices\n";
	size_t n = 4096;
	char *buf = malloc(n + sizeof(devices));

	(void)state;
	assert_non_null(buf);
	memset(buf, 'x', n);
	memcpy(buf, "99 1 0:1 / /", 12);
	buf[n - 1] = '\n';
	memcpy(buf + n, devices, sizeof(devices));
	assert_int_equal(gp_cgroup_layout_parse(buf), GP_CG_V1);
	buf[n] = '\0';
	assert_int_equal(gp_cgroup_layout_parse(buf), GP_CG_V2);
	free(buf);
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
	assert_int_equal(gp_cg_rule_parse("x 1:1 rwm", &r), -GP_EBADCONF);
	assert_int_equal(gp_cg_rule_parse("c 19x:1 rwm", &r), -GP_EBADCONF);
	assert_int_equal(gp_cg_rule_parse("c -1:0 rwm", &r), -GP_EBADCONF);
	assert_int_equal(gp_cg_rule_parse("c 195:-1 rwm", &r), -GP_EBADCONF);
	assert_int_equal(gp_cg_rule_parse("cc 195:0 rwm", &r), -GP_EBADCONF);
	assert_int_equal(gp_cg_rule_parse("c 195", &r), -GP_EBADCONF);
	assert_int_equal(gp_cg_rule_parse("c", &r), -GP_EBADCONF);
	/* Blanks of any kind and number between the words; what follows the access is not read. */
	assert_int_equal(gp_cg_rule_parse("  b\t8:16   r  # the disk", &r), 0);
	assert_true(r.type == 'b' && r.major == 8 && r.minor == 16 && r.r && !r.w && !r.m);
	assert_int_equal(gp_cg_rule_parse("c 195:0", &r), 0);
	assert_true(r.r && r.w && r.m);
}

static struct gp_devnode node(unsigned int major, unsigned int minor)
{
	return (struct gp_devnode){ .name = "n", .major = major, .minor = minor };
}

static void common_conf_then_ours(void **state)
{
	struct gp_cg_rules *rules = calloc(1, sizeof(*rules));
	struct gp_devnode n0 = node(195, 0), n1 = node(195, 1), uvm = node(238, 0);
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
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.allow", "bad"),
			 -GP_EBADCONF);
	free(rules);
}

/* One rule list: deny a, then the given allow lines; can the container open n? */
static bool allowed_by(const char *allow, const char *deny, struct gp_devnode n)
{
	struct gp_cg_rules *rules = calloc(1, sizeof(*rules));
	const char *p = "lxc.cgroup2.devices";
	bool ok;

	assert_non_null(rules);
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.deny", "a"), 0);
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.allow", allow), 0);
	if (deny)
		assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.deny", deny), 0);
	ok = gp_cg_rules_allow(rules, &n);
	free(rules);
	return ok;
}

/* Opening a GPU needs read and write: an allow without either does not give it. */
static void access_of_a_rule(void **state)
{
	struct gp_devnode n0 = node(195, 0);

	(void)state;
	assert_true(allowed_by("c 195:0 rw", NULL, n0));
	assert_false(allowed_by("c 195:0 r", NULL, n0));
	assert_false(allowed_by("c 195:0 w", NULL, n0));
	assert_false(allowed_by("c 195:0 m", NULL, n0));
	/* A block rule of the same number is not a character device's. */
	assert_false(allowed_by("b 195:0 rwm", NULL, n0));
	assert_true(allowed_by("a", NULL, n0));
	assert_true(allowed_by("c 195:* rwm", NULL, n0));
	assert_true(allowed_by("c *:0 rwm", NULL, n0));
	assert_false(allowed_by("c *:1 rwm", NULL, n0));
	/* A deny of r or of w alone takes the node away; a deny of m alone does not. */
	assert_false(allowed_by("c 195:0 rwm", "c 195:0 r", n0));
	assert_false(allowed_by("c 195:0 rwm", "c 195:0 w", n0));
	assert_true(allowed_by("c 195:0 rwm", "c 195:0 m", n0));
	assert_true(allowed_by("c 195:0 rwm", "c 195:1 rwm", n0));
}

/* "deny = a" drops the allows before it; keys that are not .allow or .deny are not rules. */
static void what_counts_as_a_rule(void **state)
{
	struct gp_cg_rules *rules = calloc(1, sizeof(*rules));
	struct gp_devnode n0 = node(195, 0);
	const char *p = "lxc.cgroup.devices";

	(void)state;
	assert_non_null(rules);
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup.devices.allow", "c 195:0 rwm"), 0);
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup.devices.deny", "a"), 0);
	assert_false(gp_cg_rules_allow(rules, &n0));
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup.devices_allow", "c 195:0 rwm"), 0);
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup.devices.allowed", "c 195:0 rwm"), 0);
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup.devices.allow.x", "c 195:0 rwm"), 0);
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.allow", "c 195:0 rwm"), 0);
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup.DEVICES.allow", "c 195:0 rwm"), 0);
	assert_false(gp_cg_rules_allow(rules, &n0));
	assert_int_equal(rules->nallow, 0);
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup.devices.allow", "c 195:0 rwm"), 0);
	assert_true(gp_cg_rules_allow(rules, &n0));
	free(rules);
}

/* Past the cap a rule is refused, not dropped: a dropped allow would read as missing. */
static void more_rules_than_the_cap(void **state)
{
	struct gp_cg_rules *rules = calloc(1, sizeof(*rules));
	const char *p = "lxc.cgroup2.devices";

	(void)state;
	assert_non_null(rules);
	for (int i = 0; i < GP_CG_MAX_RULES; i++) {
		assert_int_equal(
		    gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.allow", "c 1:3 rwm"), 0);
		assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.deny", "c 1:5 rwm"),
				 0);
	}
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.allow", "c 195:0 rwm"),
			 -E2BIG);
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.deny", "c 195:0 rwm"),
			 -E2BIG);
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.deny", "a"),
			 0); /* resets */
	assert_int_equal(gp_cg_rules_add(rules, p, "lxc.cgroup2.devices.allow", "c 195:0 rwm"), 0);
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
		cmocka_unit_test(layout_of_this_host),
		cmocka_unit_test(layout_by_the_super_options),
		cmocka_unit_test(long_mountinfo_line),
		cmocka_unit_test(common_conf_then_ours),
		cmocka_unit_test(access_of_a_rule),
		cmocka_unit_test(what_counts_as_a_rule),
		cmocka_unit_test(more_rules_than_the_cap),
		cmocka_unit_test(edit_text),
	};
	return cmocka_run_group_tests_name("cgroup", tests, NULL, NULL);
}
