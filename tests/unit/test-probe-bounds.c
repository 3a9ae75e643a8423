/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The probe parser's bounds, each at its edge: the report comes from the container, so
 * one more node than a plan holds, an errno past 4095, a negative flag or a byte outside
 * printable ASCII is refused, and the refused line is kept only escaped.
 */
#include "unit.h"

#include "base/util.h"
#include "diagnose/proberun.h"

static int parse(const char *text, struct gp_probe_result *r)
{
	memset(r, 0, sizeof(*r));
	return gp_probe_parse(text, r);
}

/* A report of n node lines, nvidia0 upwards. */
static char *nodes_report(size_t n)
{
	struct gp_buf b = { 0 };

	assert_int_equal(gp_buf_printf(&b, "gpu-probe 1\n"), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(gp_buf_printf(&b, "node nvidia%zu 1 1 195 %zu 0\n", i, i), 0);
	assert_int_equal(gp_buf_printf(&b, "end\n"), 0);
	return b.data;
}

static void at_most_a_plan_of_nodes(void **state)
{
	struct gp_probe_result *r = calloc(1, sizeof(*r));
	char *full = nodes_report(GP_PLAN_MAX_NODES), *over = nodes_report(GP_PLAN_MAX_NODES + 1);

	(void)state;
	assert_non_null(r);
	assert_int_equal(parse(full, r), 0);
	assert_int_equal(r->nnodes, GP_PLAN_MAX_NODES);
	assert_int_equal(parse(over, r), -GP_EBADCONF);
	assert_int_equal(r->nnodes, GP_PLAN_MAX_NODES);
	assert_int_equal(r->bad_lineno, GP_PLAN_MAX_NODES + 2);
	free(full);
	free(over);
	free(r);
}

static void node_fields_at_their_edges(void **state)
{
	struct gp_probe_result r;

	(void)state;
	assert_int_equal(parse("gpu-probe 1\nnode nvidia0 0 0 195 0 4095\nend\n", &r), 0);
	assert_int_equal(r.nodes[0].open_errno, 4095);
	assert_int_equal(parse("gpu-probe 1\nnode nvidia0 1 1 195 0 4096\nend\n", &r),
			 -GP_EBADCONF);
	assert_int_equal(parse("gpu-probe 1\nnode nvidia0 1 1 195 0 -1\nend\n", &r), -GP_EBADCONF);
	assert_int_equal(parse("gpu-probe 1\nnode nvidia0 -1 1 195 0 0\nend\n", &r), -GP_EBADCONF);
	assert_int_equal(parse("gpu-probe 1\nnode nvidia0 1 -1 195 0 0\nend\n", &r), -GP_EBADCONF);
	assert_int_equal(parse("gpu-probe 1\nnode nvidia0 1 2 195 0 0\nend\n", &r), -GP_EBADCONF);
}

/* Flags are 0 or 1; counts and versions within their ranges, at both ends. */
static void scalars_at_their_edges(void **state)
{
	struct gp_probe_result r;

	(void)state;
	assert_int_equal(parse("gpu-probe 1\nlibcuda 0 /x/libcuda.so.1 1\nend\n", &r), 0);
	assert_int_equal(parse("gpu-probe 1\nlibcuda 2 /x/libcuda.so.1 1\nend\n", &r),
			 -GP_EBADCONF);
	assert_int_equal(parse("gpu-probe 1\nlibcuda -1 /x/libcuda.so.1 1\nend\n", &r),
			 -GP_EBADCONF);
	assert_int_equal(parse("gpu-probe 1\ndevices 0\ndriver -1\nend\n", &r), 0);
	assert_int_equal(parse("gpu-probe 1\ndevices 64\ndriver 1000000\nend\n", &r), 0);
	assert_int_equal(parse("gpu-probe 1\ndevices -1\nend\n", &r), -GP_EBADCONF);
	assert_int_equal(parse("gpu-probe 1\ndriver -2\nend\n", &r), -GP_EBADCONF);
	assert_int_equal(parse("gpu-probe 1\ndriver 1000001\nend\n", &r), -GP_EBADCONF);
}

/* Words are printable ASCII: no DEL, no byte above 127 (a terminal may act on either). */
static void words_are_printable_ascii(void **state)
{
	struct gp_probe_result r;

	(void)state;
	assert_int_equal(parse("gpu-probe 1\nglibc 2.36\nend\n", &r), 0);
	assert_int_equal(parse("gpu-probe 1\nglibc 2.3\x7f\nend\n", &r), -GP_EBADCONF);
	assert_int_equal(parse("gpu-probe 1\nglibc 2.\xc3\xa9\nend\n", &r), -GP_EBADCONF);
	assert_int_equal(parse("gpu-probe 1\ncuinit 0 CUDA_\x9b"
			       "31m\nend\n",
			       &r),
			 -GP_EBADCONF);
}

/* The first refused line is kept for the message, with its escape sequences defused. */
static void refused_line_is_kept_escaped(void **state)
{
	struct gp_probe_result r;

	(void)state;
	assert_int_equal(parse("gpu-probe 1\nglibc 2.36\n\x1b]0;owned\x07 \x1b[31mred\nend\n", &r),
			 -GP_EBADCONF);
	assert_int_equal(r.bad_lineno, 3);
	assert_non_null(strstr(r.bad_line, "red"));
	for (const char *c = r.bad_line; *c; c++)
		if ((unsigned char)*c < ' ' || (unsigned char)*c >= 127)
			fail_msg("byte 0x%02x kept in \"%s\"", (unsigned char)*c, r.bad_line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(at_most_a_plan_of_nodes),
		cmocka_unit_test(node_fields_at_their_edges),
		cmocka_unit_test(scalars_at_their_edges),
		cmocka_unit_test(words_are_printable_ascii),
		cmocka_unit_test(refused_line_is_kept_escaped),
	};
	return cmocka_run_group_tests_name("probe-bounds", tests, NULL, NULL);
}
