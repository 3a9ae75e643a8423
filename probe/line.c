/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every line of the probe's output is made of. */
#include <stddef.h>

#include "probe.h"
#include "protocol.h"

/* Only what a line may carry: no blanks, no control characters, bounded. */
const char *probe_word(const char *s)
{
	static char buf[4][GP_PROBE_WORD_MAX];
	static int slot;
	char *out = buf[slot++ & 3];
	size_t i;

	for (i = 0; s && s[i] && i < sizeof(buf[0]) - 1; i++)
		out[i] = s[i] > ' ' && s[i] < 127 ? s[i] : '_';
	out[i] = '\0';
	return i ? out : "-";
}
