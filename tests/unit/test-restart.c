/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The day after a driver update, read from a mount table (lib/check/restart.c): which of a
 * start's binds are of files the host has since removed. The tables are written here as
 * the kernel writes /proc/PID/mountinfo; t-update.sh judges real containers.
 */
#include "unit.h"

#include "check/check.h"
#include "check/restart.h"
#include "ids.h"

static struct gp_inject inj;

static void add(enum gp_inject_kind kind, const char *name)
{
	struct gp_inject_file *f = &inj.v[inj.n++];

	memset(f, 0, sizeof(*f));
	f->kind = kind;
	snprintf(f->name, sizeof(f->name), "%s", name);
}

static int setup(void **state)
{
	(void)state;
	memset(&inj, 0, sizeof(inj));
	snprintf(inj.version, sizeof(inj.version), "580.159.04");
	add(GP_INJECT_LIB, "libcuda.so.580.159.04");
	add(GP_INJECT_LIB, "libnvidia-ml.so.580.159.04");
	add(GP_INJECT_PROGRAM, "nvidia-smi");
	return 0;
}

#define LINE(root, point) "600 590 8:1 " root " " point " ro,nosuid,nodev - ext4 /dev/sda1 rw\n"

/* A start's three binds, one of a removed file; the rest of the table does not count. */
static void replaced_counted(void **state)
{
	const char *table = "590 1 0:50 / / rw - ext4 /dev/sda1 rw\n"
			    "591 590 0:51 / /usr/local/nvidia rw - tmpfs tmpfs rw\n" LINE(
				"/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04//deleted",
				"/usr/local/nvidia/lib64/libcuda.so.580.159.04")
				LINE("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04",
				     "/usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04")
				    LINE("/usr/bin/nvidia-smi", "/usr/local/nvidia/bin/nvidia-smi")
					LINE("/srv/old//deleted", "/srv/old");
	char example[128];
	size_t bound;

	(void)state;
	assert_int_equal(gp_restart_count_replaced(table, &inj, &bound, example, sizeof(example)),
			 1);
	assert_int_equal(bound, 3);
	assert_string_equal(example, "libcuda.so.580.159.04");
}

/*
 * Near: a file at another directory than its kind's, a name only like one, a table cut
 * mid-line; and what the container sees last at a place is what counts (its own bind over
 * ours of a removed file hides the removal, a removed one over ours shows one).
 */
static void near_cases(void **state)
{
	const char *table = LINE("/x//deleted", "/usr/local/nvidia/bin/libcuda.so.580.159.04")
	    LINE("/x//deleted", "/usr/local/nvidia/lib64/libcuda.so.580.159.04.bak")
		LINE("/usr/lib/libcuda.so.580.159.04//deleted",
		     "/usr/local/nvidia/lib64/libcuda.so.580.159.04")
		    LINE("/srv/mine", "/usr/local/nvidia/lib64/libcuda.so.580.159.04") LINE(
			"/srv/gone//deleted", "/usr/local/nvidia/bin/nvidia-smi") "600 590 8:1 "
										  "/y//deleted";
	char example[128];
	size_t bound;

	(void)state;
	assert_int_equal(gp_restart_count_replaced(table, &inj, &bound, example, sizeof(example)),
			 1);
	assert_int_equal(bound, 2);
	assert_string_equal(example, "nvidia-smi");
	assert_int_equal(gp_restart_count_replaced("", &inj, &bound, example, sizeof(example)), 0);
	assert_int_equal(bound, 0);
	assert_string_equal(example, "");
}

/* What check says of each need, with the evidence of the mount table or of the versions. */
static void findings_said(void **state)
{
	struct gp_restart r = { .need = GP_RESTART_REPLACED, .replaced = 1, .bound = 3 };
	static struct gp_host host;
	static struct gp_findings f;

	(void)state;
	snprintf(host.version, sizeof(host.version), "580.159.04");
	snprintf(r.injected, sizeof(r.injected), "580.159.04");
	snprintf(r.example, sizeof(r.example), "libcuda.so.580.159.04");
	gp_check_restart_say("web", &r, &host, &f);
	assert_ids(&f, "driver-replaced", NULL);
	assert_string_equal(f.v[0].evidence,
			    "its mount table: 1 of its 3 binds at /usr/local/nvidia are of files "
			    "removed on the host (libcuda.so.580.159.04//deleted); its start "
			    "injected 580.159.04, the module is 580.159.04");
	memset(&f, 0, sizeof(f));
	r.need = GP_RESTART_VERSION;
	r.replaced = 0;
	snprintf(host.version, sizeof(host.version), "580.200.00");
	gp_check_restart_say("web", &r, &host, &f);
	assert_ids(&f, "driver-version-stale", NULL);
	assert_string_equal(
	    f.v[0].evidence,
	    "its start injected 580.159.04; /proc/driver/nvidia/version: 580.200.00");
	memset(&f, 0, sizeof(f));
	r.need = GP_RESTART_REBOOT_FIRST;
	gp_check_restart_say("web", &r, &host, &f);
	assert_ids(&f, "reboot-pending", NULL);
	assert_non_null(strstr(f.v[0].summary, "the host's files are now another version's"));
	memset(&f, 0, sizeof(f));
	r.need = GP_RESTART_NONE;
	gp_check_restart_say("web", &r, &host, &f);
	assert_ids(&f, NULL);
}

static void need_names(void **state)
{
	(void)state;
	assert_string_equal(gp_restart_need_name(GP_RESTART_NONE), "no");
	assert_string_equal(gp_restart_need_name(GP_RESTART_REPLACED), "restart");
	assert_string_equal(gp_restart_need_name(GP_RESTART_VERSION), "restart");
	assert_string_equal(gp_restart_need_name(GP_RESTART_REBOOT_FIRST), "reboot-first");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(replaced_counted, setup),
		cmocka_unit_test_setup(near_cases, setup),
		cmocka_unit_test(findings_said),
		cmocka_unit_test(need_names),
	};
	return cmocka_run_group_tests_name("restart", tests, NULL, NULL);
}
