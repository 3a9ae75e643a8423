/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runtime a command writes for (lib/driver/runtime.c): liblxc's version, the cgroup
 * layout from the capture's mountinfo (this host's, said as assumed, without one), and
 * Proxmox VE's release from os-release; LXC 7 on a hybrid host refused.
 */
#include "unit.h"

#include <lxc/lxccontainer.h>
#include <unistd.h>

#include "base/util.h"
#include "driver/runtime.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gp-runtime.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", dir);
	return 0;
}

static const char v1[] = "36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup "
			 "rw,devices\n";
static const char v2[] = "30 21 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n";

static void mountinfo(const char *text)
{
	sh("mkdir -p %s/proc/self && printf '%%s' '%s' >%s/proc/self/mountinfo", dir, text, dir);
}

/* liblxc's own words, and its major. */
static void lxc_version_from_liblxc(void **state)
{
	struct gp_runtime rt;

	(void)state;
	gp_runtime_read(test_ctx(NULL, "/nonexistent", NULL, false), &rt);
	assert_string_equal(rt.lxc, lxc_get_version());
	assert_int_equal(rt.lxc_major, strtoul(lxc_get_version(), NULL, 10));
	assert_true(rt.lxc_major >= 4);
	assert_int_equal(rt.layout_from, GP_LAYOUT_HOST);
	assert_int_equal(rt.layout, gp_cgroup_layout());
}

/* Under --root the capture's layout, whichever this host has; without one, this host's. */
static void layout_of_the_capture(void **state)
{
	struct gp_runtime rt;

	(void)state;
	mountinfo(v1);
	gp_runtime_read(test_ctx(dir, "/nonexistent", NULL, false), &rt);
	assert_int_equal(rt.layout, GP_CG_V1);
	assert_int_equal(rt.layout_from, GP_LAYOUT_CAPTURE);
	mountinfo(v2);
	gp_runtime_read(test_ctx(dir, "/nonexistent", NULL, false), &rt);
	assert_int_equal(rt.layout, GP_CG_V2);
	assert_string_equal(gp_runtime_from_words(&rt), "the capture's proc/self/mountinfo");
	sh("rm %s/proc/self/mountinfo", dir);
	gp_runtime_read(test_ctx(dir, "/nonexistent", NULL, false), &rt);
	assert_int_equal(rt.layout_from, GP_LAYOUT_ASSUMED);
	assert_int_equal(rt.layout, gp_cgroup_layout());
}

static unsigned int pve_release(const char *os_release, bool pve)
{
	struct gp_runtime rt;

	sh("mkdir -p %s/etc && printf '%s' >%s/etc/os-release", dir, os_release, dir);
	gp_runtime_read(test_ctx(dir, "/nonexistent", NULL, pve), &rt);
	return rt.pve;
}

/* Proxmox VE's release by its Debian's, on Proxmox VE only. */
static void pve_release_from_os_release(void **state)
{
	const char *trixie = "PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nNAME=\"Debian "
			     "GNU/Linux\"\nVERSION_ID=\"13\"\nID=debian\n";

	(void)state;
	assert_int_equal(pve_release(trixie, true), 9);
	assert_int_equal(pve_release(trixie, false), 0);
	assert_int_equal(pve_release("VERSION_ID=12\nID=debian\n", true), 8); /* unquoted, first */
	assert_int_equal(pve_release("NAME=x\nVERSION_CODENAME=trixie\n", true), 0);
	assert_int_equal(pve_release("ID=debian\nXVERSION_ID=\"13\"\n", true), 0);
	sh("rm %s/etc/os-release", dir);
	assert_int_equal(pve_release("", true), 0);
}

/* LXC 7 starts nothing on a hybrid host; older LXC, or LXC 7 on v2, may be written for. */
static void lxc7_needs_v2(void **state)
{
	struct gp_runtime rt = { .lxc = "7.0.0", .lxc_major = 7, .layout = GP_CG_V1 };

	(void)state;
	assert_int_equal(gp_runtime_can_start(&rt), -GP_EBADCONF);
	rt.layout = GP_CG_V2;
	assert_int_equal(gp_runtime_can_start(&rt), 0);
	rt = (struct gp_runtime){ .lxc = "6.0.4", .lxc_major = 6, .layout = GP_CG_V1 };
	assert_int_equal(gp_runtime_can_start(&rt), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lxc_version_from_liblxc),
		cmocka_unit_test_setup_teardown(layout_of_the_capture, setup, teardown),
		cmocka_unit_test_setup_teardown(pve_release_from_os_release, setup, teardown),
		cmocka_unit_test(lxc7_needs_v2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
