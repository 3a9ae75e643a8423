/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Container text made safe for a terminal (escape.h). */
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"

/* One byte as it is shown: at most 4 characters and a NUL in out. */
static void escape_byte(unsigned char c, bool keep_newlines, char out[5])
{
	if (c == '\t')
		strcpy(out, "\\t");
	else if (c == '\n')
		strcpy(out, keep_newlines ? "\n" : "\\n");
	else if (c >= 0x20 && c < 0x7f)
		out[0] = (char)c, out[1] = '\0';
	else
		snprintf(out, 5, "\\x%02x", c);
}

void gp_escape(char *dst, size_t size, const char *src, size_t len, bool keep_newlines)
{
	size_t used = 0;

	if (size == 0)
		return;
	for (size_t i = 0; i < len; i++) {
		char e[5];
		size_t n;

		escape_byte((unsigned char)src[i], keep_newlines, e);
		n = strlen(e);
		if (used + n >= size)
			break;
		memcpy(dst + used, e, n);
		used += n;
	}
	dst[used] = '\0';
}

char *gp_escape_dup(const char *src, size_t len, bool keep_newlines)
{
	size_t size = 4 * len + 1;
	char *dst = malloc(size);

	if (dst)
		gp_escape(dst, size, src, len, keep_newlines);
	return dst;
}

void gp_escape_fputs(const char *s, FILE *f)
{
	char *e = gp_escape_dup(s, strlen(s), true);

	if (e)
		fputs(e, f);
	free(e);
}
