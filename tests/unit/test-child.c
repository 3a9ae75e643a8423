/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one runner: what a child is cut off from, and that its caller keeps its deadline. */
#include "unit.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/sysmacros.h>

#include "base/child.h"

static const struct gp_child_opts quick = { .timeout_ms = 5000, .output_max = 4096 };

static int say_hello(void *arg)
{
	(void)arg;
	printf("hello\n");
	fprintf(stderr, "to stderr\n");
	return 7;
}

static void output_and_exit_code_come_back(void **state)
{
	struct gp_child c;

	(void)state;
	assert_int_equal(gp_child_start(&c, &quick, say_hello, NULL), 0);
	assert_int_equal(gp_child_wait(&c), -EIO);
	assert_true(c.reaped);
	assert_int_equal(c.exit_code, 7);
	assert_string_equal(c.out, "hello\n");
	assert_string_equal(c.err, "to stderr\n");
	assert_false(c.timed_out || c.held_open || c.truncated);
	gp_child_free(&c);
}

/* What the child holds: its session, its stdin, its descriptors, its environment. */
static int describe_self(void *arg)
{
	struct stat in;
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	extern char **environ;

	(void)arg;
	fstat(STDIN_FILENO, &in);
	printf("leader %d\n", getsid(0) == getpid() && getpgrp() == getpid());
	printf("dumpable %d\n", prctl(PR_GET_DUMPABLE));
	printf("tty %d\n", open("/dev/tty", O_RDWR) < 0 ? errno : 0);
	printf("stdin %u:%u\n", major(in.st_rdev), minor(in.st_rdev));
	printf("fds");
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
			printf(" %s", e->d_name);
	printf("\n");
	for (char **v = environ; *v; v++)
		printf("env %.4s\n", *v);
	return 0;
}

static void the_child_is_cut_off(void **state)
{
	int spare = open("/dev/null", O_RDONLY); /* not close-on-exec: it must still not pass */
	int kept = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct gp_child_opts o = quick;
	struct gp_child c;
	char want[64];

	(void)state;
	setenv("LD_PRELOAD", "/nonexistent.so", 1);
	o.keep_fds = &kept;
	o.nkeep = 1;
	assert_int_equal(gp_child_start(&c, &o, describe_self, NULL), 0);
	assert_int_equal(gp_child_wait(&c), 0);
	unsetenv("LD_PRELOAD");
	assert_non_null(strstr(c.out, "leader 1\n"));
	assert_non_null(strstr(c.out, "dumpable 0\n"));
	assert_non_null(strstr(c.out, "tty 6\n")); /* ENXIO: no controlling terminal */
	assert_non_null(strstr(c.out, "stdin 1:3\n"));
	snprintf(want, sizeof(want), "fds 0 1 2 %d\n", kept);
	assert_non_null(strstr(c.out, want));
	assert_non_null(strstr(c.out, "env PATH\n"));
	assert_null(strstr(c.out, "env LD_P"));
	gp_child_free(&c);
	close(spare);
	close(kept);
}

static int describe_stdin(void *arg)
{
	struct stat st;

	(void)arg;
	if (fstat(STDIN_FILENO, &st) < 0)
		return 1;
	printf("%s %u:%u\n", S_ISCHR(st.st_mode) ? "chr" : "other", major(st.st_rdev),
	       minor(st.st_rdev));
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
	printf("started\n");
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}

static void the_deadline_holds(void **state)
{
	struct gp_child_opts o = quick;
	struct gp_child c;

	(void)state;
	o.timeout_ms = 300;
	assert_int_equal(gp_child_start(&c, &o, sleep_forever, NULL), 0);
	assert_true(c.deadline_ms == c.start_ms + 300); /* from its start, and no more */
	assert_int_equal(gp_child_wait(&c), -EIO);
	assert_true(c.timed_out);
	assert_true(c.elapsed_ms >= 300);
	assert_int_equal(c.state, 'S');
	assert_true(c.reaped);
	assert_int_equal(c.signal, SIGKILL);
	assert_string_equal(c.out, "started\n");
	gp_child_free(&c);
}

/* A grandchild in a session of its own keeps the pipe: the caller stops reading anyway. */
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
		close(ready[1]); /* now out of the group: let the child end */
		sleep(30);
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 0)
		return 1;
	printf("done\n");
	return 0;
}

static void a_holder_does_not_hold_the_caller(void **state)
{
	struct gp_child c;

	(void)state;
	assert_int_equal(gp_child_start(&c, &quick, leave_a_holder, NULL), 0);
	assert_int_equal(gp_child_wait(&c), 0);
	assert_true(c.held_open);
	assert_false(c.timed_out);
	/* Let go at the grace after the child: far from the deadline, however loaded. */
	assert_true(c.elapsed_ms < quick.timeout_ms / 2);
	assert_string_equal(c.out, "done\n");
	gp_child_free(&c);
}

