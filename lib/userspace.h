/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/userspace.c. */
#ifndef GP_USERSPACE_H
#define GP_USERSPACE_H

#include <stdbool.h>
#include <stddef.h>

/* NVIDIA's names for what a container may be given of the driver's user space. */
enum gp_capability { GP_CAP_COMPUTE, GP_CAP_UTILITY, GP_CAP_VIDEO, GP_CAP_GRAPHICS, GP_CAP_COUNT };
const char *gp_capability_name(enum gp_capability c);

/* One driver library the host's loader cache names. */
struct gp_userspace_lib {
	enum gp_capability cap;
	char soname[64];  /* libcuda.so.1 */
	char path[256];	  /* where the cache says, under the root */
	char file[128];	  /* the file it is: libcuda.so.580.159.04 */
	char version[32]; /* the file's version suffix: 580.159.04 */
	bool matches;	  /* that version is the kernel module's */
};

#define GP_USERSPACE_MAX 128
struct gp_userspace {
	bool cache_found; /* <root>/etc/ld.so.cache was there and read */
	struct gp_userspace_lib v[GP_USERSPACE_MAX];
	size_t n;
};

/*
 * The driver's libraries on the host under root, from its loader cache, each with its
 * capability and whether its version is version (the kernel module's). No cache is not
 * an error (cache_found false). 0, or -errno for a cache that cannot be read or parsed
 * (said), or -E2BIG past GP_USERSPACE_MAX libraries.
 */
int gp_userspace_discover(const char *root, const char *version, struct gp_userspace *u);

#endif
