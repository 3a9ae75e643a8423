/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The driver's user space on the host: which libraries, of which version, per capability. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/util.h"
#include "host/ldcache.h"
#include "host/userspace.h"

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
	[GP_CAP_COMPUTE] = compute_libs, [GP_CAP_UTILITY] = utility_libs,
	[GP_CAP_VIDEO] = video_libs,	 [GP_CAP_GRAPHICS] = graphics_libs,
	[GP_CAP_DISPLAY] = NULL, /* graphics' libraries */
};

const char *const gp_capability_words[GP_CAP_COUNT + 1] = {
	[GP_CAP_COMPUTE] = "compute",	[GP_CAP_UTILITY] = "utility", [GP_CAP_VIDEO] = "video",
	[GP_CAP_GRAPHICS] = "graphics", [GP_CAP_DISPLAY] = "display", NULL
};

const char *gp_capability_name(enum gp_capability c)
{
	return c < GP_CAP_COUNT ? gp_capability_words[c] : "?";
}

/* The programs of each capability: libnvidia-container's src/nvc_info.c as above. */
static const struct {
	enum gp_capability cap;
	const char *name;
} programs[] = {
	{ GP_CAP_UTILITY, "nvidia-smi" },
	{ GP_CAP_UTILITY, "nvidia-debugdump" },
	{ GP_CAP_COMPUTE, "nvidia-cuda-mps-control" },
	{ GP_CAP_COMPUTE, "nvidia-cuda-mps-server" },
};
/*
 * The manifests other loaders read to find the driver's libraries (NVIDIA's
 * nvidia-container-toolkit, internal/discover/graphics.go): each the first of its places
 * the host has. The EGL external platforms are left out: their libraries
 * (libnvidia-egl-wayland, -gbm) have versions of their own, not the driver's.
 */
static const struct {
	enum gp_capability cap;
	const char *paths[2];
} configs[] = {
	{ GP_CAP_GRAPHICS,
	  { "/etc/vulkan/icd.d/nvidia_icd.json", "/usr/share/vulkan/icd.d/nvidia_icd.json" } },
	{ GP_CAP_GRAPHICS,
	  { "/etc/vulkan/implicit_layer.d/nvidia_layers.json",
	    "/usr/share/vulkan/implicit_layer.d/nvidia_layers.json" } },
	{ GP_CAP_GRAPHICS, { "/usr/share/glvnd/egl_vendor.d/10_nvidia.json" } },
	{ GP_CAP_COMPUTE, { "/etc/OpenCL/vendors/nvidia.icd" } },
};
_Static_assert(GP_ARRAY_SIZE(programs) + GP_ARRAY_SIZE(configs) <= GP_USERSPACE_MAX_FILES,
	       "room for every file");

enum gp_capability gp_capability_of(const char *soname)
{
	const char *dot = strstr(soname, ".so");
	size_t n = dot ? (size_t)(dot - soname) : 0;

	for (int c = 0; n && c < GP_CAP_COUNT; c++)
		for (const char *const *l = libs_of[c]; l && *l; l++)
			if (strlen(*l) == n && strncmp(*l, soname, n) == 0)
				return (enum gp_capability)c;
	return GP_CAP_COUNT;
}

/* The path an fd has in this mount namespace: 0, or -errno. */
static int fd_path(int fd, char *out, size_t size)
{
	char proc[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, out, size - 1);
	if (n < 0 || (size_t)n >= size - 1)
		return n < 0 ? -errno : -ENAMETOOLONG;
	out[n] = '\0';
	return 0;
}

/*
 * How a path is resolved inside a root, as the root's own loader would, every link followed
 * but none out of it: the host's root crosses its mounts (a separate /usr), a container's
 * never does. A running container's rootfs (/proc/PID/root) holds the mounts its root
 * made, FUSE or NFS, where a lookup can block this process in the kernel for good.
 */
#define RESOLVE_HOST (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)
#define RESOLVE_CONTAINER (RESOLVE_HOST | RESOLVE_NO_XDEV)

/*
 * path ("/usr/lib/x86_64-linux-gnu/libcuda.so.1") resolved inside rootfd as resolve says:
 * the file it is, as a path inside the root. 0, or -errno (a dangling link, a path leaving
 * the root or, for a container's, its filesystem).
 */
