/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The driver's user space on the host: which libraries, of which version, per capability. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ldcache.h"
#include "paths.h"
#include "userspace.h"
#include "util.h"

/*
 * The libraries of each capability: libnvidia-container's src/nvc_info.c (its arrays of
 * utility, compute, video and graphics libraries), as ../shared/facts/nvidia-userspace.md
 * records them. Matched to a cache entry by the soname's base name (before ".so").
 */
static const char *const utility_libs[] = { "libnvidia-ml", "libnvidia-cfg", "libnvidia-nscq",
					    NULL };
static const char *const compute_libs[] = { "libcuda",
					    "libcudadebugger",
					    "libnvidia-opencl",
					    "libnvidia-gpucomp",
					    "libnvidia-ptxjitcompiler",
					    "libnvidia-fatbinaryloader",
					    "libnvidia-allocator",
					    "libnvidia-compiler",
					    "libnvidia-pkcs11",
					    "libnvidia-pkcs11-openssl3",
					    "libnvidia-nvvm",
					    "libnvidia-tileiras",
					    NULL };
static const char *const video_libs[] = { "libvdpau_nvidia", "libnvidia-encode",
					  "libnvidia-opticalflow", "libnvcuvid", NULL };
static const char *const graphics_libs[] = {
	"libnvidia-eglcore",   "libnvidia-glcore", "libnvidia-tls",
	"libnvidia-glsi",      "libnvidia-fbc",	   "libnvidia-ifr",
	"libnvidia-rtcore",    "libnvoptix",	   "libGLX_nvidia",
	"libEGL_nvidia",       "libGLESv2_nvidia", "libGLESv1_CM_nvidia",
	"libnvidia-glvkspirv", "libnvidia-cbl",	   NULL
};
static const char *const *const libs_of[GP_CAP_COUNT] = {
	[GP_CAP_COMPUTE] = compute_libs,
	[GP_CAP_UTILITY] = utility_libs,
	[GP_CAP_VIDEO] = video_libs,
	[GP_CAP_GRAPHICS] = graphics_libs,
};

const char *gp_capability_name(enum gp_capability c)
{
	static const char *const names[GP_CAP_COUNT] = { "compute", "utility", "video",
							 "graphics" };

	return c < GP_CAP_COUNT ? names[c] : "?";
}

/* The capability of a soname ("libcuda.so.1"), or GP_CAP_COUNT for none. */
static enum gp_capability capability_of(const char *soname)
{
	const char *dot = strstr(soname, ".so");
	size_t n = dot ? (size_t)(dot - soname) : 0;

	for (int c = 0; n && c < GP_CAP_COUNT; c++)
		for (const char *const *l = libs_of[c]; *l; l++)
			if (strlen(*l) == n && strncmp(*l, soname, n) == 0)
				return (enum gp_capability)c;
	return GP_CAP_COUNT;
}

/* The file the cache's path names: its link's target, in the same directory, or itself. */
static void file_of(const char *root, const char *path, char *file, size_t size)
{
	_cleanup_free_ char *full = gp_path(root, path);
	char target[PATH_MAX];
	ssize_t n = full ? readlink(full, target, sizeof(target) - 1) : -1;
	const char *base;

	if (n > 0) {
		target[n] = '\0';
		base = strrchr(target, '/');
		snprintf(file, size, "%.*s", (int)size - 1, base ? base + 1 : target);
		return;
	}
	base = strrchr(path, '/');
	snprintf(file, size, "%s", base ? base + 1 : path);
}

static int add(struct gp_userspace *u, enum gp_capability cap, const struct gp_ldcache_entry *e,
	       const char *root, const char *version)
{
	struct gp_userspace_lib *l;
	const char *suffix;

	if (u->n == GP_USERSPACE_MAX)
		return gp_error_errno(-E2BIG, "more than %d NVIDIA libraries in the loader's cache",
				      GP_USERSPACE_MAX);
	l = &u->v[u->n++];
	l->cap = cap;
	snprintf(l->soname, sizeof(l->soname), "%s", e->soname);
	snprintf(l->path, sizeof(l->path), "%s", e->path);
	file_of(root, e->path, l->file, sizeof(l->file));
	suffix = strstr(l->file, ".so.");
	snprintf(l->version, sizeof(l->version), "%s", suffix ? suffix + 4 : "");
	l->matches = version && *version && strcmp(l->version, version) == 0;
	return 0;
}

int gp_userspace_discover(const char *root, const char *version, struct gp_userspace *u)
{
	_cleanup_free_ char *path = gp_path(root, "/etc/ld.so.cache"), *buf = NULL;
	struct gp_ldcache cache;
	size_t len;
	int r;

	memset(u, 0, sizeof(*u));
	if (!path)
		return -ENOMEM;
	if (access(path, F_OK) < 0 && errno == ENOENT)
		return 0;
	r = gp_read_file(path, GP_LDCACHE_MAX_SIZE, &buf, &len);
	if (r < 0)
		return r; /* said by the reader */
	r = gp_ldcache_parse(buf, len, &cache);
	if (r < 0)
		return gp_error_errno(r, "\"%s\" is not a loader cache glibc's ldconfig writes",
				      path);
	u->cache_found = true;
	for (size_t i = 0; i < cache.n && r == 0; i++) {
		enum gp_capability cap = capability_of(cache.v[i].soname);

		if (cap != GP_CAP_COUNT)
			r = add(u, cap, &cache.v[i], root, version);
	}
	gp_ldcache_free(&cache);
	return r;
}
