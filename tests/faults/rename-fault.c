/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test double of rename(2), preloaded (LD_PRELOAD) into gpu-provision by the integration
 * tests (t-edits.sh) to put a fault or a pause between attach's writes:
 *   GP_FAULT_RENAME_SUFFIX=S GP_FAULT_RENAME_NTH=N  the Nth rename() onto a path ending
 *                                                   in S fails with EIO, renaming nothing
 *   GP_FAULT_PAUSE_SUFFIX=S GP_FAULT_PAUSE_DIR=D     the first rename() onto a path ending
 *                                                   in S makes D/paused, then waits (30 s
 *                                                   at most) for D/go before it renames
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int rename(const char *from, const char *to);

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return m && n >= m && strcmp(s + n - m, suffix) == 0;
}

static int should_fail(const char *to)
{
	const char *suffix = getenv("GP_FAULT_RENAME_SUFFIX");
	const char *nth = getenv("GP_FAULT_RENAME_NTH");
	static int seen;

	if (!suffix || !nth || !ends_with(to, suffix))
		return 0;
	return ++seen == atoi(nth);
}

static void maybe_pause(const char *to)
{
	const char *suffix = getenv("GP_FAULT_PAUSE_SUFFIX");
	const char *dir = getenv("GP_FAULT_PAUSE_DIR");
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	char path[4096];
	static int done;

	if (done || !suffix || !dir || !ends_with(to, suffix))
		return;
	done = 1;
	snprintf(path, sizeof(path), "%s/paused", dir);
	close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	snprintf(path, sizeof(path), "%s/go", dir);
	for (int i = 0; i < 600 && access(path, F_OK) != 0; i++)
		nanosleep(&tick, NULL);
}

int rename(const char *from, const char *to)
{
	int (*real)(const char *, const char *) =
	    (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");

	if (should_fail(to)) {
		errno = EIO;
		return -1;
	}
	maybe_pause(to);
	return real(from, to);
}
