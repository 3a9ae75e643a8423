/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The flood: 64 MiB of junk lines on stdout, then the double goes on as usual. The
 * runner keeps 64 KiB of the probe's output and kills it when it writes more, so the
 * flood never ends. Logged: "flood start", "flood wrote N" every 16 KiB, "flood done N"
 * (the cap did not hold), "flood write ERRNO" (the pipe went away).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"

#define FLOOD_TOTAL (64L << 20)
#define FLOOD_LOG_EVERY (16L << 10)

__attribute__((constructor)) static void attack(void)
{
	char line[1024];
	long total = 0, logged = 0;

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	hostile_log("flood start");
	while (total < FLOOD_TOTAL) {
		ssize_t n = write(STDOUT_FILENO, line, sizeof(line));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			hostile_log("flood write %s", hostile_errno(errno));
			return;
		}
		total += n;
		if (total - logged >= FLOOD_LOG_EVERY) {
			hostile_log("flood wrote %ld", total);
			logged = total;
		}
	}
	hostile_log("flood done %ld", total);
}
