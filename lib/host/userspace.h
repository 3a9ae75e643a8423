/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/host/userspace.c. */
#ifndef GP_USERSPACE_H
#define GP_USERSPACE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * NVIDIA's names for what a container may be given of the driver's user space
 * (NVIDIA_DRIVER_CAPABILITIES). display is graphics with /dev/nvidia-modeset.
 */
enum gp_capability {
	GP_CAP_COMPUTE,
	GP_CAP_UTILITY,
	GP_CAP_VIDEO,
	GP_CAP_GRAPHICS,
	GP_CAP_DISPLAY,
	GP_CAP_COUNT
};
#define GP_CAP_BIT(c) (1U << (c))
/* The names in enum order, NULL-terminated. */
extern const char *const gp_capability_words[GP_CAP_COUNT + 1];
const char *gp_capability_name(enum gp_capability c);

/* One driver library a loader cache names. */
struct gp_userspace_lib {
	enum gp_capability cap;
	char soname[64];  /* libcuda.so.1 */
	char path[256];	  /* where the cache says, inside the root */
	char real[256];	  /* the file it is, every link resolved inside the root */
	char file[128];	  /* its name: libcuda.so.580.159.04 */
	char version[32]; /* the file's version suffix: 580.159.04 */
	bool matches;	  /* that version is the kernel module's */
	bool unfollowed;  /* a container's whose path leads across a mount: real is the path */
};

/* One of the driver's programs or configuration files (a loader's manifest). */
struct gp_userspace_file {
	enum gp_capability cap;
	bool program;	 /* else a configuration file */
	char name[64];	 /* nvidia-smi, nvidia_icd.json */
	char where[128]; /* where a container looks for it: /usr/bin/nvidia-smi */
	char real[256];	 /* the host's file, inside the root */
};

#define GP_USERSPACE_MAX 128
#define GP_USERSPACE_MAX_FILES 16
struct gp_userspace {
	bool cache_found; /* <root>/etc/ld.so.cache was there and read */
	struct gp_userspace_lib v[GP_USERSPACE_MAX];
	size_t n;
	struct gp_userspace_file files[GP_USERSPACE_MAX_FILES];
	size_t nfiles;
	char persistenced[64]; /* nvidia-persistenced's socket where it listens, else "" */
};

/* The capability whose libraries hold soname's ("libcuda.so.1"), or GP_CAP_COUNT. */
enum gp_capability gp_capability_of(const char *soname);

/*
 * The driver's libraries and programs on the host under root: the libraries from its
 * loader cache, each with its capability and whether its version is version (the
 * kernel module's); the programs from /usr/bin, /usr/sbin, /bin and /sbin; the loaders'
 * manifests (Vulkan, EGL, OpenCL) from their standard directories. No cache is
 * not an error (cache_found false). 0, or -errno for a cache that cannot be read or
 * parsed (said), or -E2BIG past GP_USERSPACE_MAX libraries.
 */
int gp_userspace_discover(const char *root, const char *version, struct gp_userspace *u);

/*
 * The driver's libraries a container's loader cache names (rootfd: its rootfs), read
 * without running anything in it and resolved inside it. Same returns as
 * gp_userspace_discover.
 */
int gp_userspace_scan_rootfs(int rootfd, const char *version, struct gp_userspace *u);

/* A library's version against the kernel module's: the same, another, or none its name says. */
enum gp_lib_version { GP_LIB_THE_MODULES, GP_LIB_OTHER, GP_LIB_UNKNOWN };
enum gp_lib_version gp_userspace_lib_version(const struct gp_userspace_lib *l);

/* The musl loader a rootfs (rootfd) runs its programs on, resolved inside it. */
#define GP_MUSL_LOADER "/lib/ld-musl-x86_64.so.1"
bool gp_rootfs_is_musl(int rootfd);

#endif
