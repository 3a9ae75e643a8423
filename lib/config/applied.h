/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/config/applied.c. */
#ifndef GP_APPLIED_H
#define GP_APPLIED_H

#include <stddef.h>

/*
 * A container's .applied: the lines attach added to its config, one a line, so that detach
 * and sync take out exactly those and the hook can check the rules they allow. Beside its
 * ini (on Proxmox VE in the cluster filesystem), held to the same owner rule.
 */
#define GP_APPLIED_MAX_SIZE (256 * 1024)

/*
 * Reads the one at path (gp_applied_path_to_read's) into *text (malloc'd, NUL-ended): 0;
 * -ENOENT when there is none, said by no one; -GP_EBADCONF for a file to fix (its owner,
 * mode or size), said; another -errno, said.
 */
struct gp_ctx;
int gp_applied_read(const struct gp_ctx *ctx, const char *path, char **text);

/* The same without the owner rule and unsaid, for check's reading: NULL for none. */
char *gp_applied_peek(const char *path);

/* Writes text as it, durably, with the container files' mode: 0 or -errno, said. */
int gp_applied_write(const struct gp_ctx *ctx, const char *name, const char *text, size_t len);

#endif
