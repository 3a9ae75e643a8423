/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The /proc/PID/exe watcher (CVE-2019-5736's way in): at the first probe it leaves a
 * child in a session of its own that, for 10 s, looks at every process in the container
 * and opens the executable of each new one, so it sees the processes of later attaches
 * before they exec. Logged once per executable: "watch exe TARGET: open ok|ERRNO"; at
 * the end "watch done".
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"

#define MAX_SEEN 32

static char seen[MAX_SEEN][256];
static int nseen;

static bool is_new(const char *exe)
{
	for (int i = 0; i < nseen; i++)
		if (strcmp(seen[i], exe) == 0)
			return false;
	if (nseen < MAX_SEEN)
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", exe);
	return true;
}

static void look(const char *pid)
{
	char path[64], exe[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%.16s/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n < 0)
		return;
	exe[n] = '\0';
	if (!is_new(exe))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	hostile_log("watch exe %s: open %s", exe, fd < 0 ? hostile_errno(errno) : "ok");
	if (fd >= 0)
		close(fd);
}

static void watch(void)
{
	for (int round = 0; round < 40000; round++) {
		DIR *d = opendir("/proc");
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (isdigit((unsigned char)e->d_name[0]))
				look(e->d_name);
		if (d)
			closedir(d);
		usleep(100);
	}
	hostile_log("watch done");
}

/* The watcher is in its own session before the probe goes on, so nothing of the probe's
 * ending (its process group killed) reaches it. */
__attribute__((constructor)) static void attack(void)
{
	int fd = open("/tmp/exewatch.started", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int ready[2];
	char c = 0;

	if (fd < 0 || pipe2(ready, O_CLOEXEC) < 0)
		return;
	close(fd);
	if (fork() != 0) {
		close(ready[1]);
		if (read(ready[0], &c, 1) < 0)
			hostile_log("watch: %s", hostile_errno(errno));
		close(ready[0]);
		return;
	}
	setsid();
	if (write(ready[1], &c, 1) < 0)
		_exit(1);
	for (int i = 0; i < 1024; i++)
		close(i);
	watch();
	_exit(0);
}
