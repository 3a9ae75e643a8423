/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/diagnose/probejson.c. */
#ifndef GP_PROBEJSON_H
#define GP_PROBEJSON_H

#include <stdbool.h>
#include <stddef.h>

#include "diagnose/deep.h"
#include "diagnose/findings.h"

/* A verdict of the report's "capabilities" (probe --deep), checked. */
struct gp_probe_cap_row {
	char gpu[48]; /* GPU-<hex and dashes> */
	enum gp_deep_cap cap;
	enum gp_deep_status status;
	bool injected; /* the ini gives its libraries: a missing one is an error */
};

struct gp_probe_caps {
	struct gp_probe_cap_row *v; /* malloc'd */
	size_t n;
};

/*
 * Takes the report of "gpu-provision probe NAME --json" (lib/diagnose/probejson.c): its status
 * into status ("ok", "failed" or "timeout"), its findings into f and, when caps is not
 * NULL, its capabilities' verdicts into caps (none without --deep; free caps->v). Every value is
 * checked for its type and range before it is used, since the report passed through a
 * process that ran container code. Returns 0, or -GP_EBADCONF with why said in why (no
 * finding is taken from a report that fails a check).
 */
int gp_probe_json_take(const char *text, size_t len, char *status, size_t status_size,
		       struct gp_findings *f, struct gp_probe_caps *caps, char *why,
		       size_t why_size);

/* The most a probe's JSON report holds. */
#define GP_PROBE_JSON_MAX (1u << 20)

#endif
