/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The double of libcuda.c whose "hang" (in /etc/fake-cuda) is spent in state D: cuInit
 * vforks a child that never execs, and a vfork parent waits in the kernel, killable but
 * uninterruptible (TASK_KILLABLE, "D" in /proc/PID/stat), as a cuInit stuck in the
 * driver does. Everything else is libcuda.c's.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int vfork_pause(void);
#define pause vfork_pause
#include "libcuda.c"
#undef pause

static int vfork_pause(void)
{
	if (vfork() == 0)
		for (;;)
			pause();
	return -1;
}