/* One in the child's own group is killed with it, and reaped by us. */
static int leave_a_sleeper(void *arg)
{
	(void)arg;
	if (fork() == 0) {
		sleep(30);
		_exit(0);
	}
	return 0;
}

static void the_group_goes_with_the_child(void **state)
{
	struct gp_child c;
	pid_t pgid;

	(void)state;
	assert_int_equal(gp_child_start(&c, &quick, leave_a_sleeper, NULL), 0);
	pgid = c.pid;
	assert_int_equal(gp_child_wait(&c), 0);
	assert_false(c.held_open);
	assert_int_equal(kill(-pgid, 0), -1);
	assert_int_equal(errno, ESRCH);
	gp_child_free(&c);
}

static int flood(void *arg)
{
	static const char line[] =
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n";

	(void)arg;
	for (;;)
		if (write(STDOUT_FILENO, line, sizeof(line) - 1) < 0)
			return 1;
}

static void output_is_bounded(void **state)
{
	struct gp_child_opts o = quick;
	struct gp_child c;

	(void)state;
	o.overflow_kills = true;
	assert_int_equal(gp_child_start(&c, &o, flood, NULL), 0);
	gp_child_wait(&c);
	assert_true(c.truncated);
	assert_false(c.timed_out);
	assert_int_equal(c.out_len, o.output_max);
	assert_int_equal(c.signal, SIGKILL);
	gp_child_free(&c);
}

static void exec_finds_on_path(void **state)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)"echo \"$PATH\"; env | wc -l", NULL };
	struct gp_child c;

	(void)state;
	setenv("PATH", "/usr/bin:/bin", 1);
	setenv("SECRET", "x", 1);
	assert_int_equal(gp_child_start(&c, &quick, gp_child_exec, argv), 0);
	assert_int_equal(gp_child_wait(&c), 0);
	unsetenv("SECRET");
	/* sh adds PWD (and may add SHLVL, _): at most those besides PATH */
	assert_memory_equal(c.out, "/usr/bin:/bin\n", 14);
	assert_true(atoi(c.out + 14) <= 4);
	gp_child_free(&c);
}

static void named_variables_are_kept(void **state)
{
	static const char *const keep[] = { "http_proxy", NULL };
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)"echo \"[$http_proxy][$SECRET]\"",
			 NULL };
	struct gp_child_opts o = quick;
	struct gp_child c;

	(void)state;
	o.keep_env = keep;
	setenv("http_proxy", "http://proxy:3128", 1);
	setenv("SECRET", "x", 1);
	assert_int_equal(gp_child_start(&c, &o, gp_child_exec, argv), 0);
	assert_int_equal(gp_child_wait(&c), 0);
	unsetenv("SECRET");
	unsetenv("http_proxy");
	assert_string_equal(c.out, "[http://proxy:3128][]\n");
	gp_child_free(&c);
}

/* A caller started with 0, 1 or 2 closed: it is /dev/null again, not the next file opened. */
static void closed_stdio_is_taken_again(void **state)
{
	(void)state;
	for (int fd = 0; fd < 3; fd++) {
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			struct stat st;

			close(fd);
			gp_stdio_ensure();
			_exit(fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
				      major(st.st_rdev) == 1 && minor(st.st_rdev) == 3
				  ? 0
				  : 1);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail_msg("descriptor %d closed: not /dev/null after gp_stdio_ensure", fd);
	}
}

static void several_at_once(void **state)
{
	struct gp_child a, b;
	struct gp_child *both[] = { &a, &b };
	struct gp_child_opts slow = quick;

	(void)state;
	slow.timeout_ms = 300;
	assert_int_equal(gp_child_start(&a, &quick, say_hello, NULL), 0);
	assert_int_equal(gp_child_start(&b, &slow, sleep_forever, NULL), 0);
	while (!a.done || !b.done)
		gp_children_step(both, 2, -1);
	assert_int_equal(a.exit_code, 7);
	assert_true(b.timed_out);
	gp_child_free(&a);
	gp_child_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(output_and_exit_code_come_back),
		cmocka_unit_test(the_child_is_cut_off),
		cmocka_unit_test(stdin_is_dev_null_not_the_callers),
		cmocka_unit_test(the_deadline_holds),
		cmocka_unit_test(a_holder_does_not_hold_the_caller),
		cmocka_unit_test(the_group_goes_with_the_child),
		cmocka_unit_test(output_is_bounded),
		cmocka_unit_test(exec_finds_on_path),
		cmocka_unit_test(named_variables_are_kept),
		cmocka_unit_test(closed_stdio_is_taken_again),
		cmocka_unit_test(several_at_once),
	};
	return cmocka_run_group_tests_name("child", tests, NULL, NULL);
}
