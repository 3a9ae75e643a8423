/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every hostile library shares: its log and its argument (tests/hostile/hostile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"

void hostile_log(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int fd, n, saved = errno;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	fd = open(HOSTILE_LOG, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) < 0)
			n = 0;
		close(fd);
	}
	errno = saved;
}

const char *hostile_errno(int e)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{ EPERM, "EPERM" },   { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
		{ EIO, "EIO" },	      { ENXIO, "ENXIO" },   { EBADF, "EBADF" },
		{ EAGAIN, "EAGAIN" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" },
		{ ENODEV, "ENODEV" }, { EINVAL, "EINVAL" }, { ENOTTY, "ENOTTY" },
		{ EPIPE, "EPIPE" },   { ELOOP, "ELOOP" },   { EINTR, "EINTR" },
	};
	static char other[16];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	snprintf(other, sizeof(other), "E%d", e);
	return other;
}

const char *hostile_arg(void)
{
	static char arg[128];
	FILE *f = fopen("/etc/hostile", "re");

	arg[0] = '\0';
	if (!f)
		return arg;
	if (fgets(arg, sizeof(arg), f))
		arg[strcspn(arg, "\n")] = '\0';
	fclose(f);
	return arg;
}