static int resolve_in(int rootfd, const char *path, unsigned long long resolve, char *real,
		      size_t size)
{
	_cleanup_close_ int fd = -1;
	char top[PATH_MAX], full[PATH_MAX];
	size_t n;
	int r;

	fd = gp_openat2(rootfd, path + (path[0] == '/'), O_PATH | O_CLOEXEC, 0, resolve);
	if (fd < 0)
		return -errno;
	r = fd_path(rootfd, top, sizeof(top));
	if (r == 0)
		r = fd_path(fd, full, sizeof(full));
	if (r < 0)
		return r;
	n = strcmp(top, "/") == 0 ? 0 : strlen(top);
	if (strncmp(full, top, n) != 0 || full[n] != '/')
		return -EXDEV;
	snprintf(real, size, "%s", full + n);
	return 0;
}

static int add(struct gp_userspace *u, enum gp_capability cap, const struct gp_ldcache_entry *e,
	       int rootfd, unsigned long long resolve, const char *version)
{
	struct gp_userspace_lib *l;
	const char *suffix, *base;
	int r;

	if (u->n == GP_USERSPACE_MAX)
		return gp_error_errno(-E2BIG, "more than %d NVIDIA libraries in the loader's cache",
				      GP_USERSPACE_MAX);
	l = &u->v[u->n++];
	l->cap = cap;
	snprintf(l->soname, sizeof(l->soname), "%s", e->soname);
	snprintf(l->path, sizeof(l->path), "%s", e->path);
	/* A file the path does not lead to, or whose name needs escaping, is the path. */
	r = resolve_in(rootfd, e->path, resolve, l->real, sizeof(l->real));
	l->unfollowed = r == -EXDEV && (resolve & RESOLVE_NO_XDEV);
	if (r < 0 || !gp_str_is_printable(l->real))
		snprintf(l->real, sizeof(l->real), "%s", e->path);
	base = strrchr(l->real, '/');
	base = base ? base + 1 : l->real;
	if (strlen(base) >= sizeof(l->file))
		base = ""; /* no driver file's name is that long: no version is read from it */
	snprintf(l->file, sizeof(l->file), "%.*s", (int)sizeof(l->file) - 1, base);
	suffix = strstr(l->file, ".so.");
	snprintf(l->version, sizeof(l->version), "%s", suffix ? suffix + 4 : "");
	l->matches = version && *version && strcmp(l->version, version) == 0;
	return 0;
}

/* The driver's libraries in the cache read from cachefd, resolved as resolve says. */
static int from_cache(int rootfd, int cachefd, const char *name, unsigned long long resolve,
		      const char *version, struct gp_userspace *u)
{
	_cleanup_free_ char *buf = NULL;
	struct gp_ldcache cache;
	size_t len;
	int r;

	r = gp_read_fd(cachefd, GP_LDCACHE_MAX_SIZE, &buf, &len);
	if (r < 0)
		return gp_error_errno(r, "Failed to read \"%s\"", name);
	if (len == 0)
		return 0; /* as none: a loader without a cache searches its directories */
	r = gp_ldcache_parse(buf, len, &cache);
	if (r < 0)
		return gp_error_errno(r, "\"%s\" is not a loader cache glibc's ldconfig writes",
				      name);
	u->cache_found = true;
	for (size_t i = 0; i < cache.n && r == 0; i++) {
		enum gp_capability cap = gp_capability_of(cache.v[i].soname);

		if (cap != GP_CAP_COUNT)
			r = add(u, cap, &cache.v[i], rootfd, resolve, version);
	}
	gp_ldcache_free(&cache);
	return r;
}

/* The cache, opened only as a regular file: a container's may be any kind of file. */
static int scan(int rootfd, const char *name, const char *version, unsigned long long resolve,
		struct gp_userspace *u)
{
	_cleanup_close_ int fd = -1;

	memset(u, 0, sizeof(*u));
	fd = gp_open_regular(rootfd, "etc/ld.so.cache", resolve);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 && errno == EINVAL)
		return gp_error_errno(-GP_EBADCONF, "\"%s\" is not a regular file: not read", name);
	if (fd < 0)
		return gp_error_errno(-errno, "Failed to open \"%s\"", name);
	return from_cache(rootfd, fd, name, resolve, version, u);
}

enum gp_lib_version gp_userspace_lib_version(const struct gp_userspace_lib *l)
{
	if (l->matches)
		return GP_LIB_THE_MODULES;
	/* A driver's versions have dots (580.159.04); a soname's suffix alone does not. */
	return strchr(l->version, '.') ? GP_LIB_OTHER : GP_LIB_UNKNOWN;
}

