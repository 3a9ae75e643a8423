/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the loader's cache parser, on any bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/ldcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_ldcache c;

	if (gp_ldcache_parse((const char *)data, size, &c) != 0)
		return 0;
	/* What it keeps is a soname and an absolute path, each ending inside the input. */
	for (size_t i = 0; i < c.n; i++)
		if (c.v[i].soname < (const char *)data || c.v[i].path[0] != '/' ||
		    strchr(c.v[i].soname, '/') ||
		    c.v[i].path + strlen(c.v[i].path) >= (const char *)data + size)
			abort();
	gp_ldcache_free(&c);
	return 0;
}
