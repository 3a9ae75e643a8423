/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The binary's seals: what the probe's own executable is, as code inside it sees it
 * through /proc/self/exe, and whether that code can change it. Logged: "exe TARGET",
 * "seals write grow shrink seal" (the seals present, by name, or "seals ERRNO"),
 * "add-seal ERRNO|ok", "open-rw ERRNO|ok", "write ERRNO|ok", "truncate ERRNO|ok".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"

static const char *result(int r)
{
	return r < 0 ? hostile_errno(errno) : "ok";
}

static void log_seals(int fd)
{
	char names[128] = "seals";
	int s = fcntl(fd, F_GET_SEALS);

	if (s < 0) {
		hostile_log("seals %s", hostile_errno(errno));
		return;
	}
	if (s & F_SEAL_WRITE)
		strcat(names, " write");
	if (s & F_SEAL_GROW)
		strcat(names, " grow");
	if (s & F_SEAL_SHRINK)
		strcat(names, " shrink");
	if (s & F_SEAL_SEAL)
		strcat(names, " seal");
	hostile_log("%s", names);
}

__attribute__((constructor)) static void attack(void)
{
	char target[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", target, sizeof(target) - 1);
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), rw;

	target[n > 0 ? n : 0] = '\0';
	hostile_log("exe %s", target);
	if (fd < 0) {
		hostile_log("open %s", hostile_errno(errno));
		return;
	}
	log_seals(fd);
	hostile_log("add-seal %s", result(fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE)));
	rw = open("/proc/self/exe", O_RDWR | O_CLOEXEC);
	hostile_log("open-rw %s", result(rw));
	if (rw >= 0) {
		hostile_log("write %s", result((int)pwrite(rw, "\177ELF", 4, 0)));
		hostile_log("truncate %s", result(ftruncate(rw, 0)));
		close(rw);
	}
	close(fd);
}
