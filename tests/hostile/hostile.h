/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Hostile stand-ins for a container's libcuda.so.1: each is the test double of
 * tests/fakecuda (so gpu-probe loads it and reports as usual) plus one attack, run from
 * a constructor, that is, when gpu-probe dlopens the library inside the container. What
 * the attack managed goes to /tmp/hostile.log inside the container, one fact a line.
 * Owned by log.c.
 */
#ifndef HOSTILE_H
#define HOSTILE_H

#define HOSTILE_LOG "/tmp/hostile.log"

/* Appends one line to HOSTILE_LOG; opens and closes it each time, so it holds no fd. */
void hostile_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The symbolic name of an errno value ("ENXIO"), or "E<n>" for one not in the table. */
const char *hostile_errno(int e);

/* The first line of /etc/hostile in the container (the test's choice), or "". */
const char *hostile_arg(void);

#endif
