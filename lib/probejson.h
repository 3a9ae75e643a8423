/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/probejson.c. */
#ifndef GP_PROBEJSON_H
#define GP_PROBEJSON_H

#include <stddef.h>

#include "findings.h"

/*
 * Takes the report of "gpu-provision probe NAME --json" (lib/probejson.c): its status
 * into status ("ok", "failed" or "timeout") and its findings into f. Every value is
 * checked for its type and range before it is used, since the report passed through a
 * process that ran container code. Returns 0, or -EINVAL with why said in why (no
 * finding is taken from a report that fails a check).
 */
int gp_probe_json_take(const char *text, size_t len, char *status, size_t status_size,
		       struct gp_findings *f, char *why, size_t why_size);

#endif
