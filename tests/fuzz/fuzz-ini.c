/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the per-container ini reader (inih under our line reader), and its
 * writer: what is read is written back as text that reads the same.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ini.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Two things the writer cannot give back, known and left to the callers: a line over
 * what the reader takes ("devices=" and 190 characters grows by the blanks around '=';
 * inih's 200-byte buffer also holds the newline and the NUL, so 198), and a value that
 * begins with ';', a comment once the writer puts a blank before it.
 */
static bool readable(const char *text)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		if (n > GP_INI_MAX_LINE || (n >= 3 && memmem(p, n, "= ;", 3)))
			return false;
		p += n + (p[n] == '\n');
	}
	return true;
}

static void round_trip(const struct gp_ini *c)
{
	struct gp_ini again;
	char *text = gp_ini_format(c), *text2;

	if (!text)
		abort();
	if (!readable(text)) {
		free(text);
		return;
	}
	if (gp_ini_parse(text, "fuzz.ini", &again) != 0)
		abort();
	text2 = gp_ini_format(&again);
	if (!text2 || strcmp(text, text2) != 0)
		abort();
	free(text2);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_ini c;
	char *buf = malloc(size + 1);

	memcpy(buf, data, size);
	buf[size] = '\0';
	if (gp_ini_parse(buf, "fuzz.ini", &c) == 0)
		round_trip(&c);
	gp_ini_parse_as(buf, "fuzz.conf", GP_CONF_HOST, &c);
	free(buf);
	return 0;
}
