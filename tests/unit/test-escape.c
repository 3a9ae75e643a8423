/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a container said never reaches a terminal raw; its report is typed before use. */
#include "unit.h"

#include <string.h>

#include "base/escape.h"
#include "diagnose/probejson.h"
#include "diagnose/proberun.h"
#include "base/error.h"

static void control_bytes_are_escaped(void **state)
{
	static const char in[] = "a\033]0;PWNED\007\033[2J\\b\tc\nd\x9b\xff";
	char out[128];

	(void)state;
	gp_escape(out, sizeof(out), in, sizeof(in) - 1, false);
	assert_string_equal(out, "a\\x1b]0;PWNED\\x07\\x1b[2J\\b\\tc\\nd\\x9b\\xff");
	gp_escape(out, sizeof(out), "x\ny", 3, true);
	assert_string_equal(out, "x\ny");
}

static void a_cut_never_splits_an_escape(void **state)
{
	char out[6];

	(void)state;
	gp_escape(out, sizeof(out), "ab\033cd", 5, false);
	assert_string_equal(out, "ab"); /* "\x1b" would not fit whole */
}

/* A probe line with an escape in it is refused, and kept escaped for the finding. */
static void a_refused_probe_line_is_kept_escaped(void **state)
{
	struct gp_probe_result r = { 0 };

	(void)state;
	assert_int_equal(
	    gp_probe_parse("gpu-probe 1\nglibc 2.36\nlibcuda 1 /x\033[2J 1\nend\n", &r),
	    -GP_EBADCONF);
	assert_int_equal(r.bad_lineno, 3);
	assert_string_equal(r.bad_line, "libcuda 1 /x\\x1b[2J 1");
}

static int take(const char *text, struct gp_findings *f, char *why)
{
	char status[16] = "";

	memset(f, 0, sizeof(*f));
	return gp_probe_json_take(text, strlen(text), status, sizeof(status), f, NULL, why, 256);
}

static void a_good_report_is_taken(void **state)
{
	struct gp_findings f;
	char why[256];

	(void)state;
	assert_int_equal(take("{\"status\":\"failed\",\"findings\":[{\"id\":\"libcuda-missing\","
			      "\"summary\":\"s\",\"evidence\":\"e\",\"fix\":\"x\"}]}\n",
			      &f, why),
			 0);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.v[0].id, "libcuda-missing");
	assert_string_equal(f.v[0].evidence, "e");
}

static void mistyped_reports_are_refused(void **state)
{
	static const char *const bad[] = {
		"{\"status\":\"ok\",\"findings\":{}}",
		"{\"status\":\"ok\",\"findings\":\"x\"}",
		"{\"status\":1,\"findings\":[]}",
		"{\"status\":\"fine\",\"findings\":[]}",
		"{\"status\":\"ok\",\"findings\":[1]}",
		"{\"status\":\"ok\",\"findings\":[{\"id\":\"no-such-id\"}]}",
		"{\"status\":\"ok\",\"findings\":[{\"id\":\"probe-output\",\"summary\":[]}]}",
		"{\"status\":\"ok\",\"findings\":[]} {\"status\":\"ok\"}",
		"[]",
		"",
		"{\"status\":\"ok\",\"findings\":[",
	};
	struct gp_findings f;
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(take(bad[i], &f, why), -GP_EBADCONF);
		assert_int_equal(f.n, 0);
		assert_true(why[0] != '\0');
	}
}

static void an_unknown_id_is_quoted_escaped(void **state)
{
	struct gp_findings f;
	char why[256];

	(void)state;
	assert_int_equal(
	    take("{\"status\":\"ok\",\"findings\":[{\"id\":\"x\\u001b[2J\"}]}", &f, why),
	    -GP_EBADCONF);
	assert_non_null(strstr(why, "x\\x1b[2J"));
	assert_null(strchr(why, '\033'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(control_bytes_are_escaped),
		cmocka_unit_test(a_cut_never_splits_an_escape),
		cmocka_unit_test(a_refused_probe_line_is_kept_escaped),
		cmocka_unit_test(a_good_report_is_taken),
		cmocka_unit_test(mistyped_reports_are_refused),
		cmocka_unit_test(an_unknown_id_is_quoted_escaped),
	};
	return cmocka_run_group_tests_name("escape", tests, NULL, NULL);
}
