/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Carrying out a [uvm] plan. Module insertion and removal are the test double here
 * (linked with --wrap): no test machine may load modules. The double plays the kernel
 * on a scratch root's sysfs, including libkmod's habit of returning 0 without applying
 * options to a module that is already loaded.
 */
#include "unit.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "base/util.h"
#include "driver/uvmapply.h"
#include "plan/uvm.h"

enum fake { APPLIES, IGNORES_OPTIONS, FAILS };
static enum fake behaviour;
static char root[64];
static char calls[512];

static void set_param(const char *value)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/module/nvidia_uvm/parameters/uvm_disable_hmm", root);
	gp_mkdir_parents(path);
	f = fopen(path, "w");
	fputs(value, f);
	fclose(f);
}

int __wrap_gp_module_insert(struct kmod_ctx *ctx, const char *name, const char *options);
int __wrap_gp_module_insert(struct kmod_ctx *ctx, const char *name, const char *options)
{
	(void)ctx;
	snprintf(calls + strlen(calls), sizeof(calls) - strlen(calls), "insert %s [%s];", name,
		 options);
	if (behaviour == FAILS)
		return -ENOEXEC;
	if (behaviour == APPLIES && strcmp(name, "nvidia_uvm") == 0)
		set_param(strstr(options, "uvm_disable_hmm=1") ? "Y\n" : "N\n");
	return 0;
}

int __wrap_gp_module_remove(struct kmod_ctx *ctx, const char *name);
int __wrap_gp_module_remove(struct kmod_ctx *ctx, const char *name)
{
	(void)ctx;
	snprintf(calls + strlen(calls), sizeof(calls) - strlen(calls), "remove %s;", name);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/gp-uvm.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static struct gp_uvm_plan reload_plan(void)
{
	struct gp_uvm_plan p = { .want_disable = true, .n = 2 };

	p.act[0] = (struct gp_mod_action){ GP_MOD_UNLOAD, "nvidia_uvm", "" };
	p.act[1] = (struct gp_mod_action){ GP_MOD_LOAD, "nvidia_uvm", "uvm_disable_hmm=1" };
	return p;
}

/* Runs the plan against the double with stderr silenced; returns gp_uvm_apply's value. */
static int apply(const struct gp_uvm_plan *p, bool dry_run)
{
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY), r;

	calls[0] = '\0';
	set_param("N\n");
	dup2(devnull, 2);
	r = gp_uvm_apply(root, (struct kmod_ctx *)1, p, dry_run);
	dup2(saved, 2);
	close(saved);
	close(devnull);
	return r;
}

static void reload_applies_and_is_verified(void **state)
{
	struct gp_uvm_plan p = reload_plan();

	(void)state;
	behaviour = APPLIES;
	assert_int_equal(apply(&p, false), 0);
	assert_string_equal(calls, "remove nvidia_uvm;insert nvidia_uvm [uvm_disable_hmm=1];");
}

static void option_not_applied_fails_loudly(void **state)
{
	struct gp_uvm_plan p = reload_plan();

	(void)state;
	behaviour = IGNORES_OPTIONS;
	assert_int_equal(apply(&p, false), -EIO);
}

static void failed_insert_stops(void **state)
{
	struct gp_uvm_plan p = reload_plan();

	(void)state;
	behaviour = FAILS;
	assert_int_equal(apply(&p, false), -EIO);
	assert_string_equal(calls, "remove nvidia_uvm;insert nvidia_uvm [uvm_disable_hmm=1];");
}

static void dry_run_calls_nothing(void **state)
{
	struct gp_uvm_plan p = reload_plan();

	(void)state;
	behaviour = APPLIES;
	assert_int_equal(apply(&p, true), 0);
	assert_string_equal(calls, "");
}

/* A refused conflict stops before any action of the plan runs, even with actions in it. */
static void refused_conflict_calls_nothing(void **state)
{
	struct gp_uvm_plan p = reload_plan();

	(void)state;
	behaviour = APPLIES;
	p.status = GP_UVM_CONFLICT;
	p.refuse = true;
	assert_int_equal(apply(&p, false), -GP_EREFUSED);
	assert_string_equal(calls, "");
}

/* A conflict let through (on_conflict = warn) with nothing to do: 0, and nothing called. */
static void warned_conflict_goes_on(void **state)
{
	struct gp_uvm_plan p = { .want_disable = true, .status = GP_UVM_CONFLICT };

	(void)state;
	behaviour = APPLIES;
	assert_int_equal(apply(&p, false), 0);
	assert_string_equal(calls, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reload_applies_and_is_verified),
		cmocka_unit_test(option_not_applied_fails_loudly),
		cmocka_unit_test(failed_insert_stops),
		cmocka_unit_test(dry_run_calls_nothing),
		cmocka_unit_test(refused_conflict_calls_nothing),
		cmocka_unit_test(warned_conflict_goes_on),
	};
	return cmocka_run_group_tests_name("uvmapply", tests, setup, teardown);
}
