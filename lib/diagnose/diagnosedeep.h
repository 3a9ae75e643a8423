/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/diagnose/diagnosedeep.c. */
#ifndef GP_DIAGNOSEDEEP_H
#define GP_DIAGNOSEDEEP_H

#include <stdbool.h>

#include "diagnose/deep.h"
#include "diagnose/expect.h"
#include "diagnose/findings.h"
#include "diagnose/proberun.h"

/*
 * The findings of --deep: one per kind of failure, the devices it
 * hit named in its evidence, with the fix for its code. A library the container lacks is
 * an error where its ini injects that capability, else said for information.
 */
void gp_diagnose_deep(const struct gp_probe_result *r, const struct gp_expect *e,
		      struct gp_findings *f);

/* Whether the hook gives the container capability c's libraries (its ini's injection). */
bool gp_deep_cap_injected(const struct gp_expect *e, enum gp_deep_cap c);

#endif
