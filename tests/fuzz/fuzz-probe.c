/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the probe's output parser, which reads what a container wrote, and
 * what --deep makes of it: the verdicts and their findings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/deep.h"
#include "diagnose/diagnose.h"
#include "diagnose/proberun.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void judge_and_diagnose(const struct gp_probe_result *r)
{
	static struct gp_host host = { .version = "580.159.04" };
	struct gp_deep *d = calloc(1, sizeof(*d));
	struct gp_findings *f = calloc(1, sizeof(*f));
	struct gp_expect e = { .name = "fuzz", .host = &host, .deep = d, .inject = true };

	gp_deep_judge(r, d);
	if (d->ndevices < 0 || d->ndevices > GP_PROBE_MAX_DEVICES)
		abort();
	for (int dev = 0; dev < d->ndevices; dev++)
		for (int c = 0; c < GP_DEEP_COUNT; c++)
			if (d->v[dev][c].status > GP_DEEP_FAILED ||
			    strnlen(d->v[dev][c].detail, sizeof(d->v[dev][c].detail)) ==
				sizeof(d->v[dev][c].detail))
				abort();
	gp_diagnose_deep(r, &e, f);
	free(f);
	free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_probe_result *r = calloc(1, sizeof(*r));
	char *buf = malloc(size + 1);

	memcpy(buf, data, size);
	buf[size] = '\0';
	/* As take_result does: what was parsed is judged, a refused line or not. */
	gp_probe_parse(buf, r);
	if (r->nnodes > GP_PLAN_MAX_NODES || r->ndevices > GP_PROBE_MAX_DEVICES ||
	    r->nsteps > GP_PROBE_MAX_STEPS)
		abort();
	judge_and_diagnose(r);
	r->timed_out = true; /* and as a probe the deadline stopped */
	judge_and_diagnose(r);
	free(buf);
	free(r);
	return 0;
}
