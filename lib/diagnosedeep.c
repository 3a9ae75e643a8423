/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The findings of probe --deep. */
#include "diagnose.h"

void gp_diagnose_deep(const struct gp_probe_result *r, const struct gp_expect *e,
		      struct gp_findings *f)
{
	(void)r;
	(void)e;
	(void)f;
}
