/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The slow one: a probe that stays 2 s in its libcuda's constructor, and says when, so a
 * test can count how many probes ran at once across containers. Logged: "start US" and
 * "end US", CLOCK_MONOTONIC in microseconds (one clock for every container of a host).
 */
#include <time.h>

#include "hostile.h"

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

__attribute__((constructor)) static void attack(void)
{
	struct timespec two = { 2, 0 };

	hostile_log("start %lld", now_us());
	while (nanosleep(&two, &two) != 0)
		;
	hostile_log("end %lld", now_us());
}
