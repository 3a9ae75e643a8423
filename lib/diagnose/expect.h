/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Header only: what a container should see, which the diagnosis holds its probe to. */
#ifndef GP_EXPECT_H
#define GP_EXPECT_H

#include <stdbool.h>

#include "diagnose/deep.h"
#include "diagnose/nestedrun.h"
#include "host/hmm.h"
#include "host/host.h"
#include "plan/plan.h"

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
	const struct gp_deep *deep;	/* --deep's verdicts, NULL without --deep */
	bool inject;			/* the hook gives it the host's driver user space */
	unsigned int capabilities;	/* and these of it: GP_CAP_BIT(enum gp_capability) */
	const struct gp_nested *nested; /* the probe ran in a nested container; NULL: not */
};

#endif
