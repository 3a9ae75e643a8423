/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What pre-start hands the mount hook (lib/start/inject.c): its text, read back strictly. */
#include "unit.h"

#include "base/util.h"
#include "start/inject.h"

#define GOOD                                                                                       \
	"gpu-provision-inject 1\n"                                                                 \
	"version 580.159.04\n"                                                                     \
	"ldconfig /usr/sbin/ldconfig 2049 1234\n"                                                  \
	"lib libcuda.so.580.159.04 libcuda.so.1 /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04\n" \
	"lib libnvidia-gpucomp.so.580.159.04 - /usr/lib/libnvidia-gpucomp.so.580.159.04\n"         \
	"bin nvidia-smi /usr/bin/nvidia-smi /usr/bin/nvidia-smi\n"                                 \
	"cfg nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json /usr/share/nvidia_icd.json\n"

static void round_trip(void **state)
{
	_cleanup_free_ char *text = NULL;
	struct gp_inject *inj = malloc(sizeof(*inj));

	(void)state;
	assert_int_equal(gp_inject_parse(GOOD, inj), 0);
	assert_int_equal(inj->n, 4);
	assert_string_equal(inj->v[0].soname, "libcuda.so.1");
	assert_string_equal(inj->v[1].soname, "");
	assert_int_equal(inj->v[2].kind, GP_INJECT_PROGRAM);
	assert_string_equal(inj->v[3].link, "/etc/vulkan/icd.d/nvidia_icd.json");
	assert_int_equal(inj->ldconfig.ino, 1234);
	text = gp_inject_format(inj);
	assert_string_equal(text, GOOD);
	free(inj);
}

/* Each line of GOOD with one thing wrong. */
static void strict(void **state)
{
	static const char *const bad[] = {
		"gpu-provision-inject 2\nversion 1\nldconfig /s 1 2\n",
		"gpu-provision-inject 1\nldconfig /s 1 2\n",
		"gpu-provision-inject 1\nversion 1\nldconfig s 1 2\n",
		"gpu-provision-inject 1\nversion 1\nldconfig /s 1 2 3\n",
		"gpu-provision-inject 1\nversion 1\nldconfig /s 1 2\nlib ../libcuda.so - /x\n",
		"gpu-provision-inject 1\nversion 1\nldconfig /s 1 2\nlib a.so a/b.so /x\n",
		"gpu-provision-inject 1\nversion 1\nldconfig /s 1 2\nlib a.so - x\n",
		"gpu-provision-inject 1\nversion 1\nldconfig /s 1 2\nbin smi /usr/../etc/x /x\n",
		"gpu-provision-inject 1\nversion 1\nldconfig /s 1 2\nbin smi usr/bin/smi /x\n",
		"gpu-provision-inject 1\nversion 1\nldconfig /s 1 2\nbin smi /smi /x\n",
		"gpu-provision-inject 1\nversion 1\nldconfig /s 1 2\ncfg a /etc//a /x\n",
		"gpu-provision-inject 1\nversion 1\nldconfig /s 1 2\ndev a /etc/a /x\n",
		"gpu-provision-inject 1\nversion 1\nldconfig /s 1 2\nlib a.so - /x extra\n",
		"gpu-provision-inject 1\nversion 1\nldconfig /s 1 2\nlib a.so - /x",
		"gpu-provision-inject 1\nversion 1\nldconfig /s 1 2\nliba.so - /x /y\n",
		"gpu-provision-inject 1\nversion 1 2\nldconfig /s 1 2\n",
	};
	struct gp_inject *inj = malloc(sizeof(*inj));

	(void)state;
	for (size_t i = 0; i < GP_ARRAY_SIZE(bad); i++)
		if (gp_inject_parse(bad[i], inj) != -GP_EBADCONF)
			fail_msg("accepted: %s", bad[i]);
	free(inj);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(strict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
