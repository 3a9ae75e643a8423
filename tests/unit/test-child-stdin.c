/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A child's stdin is /dev/null whatever the caller's is: here the caller's stdin is a pipe
 * it could be fed through (as a terminal would be), so a child that inherited it would show.
 */
#include "unit.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "child.h"

static int describe_stdin(void *arg)
{
	struct stat st;

	(void)arg;
	if (fstat(STDIN_FILENO, &st) < 0)
		return 1;
	printf("%s %u:%u\n",
	       S_ISFIFO(st.st_mode)  ? "fifo"
	       : S_ISCHR(st.st_mode) ? "chr"
				     : "other",
	       major(st.st_rdev), minor(st.st_rdev));
	return 0;
}

static void stdin_is_dev_null_not_the_callers(void **state)
{
	static const struct gp_child_opts o = { .timeout_ms = 5000, .output_max = 4096 };
	int saved = dup(STDIN_FILENO), p[2];
	struct gp_child c;

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(dup2(p[0], STDIN_FILENO), STDIN_FILENO);
	assert_int_equal(gp_child_start(&c, &o, describe_stdin, NULL), 0);
	dup2(saved, STDIN_FILENO);
	close(saved);
	close(p[0]);
	close(p[1]);
	assert_int_equal(gp_child_wait(&c), 0);
	assert_string_equal(c.out, "chr 1:3\n");
	gp_child_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stdin_is_dev_null_not_the_callers),
	};
	return cmocka_run_group_tests_name("child-stdin", tests, NULL, NULL);
}
