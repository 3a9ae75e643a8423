/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/diagnose/diagnose.c. */
#ifndef GP_DIAGNOSE_H
#define GP_DIAGNOSE_H

#include <stdbool.h>

#include "diagnose/deep.h"
#include "diagnose/expect.h"
#include "diagnose/findings.h"
#include "diagnose/proberun.h"
#include "host/hmm.h"
#include "host/host.h"
#include "plan/plan.h"

/* True when the verdict on HMM matters for this result (cuInit gave 3 or hung). */
bool gp_diagnose_needs_hmm(const struct gp_probe_result *r);

/*
 * Joins the probe's result with the host's evidence into findings, each with its fix,
 * and sets r->status: ok only when cuInit succeeded, every selected GPU is visible and
 * no other, and no error was found.
 */
void gp_diagnose(struct gp_probe_result *r, const struct gp_expect *e, struct gp_findings *f);

#endif
