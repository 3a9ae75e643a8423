/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The forked holder: a child that keeps the probe's stdout and stderr open for 600 s while
 * the probe itself goes on and ends well. With "setsid" in /etc/hostile the child leaves
 * the probe's process group and session first. The probe goes on only once the holder is
 * in place (set up, logged), as an attacker would arrange. Logged by the parent: "holder
 * forked pid N"; by the holder: "holder pid N pgid N sid N".
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"

static void hold(int ready)
{
	char c = 0;

	if (strcmp(hostile_arg(), "setsid") == 0 && setsid() < 0)
		hostile_log("setsid: %s", hostile_errno(errno));
	hostile_log("holder pid %d pgid %d sid %d", (int)getpid(), (int)getpgid(0), (int)getsid(0));
	if (write(ready, &c, 1) < 0)
		_exit(1);
	close(ready);
	sleep(600);
	_exit(0);
}

__attribute__((constructor)) static void attack(void)
{
	int ready[2];
	pid_t pid;
	char c;

	if (pipe2(ready, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		hostile_log("fork: %s", hostile_errno(errno));
		return;
	}
	if (pid == 0) {
		close(ready[0]);
		hold(ready[1]);
	}
	close(ready[1]);
	hostile_log("holder forked pid %d", (int)pid);
	if (read(ready[0], &c, 1) != 1)
		hostile_log("holder not ready");
	close(ready[0]);
}
