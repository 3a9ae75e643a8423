/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Module state from /proc/modules and sysfs, and libkmod over a small modules tree. */
#include "unit.h"

#include <sys/stat.h>

#include "base/util.h"
#include "driver/kmod.h"
#include "driver/persist.h"
#include "host/modules.h"

static void proc_modules_lines(void **state)
{
	static const char buf[] =
	    "nvidia_uvm 1830912 2 nvidia_peermem,nvidia_fs, Live 0xffffffffc080c000 (POE)\n"
	    "nvidia_modeset 1343488 0 - Loading 0xffffffffc0600000 (POE)\n"
	    "nvidia 14299136 - - Live 0xffffffffc0400000 (O)\n"
	    "nvidia_uvmx 1 0 - Live 0x0\n";
	struct gp_module m;

	(void)state;
	assert_int_equal(gp_parse_proc_modules(buf, "nvidia_uvm", &m), 0);
	assert_true(m.loaded);
	assert_int_equal(m.refcnt, 2);
	assert_string_equal(m.holders, "nvidia_peermem,nvidia_fs");
	/* A module still loading is not loaded yet. */
	assert_int_equal(gp_parse_proc_modules(buf, "nvidia_modeset", &m), 0);
	assert_false(m.loaded);
	/* '-': the kernel cannot unload (no CONFIG_MODULE_UNLOAD), as on the H200 host. */
	assert_int_equal(gp_parse_proc_modules(buf, "nvidia", &m), 0);
	assert_true(m.loaded);
	assert_int_equal(m.refcnt, -1);
	assert_string_equal(m.holders, "");
	assert_int_equal(gp_parse_proc_modules(buf, "nvidia_drm", &m), 0);
	assert_false(m.loaded);
	assert_int_equal(gp_parse_proc_modules("nvidia_uvm garbage\n", "nvidia_uvm", &m),
			 -GP_EBADCONF);
}

static void options_last_one_counts(void **state)
{
	(void)state;
	assert_int_equal(gp_options_disable_hmm("uvm_disable_hmm=1"), GP_YES);
	assert_int_equal(gp_options_disable_hmm("a=1 uvm_disable_hmm=Y b=2"), GP_YES);
	assert_int_equal(gp_options_disable_hmm("uvm_disable_hmm=1 uvm_disable_hmm=0"), GP_NO);
	assert_int_equal(gp_options_disable_hmm("xuvm_disable_hmm=1"), GP_UNKNOWN);
	assert_int_equal(gp_options_disable_hmm(""), GP_UNKNOWN);
	assert_int_equal(gp_options_disable_hmm(NULL), GP_UNKNOWN);
}

static void tree_state_of_fixtures(void **state)
{
	struct gp_modules m;

	(void)state;
	assert_int_equal(gp_modules_read_tree(FIXTURES "/h200-580-open", &m), 0);
	assert_true(m.nvidia.loaded && m.uvm.loaded);
	assert_int_equal(m.uvm.refcnt, -1);
	assert_int_equal(m.uvm_disable_hmm, GP_NO);
	assert_int_equal(m.uvm_ats_mode, 1);
	assert_int_equal(gp_modules_read_tree(FIXTURES "/uvm-unloaded-580-open", &m), 0);
	assert_true(m.nvidia.loaded);
	assert_false(m.uvm.loaded);
	assert_int_equal(m.uvm_disable_hmm, GP_UNKNOWN);
}

static void libkmod_lookup_and_config(void **state)
{
	struct kmod_ctx *ctx = gp_kmod_new(KMOD_TREE, KMOD_REL);
	struct gp_modules m;
	char path[512];

	(void)state;
	assert_non_null(ctx);
	/* Lookups by name and by the alias in etc/modprobe.d, through modules.dep.bin. */
	assert_int_equal(gp_kmod_lookup_path(ctx, "nvidia_uvm", path, sizeof(path)), 0);
	assert_non_null(strstr(path, "/updates/dkms/nvidia-uvm.ko"));
	assert_int_equal(gp_kmod_lookup_path(ctx, "nvidia-uvm", path, sizeof(path)), 0);
	assert_non_null(strstr(path, "nvidia-uvm.ko"));
	assert_int_equal(gp_kmod_lookup_path(ctx, "char-major-195-0", path, sizeof(path)), 0);
	assert_non_null(strstr(path, "/nvidia.ko"));
	assert_int_equal(gp_kmod_lookup_path(ctx, "nvidia_peermem", path, sizeof(path)), -ENOENT);
	/* What modprobe.d says for each, as libkmod reads it. */
	assert_int_equal(gp_modules_read(KMOD_TREE, ctx, &m), 0);
	assert_string_equal(m.nvidia.conf_options, "NVreg_PreserveVideoMemoryAllocations=1");
	assert_string_equal(m.uvm.conf_options, "uvm_perf_prefetch_enable=1");
	assert_int_equal(gp_options_disable_hmm(m.uvm.conf_options), GP_UNKNOWN);
	gp_kmod_free(ctx);
}

static void persisted_option_is_what_libkmod_reads(void **state)
{
	char conf[512];
	struct kmod_ctx *ctx;
	struct gp_modules m;
	_cleanup_free_ char *first = NULL, *again = NULL;

	(void)state;
	snprintf(conf, sizeof(conf), "%s%s", KMOD_TREE, GP_MODPROBE_CONF);
	unlink(conf);
	assert_int_equal(gp_persist_disable_hmm(KMOD_TREE, true), 1);
	assert_int_equal(access(conf, F_OK), -1); /* a dry run writes nothing */
	assert_int_equal(gp_persist_disable_hmm(KMOD_TREE, false), 1);
	assert_int_equal(gp_read_file(conf, 4096, &first, NULL), 0);
	assert_int_equal(gp_persist_disable_hmm(KMOD_TREE, false), 0); /* idempotent */
	assert_int_equal(gp_read_file(conf, 4096, &again, NULL), 0);
	assert_string_equal(first, again);
	ctx = gp_kmod_new(KMOD_TREE, KMOD_REL);
	assert_int_equal(gp_modules_read(KMOD_TREE, ctx, &m), 0);
	assert_int_equal(gp_options_disable_hmm(m.uvm.conf_options), GP_YES);
	assert_non_null(strstr(m.uvm.conf_options, "uvm_perf_prefetch_enable=1"));
	gp_kmod_free(ctx);
	unlink(conf);
}

static void initramfs_question(void **state)
{
	char dir[] = "/tmp/gp-initramfs.XXXXXX", path[128], cmd[160];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(gp_initramfs_has_nvidia(dir), GP_UNKNOWN);
	snprintf(path, sizeof(path), "%s/etc/initramfs-tools/modules", dir);
	assert_int_equal(gp_mkdir_parents(path), 0);
	f = fopen(path, "w");
	fputs("# nvidia would be here\nlz4\n", f);
	fclose(f);
	assert_int_equal(gp_initramfs_has_nvidia(dir), GP_NO);
	f = fopen(path, "a");
	fputs("nvidia_uvm\n", f);
	fclose(f);
	assert_int_equal(gp_initramfs_has_nvidia(dir), GP_YES);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(proc_modules_lines),
		cmocka_unit_test(options_last_one_counts),
		cmocka_unit_test(tree_state_of_fixtures),
		cmocka_unit_test(libkmod_lookup_and_config),
		cmocka_unit_test(persisted_option_is_what_libkmod_reads),
		cmocka_unit_test(initramfs_question),
	};
	return cmocka_run_group_tests_name("modules", tests, NULL, NULL);
}
