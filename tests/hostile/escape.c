/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Terminal escapes in reported strings: the libcuda line of gpu-probe's report, its path
 * carrying a title escape (ESC ] 0 ; PWNED BEL) and a screen clear (ESC [ 2 J), written to
 * stdout as the probe's own line would be; and, into every fd from 3 up that is open for
 * writing, a report in gpu-provision's JSON whose finding carries the same escapes as
 * JSON \u escapes. Logged: "escape written", "json escape into fd N".
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"

static void json_into_fds(void)
{
	static const char report[] =
	    "{\"container\":\"xesc\",\"status\":\"failed\",\"findings\":[{\"id\":\"cuinit-failed\","
	    "\"summary\":\"\\u001b]0;PWNED\\u0007\",\"evidence\":\"\\u001b[2J\",\"fix\":\"\"}]}\n";

	for (int fd = 3; fd < 1024; fd++) {
		int fl = fcntl(fd, F_GETFL);

		if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
			continue;
		if (write(fd, report, sizeof(report) - 1) > 0)
			hostile_log("json escape into fd %d", fd);
	}
}

__attribute__((constructor)) static void attack(void)
{
	static const char line[] = "libcuda 1 /opt/fakecuda/libcuda.so.1\033]0;PWNED\007\033[2J "
				   "580.159.04\n";

	json_into_fds();
	if (write(STDOUT_FILENO, line, sizeof(line) - 1) < 0)
		hostile_log("stdout: %s", hostile_errno(errno));
	else
		hostile_log("escape written");
}
