/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The host model read from fixture roots. */
#include "unit.h"

#include "host/hmm.h"
#include "host/host.h"
#include "host/modules.h"

/* The modules' state, read from the fixture as under --root. */
static struct gp_modules mods_of(const char *root)
{
	struct gp_modules m;

	assert_int_equal(gp_modules_read_tree(root, &m), 0);
	return m;
}

/* The verdict from the fixture's own files, as gpu-provision host gives it there. */
static enum gp_tristate verdict(const char *root, const struct gp_host *h)
{
	struct gp_modules m;
	struct gp_hmm v;

	assert_int_equal(gp_modules_read_tree(root, &m), 0);
	gp_hmm_judge(h, &m, NULL, NULL, &v);
	return v.active;
}

static void h200_capture(void **state)
{
	struct gp_host h;

	(void)state;
	assert_int_equal(gp_host_read(FIXTURES "/h200-580-open", GP_HOST_ALL, &h), 0);
	assert_true(h.driver_loaded);
	assert_string_equal(h.version, "580.159.04");
	assert_int_equal(h.flavor, GP_FLAVOR_OPEN);
	assert_int_equal(h.ngpus, 1);
	assert_string_equal(h.gpus[0].uuid, "GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460");
	assert_string_equal(h.gpus[0].pci, "0000:00:06.0");
	assert_string_equal(h.gpus[0].firmware, "580.159.04");
	assert_int_equal(h.majors.uvm, 238);
	assert_int_equal(h.majors.caps, 241);
	assert_int_equal(h.params.mode, 0666);
	assert_true(mods_of(FIXTURES "/h200-580-open").uvm.loaded);
	assert_int_equal(mods_of(FIXTURES "/h200-580-open").uvm_disable_hmm, GP_NO);
	assert_string_equal(h.kernel_release, "6.18.44-fc-v657-gpu");
	/* From /proc/config.gz: HMM_MIRROR but no DEVICE_PRIVATE, so HMM is off. */
	assert_int_equal(h.kconfig.hmm_mirror, GP_YES);
	assert_int_equal(h.kconfig.device_private, GP_NO);
	assert_int_equal(verdict(FIXTURES "/h200-580-open", &h), GP_NO);
	assert_int_equal(gp_caps_lookup(&h.caps, "config"), 1);
	assert_int_equal(gp_caps_lookup(&h.caps, "gpu0/gi1/ci0/access"), 13);
	gp_host_free(&h);
}

static void quad_index_follows_pci_not_minor(void **state)
{
	static const char *pci[] = { "0000:01:00.0", "0000:41:00.0", "0000:81:00.0",
				     "0000:c1:00.0" };
	static const unsigned int minor[] = { 3, 2, 0, 1 };
	struct gp_host h;

	(void)state;
	assert_int_equal(gp_host_read(FIXTURES "/quad-550-proprietary", GP_HOST_ALL, &h), 0);
	assert_int_equal(h.flavor, GP_FLAVOR_PROPRIETARY);
	assert_string_equal(h.version, "550.54.14");
	assert_int_equal(h.ngpus, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(h.gpus[i].index, i);
		assert_string_equal(h.gpus[i].pci, pci[i]);
		assert_int_equal(h.gpus[i].minor, minor[i]);
	}
	assert_int_equal(h.majors.uvm, 509);
	assert_int_equal(h.params.gid, 44);
	assert_int_equal(h.params.mode, 0660);
	/* Proprietary module: never HMM, whatever the kernel has. */
	assert_int_equal(h.kconfig.device_private, GP_YES);
	assert_int_equal(verdict(FIXTURES "/quad-550-proprietary", &h), GP_NO);
	gp_host_free(&h);
}

static void seed_case_hmm_active(void **state)
{
	struct gp_host h;

	(void)state;
	assert_int_equal(gp_host_read(FIXTURES "/b200x8-590-open-hmm", GP_HOST_ALL, &h), 0);
	assert_int_equal(h.ngpus, 8);
	assert_string_equal(h.version, "590.48.01");
	assert_string_equal(h.kernel_release, "6.8.12-9-pve");
	assert_int_equal(verdict(FIXTURES "/b200x8-590-open-hmm", &h), GP_YES);
	gp_host_free(&h);
}

/*
 * /boot/config-<release> is read once per kernel: the answer is kept in run/gpu-provision
 * with the file it came from, and read from there first (a start reads no 270 KB file).
 */
static void kconfig_cached_with_its_source(void **state)
{
	char root[] = "/tmp/gp-test-kconfig.XXXXXX", line[256] = "";
	struct gp_host h;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	sh("cp -a %s/b200x8-590-open-hmm/. %s/ && mkdir -p %s/run/gpu-provision", FIXTURES, root,
	   root);
	assert_int_equal(gp_host_read(root, GP_HOST_ALL, &h), 0);
	assert_int_equal(h.kconfig.device_private, GP_YES);
	assert_string_equal(h.kconfig.source, "/boot/config-6.8.12-9-pve");
	gp_host_free(&h);
	f = fopen(strcat(strcpy(line, root), "/run/gpu-provision/kconfig"), "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_string_equal(line, "6.8.12-9-pve 1 1 1 /boot/config-6.8.12-9-pve\n");
	/* Read from the cache: the file is not opened again. */
	sh("rm %s/boot/config-6.8.12-9-pve", root);
	assert_int_equal(gp_host_read(root, GP_HOST_ALL, &h), 0);
	assert_int_equal(h.kconfig.device_private, GP_YES);
	assert_string_equal(h.kconfig.source, "/boot/config-6.8.12-9-pve");
	gp_host_free(&h);
	/* Another kernel's answer is not this one's. */
	sh("sed -i 's/^6.8.12-9-pve /6.8.12-8-pve /' %s/run/gpu-provision/kconfig", root);
	assert_int_equal(gp_host_read(root, GP_HOST_ALL, &h), 0);
	assert_int_equal(h.kconfig.device_private, GP_UNKNOWN);
	gp_host_free(&h);
	sh("rm -rf %s", root);
}

static void uvm_unloaded(void **state)
{
	struct gp_host h;

	(void)state;
	assert_int_equal(gp_host_read(FIXTURES "/uvm-unloaded-580-open", GP_HOST_ALL, &h), 0);
	assert_true(mods_of(FIXTURES "/uvm-unloaded-580-open").nvidia.loaded);
	assert_false(mods_of(FIXTURES "/uvm-unloaded-580-open").uvm.loaded);
	assert_int_equal(h.majors.uvm, 0);
	assert_int_equal(mods_of(FIXTURES "/uvm-unloaded-580-open").uvm_disable_hmm, GP_UNKNOWN);
	gp_host_free(&h);
}

static void no_driver(void **state)
{
	struct gp_host h;

	(void)state;
	assert_int_equal(gp_host_read(FIXTURES "/README.md-is-not-a-root", GP_HOST_ALL, &h), 0);
	assert_false(h.driver_loaded);
	assert_int_equal(h.ngpus, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(h200_capture),
		cmocka_unit_test(quad_index_follows_pci_not_minor),
		cmocka_unit_test(seed_case_hmm_active),
		cmocka_unit_test(kconfig_cached_with_its_source),
		cmocka_unit_test(uvm_unloaded),
		cmocka_unit_test(no_driver),
	};
	return cmocka_run_group_tests_name("host", tests, NULL, NULL);
}
