/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /etc/fake-cuda, the file in a container that says what the test doubles of the driver's
 * libraries do (tests/fakecuda, tests/fakedriver): one word a line, then its arguments.
 * Each double reads it on first use, takes its own words and passes over the others'.
 * The devices, "device PCI UUID" (UUID as GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx), are
 * every double's. Included by each double: no library of its own to load.
 */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define FAKE_CUDA_FILE "/etc/fake-cuda"
#define FAKE_MAX_DEVICES 16

struct fake_device {
	char pci[64];
	unsigned char uuid[16];
};

/* Calls line() with each line's first word and the rest; nothing when there is no file. */
static inline void fake_cuda_read(void (*line)(const char *word, const char *args))
{
	FILE *f = fopen(FAKE_CUDA_FILE, "r");
	char text[256], word[32];
	int at;

	if (!f)
		return;
	while (fgets(text, sizeof(text), f))
		if (sscanf(text, "%31s%n", word, &at) == 1)
			line(word, text + at);
	fclose(f);
}

static inline int fake_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* GPU-xxxxxxxx-... into 16 bytes; it stops at the first character that is not hex. */
static inline void fake_uuid_parse(const char *s, unsigned char *out)
{
	int k = 0;

	if (strncmp(s, "GPU-", 4) == 0)
		s += 4;
	for (; *s && k < 16; s++) {
		if (*s == '-')
			continue;
		if (fake_hex(s[0]) < 0 || fake_hex(s[1]) < 0)
			return;
		out[k++] = (unsigned char)(fake_hex(s[0]) << 4 | fake_hex(s[1]));
		s++;
	}
}

/* A "device" line's device added to devices (*n of them so far); false for other words. */
static inline bool fake_cuda_device(const char *word, const char *args, struct fake_device *devices,
				    int *n)
{
	char uuid[64];

	if (strcmp(word, "device") != 0 || *n >= FAKE_MAX_DEVICES ||
	    sscanf(args, "%63s %63s", devices[*n].pci, uuid) != 2)
		return false;
	fake_uuid_parse(uuid, devices[*n].uuid);
	(*n)++;
	return true;
}

#endif
