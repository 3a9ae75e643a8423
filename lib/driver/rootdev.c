/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* No data lost: what is on a device or image before it is formatted for a rootfs. */
#include <blkid/blkid.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "driver/rootdev.h"

static void blkid_free_probep(blkid_probe *p)
{
	if (*p)
		blkid_free_probe(*p);
}

/*
 * The signatures found one by one, as wipefs finds them (at most 16), or -1 where path
 * cannot be probed: libblkid 2.41's safe probe gives -1, not -2, for two of them.
 */
static int count_signatures(const char *path)
{
	__attribute__((cleanup(blkid_free_probep))) blkid_probe pr =
	    blkid_new_probe_from_filename(path);
	int n = 0;

	if (!pr)
		return -1;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_MAGIC);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	while (n < 16 && blkid_do_probe(pr) == 0)
		n++;
	return n;
}

int gp_rootdev_check(const char *path, bool force, char *what, size_t size)
{
	__attribute__((cleanup(blkid_free_probep))) blkid_probe pr =
	    blkid_new_probe_from_filename(path);
	const char *type = NULL;
	int r;

	snprintf(what, size, "nothing");
	if (!pr) {
		gp_error("Failed to open \"%s\" for probing: %m", path);
		return errno ? -errno : -EIO;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	r = blkid_do_safeprobe(pr);
	if (r == -2 || (r < 0 && count_signatures(path) > 1)) {
		snprintf(what, size, "several signatures");
		gp_error("\"%s\" carries several signatures (an ambiguous probe): refusing to "
			 "format it; inspect it with wipefs -n %s",
			 path, path);
		return -EUCLEAN;
	}
	if (r < 0) {
		gp_error("Failed to probe \"%s\"", path);
		return -EIO;
	}
	if (r == 1)
		return 0;
	if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0)
		snprintf(what, size, "%s filesystem", type);
	else if (blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL) == 0)
		snprintf(what, size, "%s partition table", type);
	else
		snprintf(what, size, "a signature");
	if (force) {
		gp_warn("\"%s\" holds %s: overwriting it, as --force says", path, what);
		return 0;
	}
	gp_error("\"%s\" holds %s: refusing to format it (its data would be lost); give --force "
		 "to overwrite it anyway",
		 path, what);
	return -EEXIST;
}
