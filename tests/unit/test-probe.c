/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The probe's output comes from the container: it is parsed strictly and bounded. */
#include "unit.h"

#include "diagnose/proberun.h"
#include "base/error.h"

static const char good[] = "gpu-probe 1\n"
			   "glibc 2.28\n"
			   "node nvidia0 1 1 195 0 0\n"
			   "node nvidia-uvm 1 1 238 0 1\n"
			   "libcuda 1 /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04 580.159.04\n"
			   "driver 13000\n"
			   "stage cuinit\n"
			   "cuinit 0 CUDA_SUCCESS\n"
			   "devices 1\n"
			   "device 0 0000:00:06.0 GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460\n"
			   "end\n";

static void parses_a_full_report(void **state)
{
	struct gp_probe_result r = { 0 };

	(void)state;
	assert_int_equal(gp_probe_parse(good, &r), 0);
	assert_true(r.complete);
	assert_string_equal(r.glibc, "2.28");
	assert_int_equal(r.nnodes, 2);
	assert_int_equal(r.nodes[1].major, 238);
	assert_int_equal(r.nodes[1].open_errno, 1);
	assert_string_equal(r.libcuda_suffix, "580.159.04");
	assert_true(r.reached_cuinit && r.cuinit_done);
	assert_int_equal(r.ndevices, 1);
	assert_string_equal(r.devices[0].pci, "0000:00:06.0");
}

static void a_hang_leaves_a_partial_report(void **state)
{
	struct gp_probe_result r = { 0 };

	(void)state;
	assert_int_equal(gp_probe_parse("gpu-probe 1\nglibc 2.36\nlibcuda 1 /x/libcuda.so.1 1\n"
					"driver 13000\nstage cuinit\n",
					&r),
			 0);
	assert_true(r.reached_cuinit);
	assert_false(r.cuinit_done);
	assert_false(r.complete);
}

static void refuses_what_it_does_not_expect(void **state)
{
	static const char *bad[] = {
		"hello\n",
		"gpu-probe 2\nend\n",
		"gpu-probe 1\nnode ../../etc/passwd 1 1 1 1 0\nend\n",
		"gpu-probe 1\nnode nvidia0 1 1 195 0 0 extra\nend\n",
		"gpu-probe 1\nnode nvidia0 2 1 195 0 0\nend\n",
		"gpu-probe 1\ncuinit 0 CUDA SUCCESS\nend\n",
		"gpu-probe 1\ndevices 65\nend\n",
		"gpu-probe 1\ndevices 1\ndevice 1 0000:00:06.0 GPU-1\nend\n",
		"gpu-probe 1\ndevices 1\ndevice 0 0000:00:06.0 MIG-1\nend\n",
		"gpu-probe 1\ndevices 2\ndevice 0 0000:00:06.0 GPU-1a\ndevice 1 0000:00:07.0 "
		"GPU-1A\nend\n",
		"gpu-probe 1\nlibcuda 1 /a\x01b 1\nend\n",
		"gpu-probe 1\nend\ntrailing\n",
		"gpu-probe 1\nunknown line\nend\n",
		"gpu-probe 1\nglibc 2.36",
	};
	struct gp_probe_result r;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&r, 0, sizeof(r));
		if (gp_probe_parse(bad[i], &r) != -GP_EBADCONF)
			fail_msg("accepted case %zu: %s", i, bad[i]);
	}
}

static void long_lines_are_refused(void **state)
{
	char buf[2048];
	struct gp_probe_result r = { 0 };

	(void)state;
	snprintf(buf, sizeof(buf), "gpu-probe 1\nlibcuda 1 /%0900d 1\nend\n", 0);
	assert_int_equal(gp_probe_parse(buf, &r), -GP_EBADCONF);
}

/* A line after "end" is refused, and the report is not complete. */
static void nothing_may_follow_the_end(void **state)
{
	char buf[1024];
	struct gp_probe_result r = { 0 };

	(void)state;
	snprintf(buf, sizeof(buf), "%scuinit 0 CUDA_SUCCESS\n", good);
	assert_int_equal(gp_probe_parse(buf, &r), -GP_EBADCONF);
	assert_false(r.complete);
	assert_int_equal(r.bad_lineno, 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_a_full_report),
		cmocka_unit_test(a_hang_leaves_a_partial_report),
		cmocka_unit_test(refuses_what_it_does_not_expect),
		cmocka_unit_test(long_lines_are_refused),
		cmocka_unit_test(nothing_may_follow_the_end),
	};
	return cmocka_run_group_tests_name("probe", tests, NULL, NULL);
}
