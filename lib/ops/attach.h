/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/ops/attach.c. */
#ifndef GP_ATTACH_H
#define GP_ATTACH_H

#include <stdbool.h>
#include <stddef.h>

#include "ops/attachopts.h"

/* What an attach changed in the container's config. */
struct gp_attach_changes {
	size_t removed, added; /* lines */
	bool changed;
};

/*
 * attach: writes <confdir>/<name>.ini and puts into the container's LXC config the
 * hook lines and exact device rules for today's majors. detach takes all of it out.
 * Both are idempotent. Return 0, -GP_EBADCONF for bad input (already explained), or
 * another -errno when an operation failed. changes (may be NULL) says what attach did.
 */
int gp_attach(const struct gp_attach_opts *o, struct gp_attach_changes *changes);
/*
 * adopt: attach with o->adopt, printing what it did (or, dry run, would do) as a diff,
 * and keeping the config as it was before as "<config>.gpu-provision-adopt.bak".
 */
int gp_adopt(const struct gp_attach_opts *o);
int gp_detach(const struct gp_attach_opts *o);

#endif
