/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/trust.c. */
#ifndef GP_TRUST_H
#define GP_TRUST_H

#include <stddef.h>

/*
 * A program that runs as root at every container start (gpu-hook, and the gpu-provision
 * the hook runs) must be root's, and so must every directory above it, none of them
 * writable by group or others: whoever can write any of them owns the host at the next
 * start (lib/trust.c). Puts the program's path without symlinks in real (which callers
 * use from then on, so that no link can be turned later). Returns 0, or -EINVAL (said,
 * with what to do) when the rule fails, or -errno when the path cannot be checked.
 */
int gp_trust_program(const char *path, char *real, size_t size);

#endif
