/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the probe's output parser, which reads what a container wrote. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_probe_result *r = calloc(1, sizeof(*r));
	char *buf = malloc(size + 1);

	memcpy(buf, data, size);
	buf[size] = '\0';
	if (gp_probe_parse(buf, r) == 0 && (r->nnodes > GP_PLAN_MAX_NODES ||
					    r->ndevices > GP_PROBE_MAX_DEVICES))
		abort();
	free(buf);
	free(r);
	return 0;
}
