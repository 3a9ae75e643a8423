/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the Proxmox config reader and editor. Any input must be either
 * refused or parsed, and then adding and removing our lines must give back the same
 * bytes, with every section after the current one untouched.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/pveconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const lines[] = { "lxc.cgroup2.devices.allow: c 195:0 rwm",
					     "dev7: /dev/nvidia0,mode=0666" };
	struct gp_pveconf c, d;
	char *added, *removed;
	bool changed;

	if (gp_pveconf_parse((const char *)data, size, &c) < 0)
		return 0;
	/* Inputs that already hold our lines would lose them: not a round trip to check. */
	if (memmem(data, size, "c 195:0 rwm", 11) || memmem(data, size, "dev7:", 5))
		return 0;
	added = gp_pveconf_edit(&c, lines, 2, lines, 2, &changed);
	if (!added || gp_pveconf_parse(added, strlen(added), &d) < 0)
		abort();
	if (d.len - d.current_end != c.len - c.current_end ||
	    memcmp(added + d.current_end, data + c.current_end, c.len - c.current_end))
		abort();
	removed = gp_pveconf_edit(&d, lines, 2, NULL, 0, &changed);
	if (!removed || strlen(removed) != size || memcmp(removed, data, size))
		abort();
	free(added);
	free(removed);
	return 0;
}
