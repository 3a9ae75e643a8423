/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Exit codes: each outcome of base/error.h its own, and no errno taken for one. */
#include "unit.h"

#include <errno.h>
#include <string.h>

#include "base/error.h"
#include "base/exitcode.h"
#include "base/log.h"

static void outcomes_have_their_codes(void **state)
{
	(void)state;
	assert_int_equal(gp_exit_code(0), GP_EXIT_OK);
	assert_int_equal(gp_exit_code(-GP_EREFUSED), GP_EXIT_PROBLEM);
	assert_int_equal(gp_exit_code(-GP_EBADCONF), GP_EXIT_USAGE);
}

/* A system call's EPERM or EINVAL is an operation that failed, not a refusal or bad usage. */
static void errnos_are_failures(void **state)
{
	static const int errs[] = { EPERM, EINVAL, ENOENT, EACCES, EIO, ENOMEM, EFBIG, 4095 };

	(void)state;
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		assert_int_equal(gp_exit_code(-errs[i]), GP_EXIT_FAILED);
	assert_true(GP_EREFUSED > 4095 && GP_EBADCONF > 4095);
}

/* A child gpu-provision's exit code read back as the result it stood for. */
static void exit_codes_read_back(void **state)
{
	(void)state;
	assert_int_equal(gp_exit_result(GP_EXIT_OK), 0);
	assert_int_equal(gp_exit_result(GP_EXIT_PROBLEM), -GP_EREFUSED);
	assert_int_equal(gp_exit_result(GP_EXIT_USAGE), -GP_EBADCONF);
	assert_int_equal(gp_exit_result(GP_EXIT_FAILED), -EIO);
	assert_int_equal(gp_exit_result(137), -EIO);
	for (int c = GP_EXIT_OK; c <= GP_EXIT_FAILED; c++)
		assert_int_equal(gp_exit_code(gp_exit_result(c)), c);
}

/* Said as the EPERM and EINVAL they replace were; an errno as strerror says it. */
static void outcomes_worded(void **state)
{
	(void)state;
	assert_string_equal(gp_strerror(GP_EREFUSED), strerror(EPERM));
	assert_string_equal(gp_strerror(GP_EBADCONF), strerror(EINVAL));
	assert_string_equal(gp_strerror(ENOENT), strerror(ENOENT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(outcomes_have_their_codes),
		cmocka_unit_test(errnos_are_failures),
		cmocka_unit_test(exit_codes_read_back),
		cmocka_unit_test(outcomes_worded),
	};
	return cmocka_run_group_tests_name("exitcode", tests, NULL, NULL);
}
