/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/diagnose.c. */
#ifndef GP_DIAGNOSE_H
#define GP_DIAGNOSE_H

#include <stdbool.h>

#include "deep.h"
#include "findings.h"
#include "hmm.h"
#include "host.h"
#include "plan.h"
#include "probe.h"

/* What the container should see, from its ini and the host. */
struct gp_expect {
	const char *name;
	bool attached; /* it has an ini: the GPU set below is known */
	const struct gp_plan *plan;
	const struct gp_host *host;
	const bool *chosen; /* [GP_MAX_GPUS]: host->gpus[i] was selected */
	const struct gp_hmm *hmm;
	int timeout_ms;
	bool fixture_host; /* --root: the driver is a capture, its nodes reach no driver here */
	const struct gp_deep *deep; /* --deep's verdicts, NULL without --deep */
	bool inject;		    /* the hook gives it the host's driver user space */
	unsigned int capabilities;  /* and these of it: GP_CAP_BIT(enum gp_capability) */
};

/* True when the verdict on HMM matters for this result (cuInit gave 3 or hung). */
bool gp_diagnose_needs_hmm(const struct gp_probe_result *r);

/*
 * Joins the probe's result with the host's evidence into findings, each with its fix,
 * and sets r->status: ok only when cuInit succeeded, every selected GPU is visible and
 * no other, and no error was found.
 */
void gp_diagnose(struct gp_probe_result *r, const struct gp_expect *e, struct gp_findings *f);

/*
 * The findings of --deep (lib/diagnosedeep.c): one per kind of failure, the devices it
 * hit named in its evidence, with the fix for its code. A library the container lacks is
 * an error where its ini injects that capability, else said for information.
 */
void gp_diagnose_deep(const struct gp_probe_result *r, const struct gp_expect *e,
		      struct gp_findings *f);

/* Whether the hook gives the container capability c's libraries (its ini's injection). */
bool gp_deep_cap_injected(const struct gp_expect *e, enum gp_deep_cap c);

#endif
