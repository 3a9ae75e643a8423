/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runner's limits, each seen without a wall-clock bound that load could break: a
 * child's stdin is /dev/null whatever the caller's is, its deadline is timeout_ms from its
 * start, and a grandchild holding its pipe holds the caller for the grace, not until then.
 */
#include "unit.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "child.h"

static const struct gp_child_opts quick = { .timeout_ms = 5000, .output_max = 4096 };

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

/* The caller's stdin here is a pipe it could be fed through, as a terminal would be. */
static void stdin_is_dev_null_not_the_callers(void **state)
{
	int saved = dup(STDIN_FILENO), p[2];
	struct gp_child c;

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(dup2(p[0], STDIN_FILENO), STDIN_FILENO);
	assert_int_equal(gp_child_start(&c, &quick, describe_stdin, NULL), 0);
	dup2(saved, STDIN_FILENO);
	close(saved);
	close(p[0]);
	close(p[1]);
	assert_int_equal(gp_child_wait(&c), 0);
	assert_string_equal(c.out, "chr 1:3\n");
	gp_child_free(&c);
}

static int sleep_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

static void the_deadline_is_timeout_ms_from_the_start(void **state)
{
	struct gp_child_opts o = quick;
	struct gp_child c;

	(void)state;
	o.timeout_ms = 200;
	assert_int_equal(gp_child_start(&c, &o, sleep_forever, NULL), 0);
	assert_true(c.deadline_ms == c.start_ms + 200);
	assert_int_equal(gp_child_wait(&c), -EIO);
	assert_true(c.timed_out);
	assert_true(c.elapsed_ms >= 200);
	gp_child_free(&c);
}

/* A grandchild in a session of its own (out of the group first) keeps the pipe 10 s. */
static int leave_a_holder(void *arg)
{
	int ready[2];
	char c;

	(void)arg;
	if (pipe(ready) < 0)
		return 1;
	if (fork() == 0) {
		setsid();
		close(ready[0]);
		close(ready[1]);
		sleep(10);
		_exit(0);
	}
	close(ready[1]);
	return read(ready[0], &c, 1) == 0 ? 0 : 1;
}

/* Ends at the grace (200 ms) after the child, far from the 4 s deadline however loaded. */
static void a_holder_holds_the_caller_for_the_grace_only(void **state)
{
	struct gp_child_opts o = quick;
	struct gp_child c;

	(void)state;
	o.timeout_ms = 4000;
	assert_int_equal(gp_child_start(&c, &o, leave_a_holder, NULL), 0);
	assert_int_equal(gp_child_wait(&c), 0);
	assert_true(c.held_open);
	assert_false(c.timed_out);
	assert_true(c.elapsed_ms < o.timeout_ms / 2);
	gp_child_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stdin_is_dev_null_not_the_callers),
		cmocka_unit_test(the_deadline_is_timeout_ms_from_the_start),
		cmocka_unit_test(a_holder_holds_the_caller_for_the_grace_only),
	};
	return cmocka_run_group_tests_name("child-limits", tests, NULL, NULL);
}
