/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The catalogue of findings, and a list that never drops one without saying so. */
#include "unit.h"

#include <ctype.h>

#include "base/log.h"
#include "diagnose/findings.h"
#include "ids.h"

/* Every kind has its row: an id written as its enum's name is, severity and description. */
static void every_kind_has_its_row(void **state)
{
	(void)state;
	for (size_t i = 0; i < GP_FINDING_COUNT; i++) {
		const struct gp_finding_kind *k = &gp_finding_kinds[i];
		enum gp_finding_id back;

		assert_non_null(k->id);
		assert_non_null(k->detected);
		assert_int_equal(gp_finding_id_parse(k->id, &back), 0);
		assert_int_equal(back, i); /* unique: the first row with that id is this one */
		for (const char *p = k->id; *p; p++)
			assert_true(islower((unsigned char)*p) || isdigit((unsigned char)*p) ||
				    *p == '-');
	}
	assert_int_equal(gp_finding_id_parse("no-such-finding", &(enum gp_finding_id){ 0 }),
			 -ENOENT);
}

/* Past the cap, the last finding says how many were left out; it is an error. */
static void a_full_list_counts_what_it_left_out(void **state)
{
	struct gp_findings f = { 0 };
	size_t given = 0;

	(void)state;
	for (int i = 0; i < GP_MAX_FINDINGS + 8; i++)
		given += gp_findings_add(&f, GP_FINDING_GPU_EXCLUDED) != NULL;
	assert_int_equal(given, GP_MAX_FINDINGS - 1);
	assert_int_equal(f.n, GP_MAX_FINDINGS);
	assert_ids(&f, "gpu-excluded", "gpu-excluded", "gpu-excluded", "gpu-excluded",
		   "gpu-excluded", "gpu-excluded", "gpu-excluded", "gpu-excluded", "gpu-excluded",
		   "gpu-excluded", "gpu-excluded", "gpu-excluded", "gpu-excluded", "gpu-excluded",
		   "gpu-excluded", "gpu-excluded", "gpu-excluded", "gpu-excluded", "gpu-excluded",
		   "gpu-excluded", "gpu-excluded", "gpu-excluded", "gpu-excluded", "gpu-excluded",
		   "gpu-excluded", "gpu-excluded", "gpu-excluded", "gpu-excluded", "gpu-excluded",
		   "gpu-excluded", "gpu-excluded", "findings-capped", NULL);
	assert_string_equal(f.v[GP_MAX_FINDINGS - 1].summary,
			    "9 more finding(s) left out: one list holds 32");
	assert_int_equal(gp_findings_errors(&f), 1);
}

/* A captured message is kept, not printed; errno survives every log call. */
static void messages_keep_errno_and_can_be_captured(void **state)
{
	struct gp_log_capture c;

	(void)state;
	gp_log_capture_start(&c);
	errno = EXDEV;
	gp_error("first %d", 1);
	assert_int_equal(errno, EXDEV);
	gp_info("dropped");
	assert_int_equal(gp_error_errno(-ENOENT, "second \"%s\"", "x"), -ENOENT);
	assert_int_equal(errno, EXDEV);
	gp_log_capture_stop(&c);
	assert_string_equal(c.text, "first 1; second \"x\": No such file or directory");
	assert_int_equal(c.count, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_kind_has_its_row),
		cmocka_unit_test(a_full_list_counts_what_it_left_out),
		cmocka_unit_test(messages_keep_errno_and_can_be_captured),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
