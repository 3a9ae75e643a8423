/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/plan/select.c. */
#ifndef GP_SELECT_H
#define GP_SELECT_H

#include <stdbool.h>

#include "host/facts.h"

/*
 * A portable selection: N GPUs of any model (any:N), or N whose model name contains TEXT,
 * case-insensitively (model:TEXT:N). It means the same on every node of a cluster: which
 * GPUs it gets is decided at each start, among the node's GPUs no other container holds.
 */
#define GP_PORTABLE_MODEL_MAX 64
struct gp_portable {
	unsigned int count;
	char model[GP_PORTABLE_MODEL_MAX]; /* "" for any */
};

/* True when spec (blanks around it aside) is written as one: "any:..." or "model:...". */
bool gp_selection_is_portable(const char *spec);

/* Parses a portable selection: 0, or -GP_EBADCONF said after where (NULL for none). */
int gp_portable_parse(const char *spec, const char *where, struct gp_portable *p);

/* True when gpu may be one of p's: not excluded by the driver, its model matching. */
bool gp_portable_matches(const struct gp_portable *p, const struct gp_gpu *gpu);

#endif
