/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spawn-pair N SETUP A... -- B...: runs program A and program B N times each, in pairs whose
 * order turns every round, each after the shell command SETUP (not timed; "" for none), and
 * prints the median wall time of A, of B and of A minus B over the pairs, in microseconds:
 * what A costs beyond B, with the machine's load met by both. Fails when a run fails.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static int cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

static long median(long *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

/* One run of argv after setup: its wall time in microseconds, or -1 when it failed. */
static long run(const char *setup, char **argv)
{
	struct timespec t0, t1;
	pid_t pid;
	int status;

	if (setup[0] && system(setup) != 0) {
		fprintf(stderr, "spawn-pair: setup \"%s\" failed\n", setup);
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0 ||
	    waitpid(pid, &status, 0) < 0) {
		perror(argv[0]);
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "spawn-pair: %s failed (status %d)\n", argv[0], status);
		return -1;
	}
	return (t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
}

int main(int argc, char **argv)
{
	char **a, **b = NULL;
	long *ta, *tb, *td;
	int n;

	if (argc < 6 || (n = atoi(argv[1])) < 1)
		goto usage;
	a = argv + 3;
	for (int i = 3; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			argv[i] = NULL;
			b = argv + i + 1;
		}
	if (!b || !b[0] || a == b - 1)
		goto usage;
	ta = calloc((size_t)n, sizeof(long));
	tb = calloc((size_t)n, sizeof(long));
	td = calloc((size_t)n, sizeof(long));
	if (!ta || !tb || !td)
		return 1;
	for (int i = 0; i < n; i++) {
		if (i % 2) {
			tb[i] = run(argv[2], b);
			ta[i] = run(argv[2], a);
		} else {
			ta[i] = run(argv[2], a);
			tb[i] = run(argv[2], b);
		}
		if (ta[i] < 0 || tb[i] < 0)
			return 1;
		td[i] = ta[i] - tb[i];
	}
	printf("%ld %ld %ld\n", median(ta, n), median(tb, n), median(td, n));
	return 0;
usage:
	fprintf(stderr, "usage: spawn-pair N SETUP A... -- B...\n");
	return 2;
}
