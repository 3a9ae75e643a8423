/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The inventory of what the attached process was handed: its open fds (the listing's own
 * fd left out), its executable, its parent's executable if the container can see it, and
 * its environment. Logged: "fds 0 1 2", "fd N -> TARGET", "exe TARGET",
 * "ppid N exe TARGET|ERRNO", "env NAME".
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"

extern char **environ;

static void log_link(const char *prefix, const char *path)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);

	if (n < 0) {
		hostile_log("%s %s", prefix, hostile_errno(errno));
		return;
	}
	target[n] = '\0';
	hostile_log("%s %s", prefix, target);
}

static void log_fds(void)
{
	char list[1024] = "fds", path[64], prefix[32];
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	size_t len = 3;

	if (!d) {
		hostile_log("opendir /proc/self/fd: %s", hostile_errno(errno));
		return;
	}
	while ((e = readdir(d)) && len < sizeof(list) - 16) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] == '.' || fd == dirfd(d))
			continue;
		len += (size_t)snprintf(list + len, sizeof(list) - len, " %d", fd);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		snprintf(prefix, sizeof(prefix), "fd %d ->", fd);
		log_link(prefix, path);
	}
	closedir(d);
	hostile_log("%s", list);
}

__attribute__((constructor)) static void attack(void)
{
	char path[64], prefix[32];
	pid_t ppid = getppid();

	log_fds();
	log_link("exe", "/proc/self/exe");
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)ppid);
	snprintf(prefix, sizeof(prefix), "ppid %d exe", (int)ppid);
	if (ppid > 0)
		log_link(prefix, path);
	else
		hostile_log("ppid 0 (outside the container's pid namespace)");
	for (char **e = environ; e && *e; e++)
		hostile_log("env %.*s", (int)strcspn(*e, "="), *e);
}