bool gp_rootfs_is_musl(int rootfd)
{
	_cleanup_close_ int fd =
	    gp_openat2(rootfd, GP_MUSL_LOADER + 1, O_PATH | O_CLOEXEC, 0, RESOLVE_CONTAINER);

	return fd >= 0;
}

int gp_userspace_scan_rootfs(int rootfd, const char *version, struct gp_userspace *u)
{
	/* Not into another filesystem either (a link to /proc/kmsg, a FUSE mount). */
	return scan(rootfd, "the container's /etc/ld.so.cache", version, RESOLVE_CONTAINER, u);
}

/* A program file of the driver's: an ELF executable (a script would name other paths). */
static bool is_program(int rootfd, const char *real)
{
	_cleanup_close_ int fd =
	    gp_open_regular(rootfd, real + 1, RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS);
	char magic[4];
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) &&
	       read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
	       memcmp(magic, "\177ELF", 4) == 0;
}

static void add_file(struct gp_userspace *u, enum gp_capability cap, bool program,
		     const char *where, const char *real)
{
	struct gp_userspace_file *f = &u->files[u->nfiles++];

	f->cap = cap;
	f->program = program;
	snprintf(f->name, sizeof(f->name), "%s", strrchr(where, '/') + 1);
	snprintf(f->where, sizeof(f->where), "%s", where);
	snprintf(f->real, sizeof(f->real), "%s", real);
}

/*
 * The programs, first hit in the standard directories, as libnvidia-container's PATH,
 * and last NVIDIA's own container layout; a container finds each in /usr/bin.
 */
static void find_programs(int rootfd, struct gp_userspace *u)
{
	static const char *const dirs[] = { "/usr/bin", "/usr/sbin", "/bin", "/sbin",
					    "/usr/local/nvidia/bin" };

	for (size_t i = 0; i < GP_ARRAY_SIZE(programs); i++) {
		for (size_t d = 0; d < GP_ARRAY_SIZE(dirs); d++) {
			char path[128], real[256], where[128];

			snprintf(path, sizeof(path), "%s/%s", dirs[d], programs[i].name);
			if (resolve_in(rootfd, path, RESOLVE_HOST, real, sizeof(real)) < 0 ||
			    !is_program(rootfd, real))
				continue;
			snprintf(where, sizeof(where), "/usr/bin/%s", programs[i].name);
			add_file(u, programs[i].cap, true, where, real);
			break;
		}
	}
}

/* A manifest: a regular file, read where a container's loader looks for it. */
static void find_configs(int rootfd, struct gp_userspace *u)
{
	for (size_t i = 0; i < GP_ARRAY_SIZE(configs); i++) {
		for (size_t k = 0; k < 2 && configs[i].paths[k]; k++) {
			const char *path = configs[i].paths[k];
			char real[256];
			struct stat st;

			if (resolve_in(rootfd, path, RESOLVE_HOST, real, sizeof(real)) < 0 ||
			    fstatat(rootfd, real + 1, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISREG(st.st_mode))
				continue;
			add_file(u, configs[i].cap, false, path, real);
			break;
		}
	}
}

/* nvidia-persistenced's socket (utility), where the daemon runs. */
static void find_persistenced(int rootfd, struct gp_userspace *u)
{
	static const char *const paths[] = { "/run/nvidia-persistenced/socket",
					     "/var/run/nvidia-persistenced/socket" };

	for (size_t i = 0; i < GP_ARRAY_SIZE(paths); i++) {
		char real[256];
		struct stat st;

		if (resolve_in(rootfd, paths[i], RESOLVE_HOST, real, sizeof(real)) == 0 &&
		    fstatat(rootfd, real + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISSOCK(st.st_mode)) {
			snprintf(u->persistenced, sizeof(u->persistenced), "%s", paths[i]);
			return;
		}
	}
}

int gp_userspace_discover(const char *root, const char *version, struct gp_userspace *u)
{
	_cleanup_free_ char *name = gp_path(root, "/etc/ld.so.cache");
	_cleanup_close_ int rootfd = -1;
	int r;

	if (!name)
		return -ENOMEM;
	rootfd = open(gp_root_is_host(root) ? "/" : root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return gp_error_errno(-errno, "Failed to open \"%s\"", root);
	r = scan(rootfd, name, version, RESOLVE_HOST, u);
	if (r == 0) {
		find_programs(rootfd, u);
		find_configs(rootfd, u);
		find_persistenced(rootfd, u);
	}
	return r;
}
