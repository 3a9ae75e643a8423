/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Programs that run as root at every start are root's alone, up to /. */
#include "unit.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trust.h"

static void a_system_program_is_trusted(void **state)
{
	char real[PATH_MAX];

	(void)state;
	assert_int_equal(gp_trust_program("/bin/sh", real, sizeof(real)), 0);
	assert_int_equal(real[0], '/');
}

/*
 * gpu-hook in a root-owned tree (the tests run as root, as make check does): trusted; then
 * with a directory above it writable by others, and with the file itself group-writable.
 */
static char dir[] = "/var/lib/gp-trust.XXXXXX";

/* Whatever the case did, its tree goes. */
static int remove_tree(void **state)
{
	char cmd[64];

	(void)state;
	if (strchr(dir, 'X'))
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void a_writable_directory_above_is_refused(void **state)
{
	char inner[64], prog[96], real[PATH_MAX];
	int fd;

	(void)state;
	assert_int_equal(getuid(), 0);
	assert_non_null(mkdtemp(dir));
	snprintf(inner, sizeof(inner), "%s/bin", dir);
	snprintf(prog, sizeof(prog), "%s/gpu-hook", inner);
	assert_int_equal(mkdir(inner, 0755), 0);
	fd = open(prog, O_CREAT | O_WRONLY | O_CLOEXEC, 0755);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(gp_trust_program(prog, real, sizeof(real)), 0);
	assert_string_equal(real, prog);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(gp_trust_program(prog, real, sizeof(real)), -EINVAL);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(chmod(prog, 0775), 0);
	assert_int_equal(gp_trust_program(prog, real, sizeof(real)), -EINVAL);
}

static void a_missing_program_is_an_error(void **state)
{
	char real[PATH_MAX];

	(void)state;
	assert_int_equal(gp_trust_program("/nonexistent/gpu-hook", real, sizeof(real)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_system_program_is_trusted),
		cmocka_unit_test_teardown(a_writable_directory_above_is_refused, remove_tree),
		cmocka_unit_test(a_missing_program_is_an_error),
	};
	return cmocka_run_group_tests_name("trust", tests, NULL, NULL);
}
