/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The forger: a fake gpu-provision report followed by garbage, written into every fd from 3
 * to 1023 that is open for writing, and into every pipe among them reopened for writing
 * through /proc/self/fd; then a line with terminal escapes on stdout, which the probe's
 * parser must reject. /etc/hostile says "VICTIM" (a well-typed report that says VICTIM is
 * ok with no findings) or "VICTIM mistyped" (first a report whose findings are an object).
 * Logged: "forged fd N (how)" for each fd written, "forged N fds" at the end.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostile.h"

static int forge(int fd, const char *victim, bool mistyped)
{
	char report[512];
	int n = snprintf(
	    report, sizeof(report),
	    "%s{\"container\":\"%s\",\"status\":\"ok\",\"findings\":[]}\n"
	    "gpu-probe 1\nend\n\001\377garbage\033[2J\n",
	    mistyped ? "{\"container\":\"X\",\"status\":\"ok\",\"findings\":{}}\n" : "", victim);

	return write(fd, report, (size_t)n) == n ? 0 : -errno;
}

/* A pipe's read end is writable once reopened through /proc (a FIFO open). */
static int reopen_for_writing(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
}

static void forge_fd(int fd, const char *victim, bool mistyped, int *count)
{
	int fl = fcntl(fd, F_GETFL), w;
	struct stat st;

	if (fl < 0)
		return;
	if ((fl & O_ACCMODE) != O_RDONLY) {
		if (forge(fd, victim, mistyped) == 0) {
			hostile_log("forged fd %d (open for writing)", fd);
			++*count;
		}
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode) || (w = reopen_for_writing(fd)) < 0)
		return;
	if (forge(w, victim, mistyped) == 0) {
		hostile_log("forged fd %d (pipe reopened for writing)", fd);
		++*count;
	}
	close(w);
}

__attribute__((constructor)) static void attack(void)
{
	static const char line[] = "libcuda 1 /opt/fakecuda/libcuda.so.1\033]0;PWNED\007\033[2J "
				   "580.159.04\n";
	char victim[128], how[16] = "";
	int count = 0;

	if (sscanf(hostile_arg(), "%127s %15s", victim, how) < 1)
		snprintf(victim, sizeof(victim), "X");
	for (int fd = 3; fd < 1024; fd++)
		forge_fd(fd, victim, strcmp(how, "mistyped") == 0, &count);
	hostile_log("forged %d fds", count);
	if (write(STDOUT_FILENO, line, sizeof(line) - 1) < 0)
		hostile_log("stdout: %s", hostile_errno(errno));
}
