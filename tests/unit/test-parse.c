/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "unit.h"

#include "host/host.h"
#include "host/parse.h"
#include "base/error.h"

static void version_open(void **state)
{
	char v[32];
	enum gp_flavor f;

	(void)state;
	assert_int_equal(
	    gp_parse_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
			     "580.159.04  Release Build  (nixbld@)\nGCC version: 15\n",
			     v, sizeof(v), &f),
	    0);
	assert_string_equal(v, "580.159.04");
	assert_int_equal(f, GP_FLAVOR_OPEN);
}

static void version_proprietary(void **state)
{
	char v[32];
	enum gp_flavor f;

	(void)state;
	assert_int_equal(
	    gp_parse_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14 "
			     " Thu Feb 22 01:44:30 UTC 2024\n",
			     v, sizeof(v), &f),
	    0);
	assert_string_equal(v, "550.54.14");
	assert_int_equal(f, GP_FLAVOR_PROPRIETARY);
}

static void version_garbage(void **state)
{
	char v[32];
	enum gp_flavor f;

	(void)state;
	assert_int_equal(gp_parse_version("hello\n", v, sizeof(v), &f), -GP_EBADCONF);
	assert_int_equal(
	    gp_parse_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n", v, sizeof(v), &f),
	    -GP_EBADCONF);
}

static void params(void **state)
{
	struct gp_params p;

	(void)state;
	assert_int_equal(
	    gp_parse_params("ModifyDeviceFiles: 0\nDeviceFileUID: 0\nDeviceFileGID: 44\n"
			    "DeviceFileMode: 432\nRmMsg: \"\"\n",
			    &p),
	    0);
	assert_int_equal(p.modify, 0);
	assert_int_equal(p.gid, 44);
	assert_int_equal(p.mode, 0660);
	assert_int_equal(gp_parse_params("DeviceFileMode: x\n", &p), -GP_EBADCONF);
	assert_int_equal(gp_parse_params("", &p), 0);
	assert_int_equal(p.mode, 0666);
	assert_int_equal(p.modify, 1);
}

static void information(void **state)
{
	struct gp_gpu g;

	(void)state;
	assert_int_equal(gp_parse_information("Model: \t\t NVIDIA H200\nGPU UUID: \t GPU-6ac7\n"
					      "Bus Location: \t 0000:AB:00.0\nDevice Minor: \t 7\n"
					      "GPU Firmware: \t 580.159.04\nGPU Excluded:\t Yes\n",
					      &g),
			 0);
	assert_string_equal(g.model, "NVIDIA H200");
	assert_string_equal(g.pci, "0000:ab:00.0");
	assert_int_equal(g.minor, 7);
	assert_true(g.excluded);
	/* No minor, or a minor that is nvidiactl's, is not a GPU. */
	assert_int_equal(gp_parse_information("GPU UUID: GPU-1\nBus Location: 0000:01:00.0\n", &g),
			 -GP_EBADCONF);
	assert_int_equal(gp_parse_information("GPU UUID: GPU-1\nBus Location: 0000:01:00.0\n"
					      "Device Minor: 255\n",
					      &g),
			 -GP_EBADCONF);
}

static void devices(void **state)
{
	struct gp_majors m;

	(void)state;
	assert_int_equal(
	    gp_parse_devices("Character devices:\n  1 mem\n195 nvidia\n195 nvidiactl\n"
			     "238 nvidia-uvm\n241 nvidia-caps\n242 nvidia-caps-imex-channels\n"
			     "\nBlock devices:\n238 nvidia-uvm\n",
			     &m),
	    0);
	assert_int_equal(m.nvidia, 195);
	assert_int_equal(m.uvm, 238);
	assert_int_equal(m.caps, 241);
	assert_int_equal(m.caps_imex, 242);
	/* Every character major, for rules of another node's majors to keep clear of. */
	assert_true(gp_major_set_has(&m.registered, 1));
	assert_true(gp_major_set_has(&m.registered, 195));
	assert_true(gp_major_set_has(&m.registered, 242));
	assert_false(gp_major_set_has(&m.registered, 2));
	assert_false(gp_major_set_has(&m.registered, 4095));
	/* A block device of the same name does not count. */
	assert_int_equal(gp_parse_devices("Character devices:\n195 nvidia\n\nBlock devices:\n"
					  "250 nvidia-uvm\n",
					  &m),
			 0);
	assert_int_equal(m.uvm, 0);
	assert_int_equal(gp_parse_devices("Block devices:\n", &m), -GP_EBADCONF);
}

static void mig_minors(void **state)
{
	struct gp_caps_table t = { 0 };

	(void)state;
	assert_int_equal(gp_parse_mig_minors("config 1\nmonitor 2\ngpu0/gi1/ci0/access 13\n", &t),
			 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(gp_caps_lookup(&t, "gpu0/gi1/ci0/access"), 13);
	assert_int_equal(gp_caps_lookup(&t, "gpu0/gi2/access"), -ENOENT);
	free(t.v);
	t = (struct gp_caps_table){ 0 };
	assert_int_equal(gp_parse_mig_minors("config 1 extra\n", &t), -GP_EBADCONF);
	free(t.v);
	/* blanks around and between are fine; no minor, a sign, a name past 63 bytes are not */
	t = (struct gp_caps_table){ 0 };
	assert_int_equal(gp_parse_mig_minors("  config \t 1 \n\nmonitor\t2\n", &t), 0);
	assert_int_equal(gp_caps_lookup(&t, "config"), 1);
	assert_int_equal(gp_caps_lookup(&t, "monitor"), 2);
	free(t.v);
	static const char *const bad[] = {
		"config\n",
		"config -1\n",
		"config +1\n",
		"config 4294967296\n",
		"config 1x\n",
		"gpu0/gi0/ci0/access/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t = (struct gp_caps_table){ 0 };
		if (gp_parse_mig_minors(bad[i], &t) != -GP_EBADCONF)
			fail_msg("accepted: %s", bad[i]);
		free(t.v);
	}
}

static void kconfig(void **state)
{
	struct gp_kconfig k;

	(void)state;
	gp_parse_kconfig(
	    "CONFIG_ZONE_DEVICE=y\n# CONFIG_DEVICE_PRIVATE is not set\nCONFIG_HMM_MIRROR=y\n", &k);
	assert_int_equal(k.device_private, GP_NO);
	assert_int_equal(k.hmm_mirror, GP_YES);
	gp_parse_kconfig("CONFIG_DEVICE_PRIVATE=y\n", &k);
	assert_int_equal(k.device_private, GP_YES);
	/* A longer option with the same prefix is not the option. */
	gp_parse_kconfig("CONFIG_DEVICE_PRIVATE_X=y\n", &k);
	assert_int_equal(k.device_private, GP_NO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(version_open),	   cmocka_unit_test(version_proprietary),
		cmocka_unit_test(version_garbage), cmocka_unit_test(params),
		cmocka_unit_test(information),	   cmocka_unit_test(devices),
		cmocka_unit_test(mig_minors),	   cmocka_unit_test(kconfig),
	};
	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
