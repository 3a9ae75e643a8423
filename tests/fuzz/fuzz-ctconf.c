/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the per-container ini reader (inih under our line reader). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_ctconf c;
	char *buf = malloc(size + 1);

	memcpy(buf, data, size);
	buf[size] = '\0';
	gp_ctconf_parse(buf, "fuzz.ini", &c);
	free(buf);
	return 0;
}
