/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The driver's user space given to a container, before its first process: a tmpfs of
 * ours at GP_INJECT_DIR in its rootfs, each host file bound read-only in it, the programs
 * linked into /usr/bin and the directory named to the loader. The rootfs is hostile: it
 * is reached by fd only (GP_RESOLVE_STRICT), nothing in it is replaced, nothing from it
 * runs, and on any failure what was made is taken back.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/paths.h"
#include "base/trust.h"
#include "base/util.h"
#include "host/ldconfig.h"
#include "host/userspace.h"
#include "start/cdi.h"
#include "start/inject.h"
#include "start/mount.h"

#define LDCONF_TEXT                                                                                \
	"# gpu-provision: the host's NVIDIA driver libraries, mounted here at each "               \
	"start\n" GP_INJECT_LIBDIR "\n"

/* What the rootfs got, to take back on failure: directories, links, files, one mount. */
struct made {
	int dirfd;
	char name[128];
	enum { MADE_DIR, MADE_FILE, MADE_MOUNT } what;
};

struct undo {
	struct made v[GP_INJECT_MAX + 8];
	size_t n;
};

/* Takes back one thing made: a mount on name, or the file or directory name. */
static void undo_one(int dirfd, const char *name, int what)
{
	if (what == MADE_MOUNT)
		gp_mount_undo_at(dirfd, name);
	else
		unlinkat(dirfd, name, what == MADE_DIR ? AT_REMOVEDIR : 0);
}

/* Notes what was just made; where it cannot be noted, it is taken back at once. */
static int undo_note(struct undo *u, int dirfd, const char *name, int what)
{
	struct made *m = &u->v[u->n];

	if (u->n == GP_ARRAY_SIZE(u->v)) {
		undo_one(dirfd, name, what);
		return gp_error_errno(-E2BIG, "more than %zu things to make in the rootfs",
				      GP_ARRAY_SIZE(u->v));
	}
	if ((m->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3)) < 0) {
		int r = -errno;

		undo_one(dirfd, name, what);
		return gp_error_errno(r, "Failed to keep a descriptor of what was made");
	}
	u->n++;
	m->what = what;
	snprintf(m->name, sizeof(m->name), "%s", name);
	return 0;
}

static void undo_all(struct undo *u, bool keep)
{
	while (u->n > 0) {
		struct made *m = &u->v[--u->n];

		if (!keep)
			undo_one(m->dirfd, m->name, m->what);
		gp_closep(&m->dirfd);
	}
}

/* Opens rel ("usr/local/nvidia") inside the rootfs, each part a plain directory on the
 * rootfs's own filesystem; with u, parts that are missing are made (and noted). -errno,
 * unsaid. */
static int walk_dir(int rootfd, const char *rel, struct undo *u)
{
	char copy[PATH_MAX], *save = NULL;
	_cleanup_close_ int fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);

	snprintf(copy, sizeof(copy), "%s", rel);
	for (char *p = strtok_r(copy, "/", &save); p && fd >= 0; p = strtok_r(NULL, "/", &save)) {
		int next, r;

		if (u && mkdirat(fd, p, 0755) == 0 && (r = undo_note(u, fd, p, MADE_DIR)) < 0)
			return r;
		next = gp_openat2(fd, p, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, GP_RESOLVE_STRICT);
		if (next < 0 && (errno != ENOENT || u))
			return -errno;
		close(fd);
		fd = next;
	}
	return fd < 0 ? -errno : steal_fd(fd);
}

/* walk_dir, and what is in the way said. */
static int open_dir(int rootfd, const char *rootfs, const char *rel, struct undo *u)
{
	int fd = walk_dir(rootfd, rel, u);

	if (fd < 0 && fd != -ENOENT && fd != -ENOMEM)
		gp_error("%s/%s in the container is not a plain directory of its rootfs (a link, "
			 "a file or a mount point is in the way): refusing to inject the driver "
			 "through it (%s)",
			 rootfs, rel, gp_strerror(-fd));
	return fd;
}

static int refuse_musl(int rootfd, const char *rootfs)
{
	if (!gp_rootfs_is_musl(rootfd))
		return 0;
	gp_error("%s" GP_MUSL_LOADER ": the container's C library is musl, whose loader "
		 "NVIDIA's libraries do not run on: set \"inject = no\" under [driver] in its "
		 "ini, or use a glibc distribution",
		 rootfs);
	return -GP_EBADCONF;
}

/* Whether the cache u names the injected library f where it is injected. */
static bool cache_names(const struct gp_userspace *u, const struct gp_inject_file *f)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", GP_INJECT_LIBDIR, f->soname[0] ? f->soname : f->name);
	for (size_t i = 0; i < u->n; i++)
		if (strcmp(u->v[i].path, path) == 0)
			return true;
	return false;
}

/*
 * The container's own driver libraries, from its loader cache: another version than the
 * module's refuses the start (a process would load both: "Driver/library version
 * mismatch"), one whose version its name does not say is said. *read says whether the
 * cache could be read at all; *cached whether it names every injected library already.
 */
static int check_own_libraries(int rootfd, const struct gp_inject *inj, bool *read, bool *cached)
{
	_cleanup_free_ struct gp_userspace *u = malloc(sizeof(*u));
	const char *ours = GP_INJECT_LIBDIR "/";
	size_t bad = 0;

	*read = *cached = false;
	if (!u)
		return -ENOMEM;
	if (gp_userspace_scan_rootfs(rootfd, inj->version, u) < 0)
		return 0; /* said; the host's ldconfig writes it anew, and it is read again */
	*read = true;
	*cached = u->cache_found;
	for (size_t i = 0; i < inj->n; i++)
		if (inj->v[i].kind == GP_INJECT_LIB && !cache_names(u, &inj->v[i]))
			*cached = false;
	for (size_t i = 0; i < u->n; i++) {
		const struct gp_userspace_lib *l = &u->v[i];

		enum gp_lib_version v = gp_userspace_lib_version(l);

		if (v == GP_LIB_THE_MODULES || strncmp(l->path, ours, strlen(ours)) == 0)
			continue;
		if (l->unfollowed) {
			gp_warn("the container's %s lies behind a mount, where no path of the "
				"rootfs is followed: if it is not the host's %s, remove it",
				l->path, inj->version);
			continue;
		}
		if (v == GP_LIB_UNKNOWN) {
			gp_warn(
			    "the container's %s (%s) is a driver library whose version its name "
			    "does not say: if it is not the host's %s, remove it",
			    l->path, l->real, inj->version);
			continue;
		}
		gp_error("the container's %s is %s, of driver %s, not the host's %s", l->path,
			 l->real, l->version, inj->version);
		bad++;
	}
	if (!bad)
		return 0;
	gp_error("%zu driver librar%s of another version in the container would be loaded beside "
		 "the injected ones: remove the container's own driver packages, or set \"inject = "
		 "no\" under [driver] in its ini",
		 bad, bad == 1 ? "y" : "ies");
	return -GP_EBADCONF;
}

/* An empty directory to mount on: its files are not to be hidden. */
static int check_empty(int dirfd, const char *rootfs)
{
	int fd = gp_openat2(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, GP_RESOLVE_STRICT);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	int r = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while (r == 0 && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			r = -ENOTEMPTY;
	closedir(d);
	if (r < 0)
		gp_error("%s%s in the container holds files: move them, since the driver's user "
			 "space is mounted there at each start",
			 rootfs, GP_INJECT_DIR);
	return r;
}

/* Where a file is staged (lib/start/injectstage.c): the stage, then its path inside root. */
struct stage {
	const struct gp_ctx *ctx; /* its owner: the host's root, as this user namespace sees it */
	const char *top;	  /* ctx's root, or "/" for the host */
	char path[PATH_MAX];
};

/*
 * One host file bound read-only onto an empty file of that name in dirfd (our tmpfs), from
 * its staged copy: the descriptor the owner rule was checked on, root's (as this user
 * namespace sees the host's root) all the way down from root.
 */
static int bind_file(const struct stage *st, int dirfd, const struct gp_inject_file *f)
{
	const char *rel = f->source + (gp_root_is_host(st->ctx->root) ? 0 : strlen(st->ctx->root));
	_cleanup_close_ int src = -1, tgt = -1;
	char staged[PATH_MAX];
	int r;

	if (snprintf(staged, sizeof(staged), "%s%s", st->path, rel) >= (int)sizeof(staged))
		return gp_error_errno(-ENAMETOOLONG, "\"%s\": too long", f->source);
	src = gp_trust_open_file(st->top, staged, st->ctx->owner);
	if (src < 0)
		return gp_error_errno(src,
				      "the host's \"%s\" is not staged as pre-start left it: "
				      "restart the container",
				      f->source);
	tgt = openat(dirfd, f->name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (tgt < 0)
		return gp_error_errno(-errno, "Failed to make %s in the container", f->name);
	r = gp_mount_bind_fd(src, tgt, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (r == 0 && f->soname[0] && symlinkat(f->name, dirfd, f->soname) < 0)
		r = -errno;
	if (r < 0)
		return gp_error_errno(r, "Failed to bind \"%s\" into the container", f->source);
	return 0;
}

/* The CDI spec written into the tree (mnt: its top) at GP_CDI_FILE. */
static int write_cdi(int mnt, const char *rootfs, const char *cdi)
{
	const char *rel = GP_CDI_FILE + strlen(GP_INJECT_DIR) + 1, *base = strrchr(rel, '/') + 1;
	char dir[64];
	_cleanup_close_ int dirfd = -1, fd = -1;

	snprintf(dir, sizeof(dir), "%.*s", (int)(base - rel - 1), rel);
	if (mkdirat(mnt, dir, 0755) < 0 ||
	    (dirfd = openat(mnt, dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (fd = openat(dirfd, base, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444)) <
		0 ||
	    write(fd, cdi, strlen(cdi)) != (ssize_t)strlen(cdi))
		return gp_error_errno(errno ? -errno : -EIO, "Failed to write %s%s", rootfs,
				      GP_CDI_FILE);
	return 0;
}

/* The tmpfs at GP_INJECT_DIR with lib64/, bin/ and share/ (and the CDI spec), then made
 * read-only. */
static int mount_tree(const struct stage *st, int rootfd, const char *rootfs,
		      const struct gp_inject *inj, const char *cdi, struct undo *u)
{
	_cleanup_close_ int dir = open_dir(rootfd, rootfs, GP_INJECT_DIR + 1, u), mnt = -1;
	int sub[GP_INJECT_KINDS] = { -1, -1, -1 };
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	int r;

	if (dir < 0)
		return dir;
	r = check_empty(dir, rootfs);
	if (r < 0)
		return r;
	mnt = gp_mount_tmpfs(dir);
	if (mnt < 0)
		return gp_error_errno(mnt, "Failed to mount a tmpfs on %s%s", rootfs,
				      GP_INJECT_DIR);
	r = undo_note(u, dir, ".", MADE_MOUNT);
	for (int k = 0; k < GP_INJECT_KINDS && r == 0; k++) {
		if (mkdirat(mnt, gp_inject_dir(k), 0755) < 0 ||
		    (sub[k] = openat(mnt, gp_inject_dir(k),
				     O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			r = gp_error_errno(-errno, "Failed to make %s%s/%s", rootfs, GP_INJECT_DIR,
					   gp_inject_dir(k));
	}
	for (size_t i = 0; i < inj->n && r == 0; i++)
		r = bind_file(st, sub[inj->v[i].kind], &inj->v[i]);
	if (r == 0 && cdi)
		r = write_cdi(mnt, rootfs, cdi);
	if (r == 0 && syscall(SYS_mount_setattr, mnt, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
		r = gp_error_errno(-errno, "Failed to make %s%s read-only", rootfs, GP_INJECT_DIR);
	for (int k = 0; k < GP_INJECT_KINDS; k++)
		gp_closep(&sub[k]);
	return r;
}

/* A file base in fd that was there before: said unless it is our link to target already. */
static void link_kept(int fd, const char *base, const char *link, const char *target)
{
	char have[PATH_MAX];
	ssize_t n = readlinkat(fd, base, have, sizeof(have) - 1);

	if (n >= 0 && (have[n] = '\0', strcmp(have, target) == 0))
		return;
	gp_warn("the container has its own %s, which is kept: the injected one is %s", link,
		target);
}

/*
 * link (an absolute path of the rootfs) -> target, where the container has no file of that
 * name of its own (its own is kept and said); the directories above it made where missing.
 */
static int link_one(int rootfd, const char *rootfs, const char *link, const char *target,
		    struct undo *u)
{
	const char *base = strrchr(link, '/');
	char dir[128];
	_cleanup_close_ int fd = -1;

	snprintf(dir, sizeof(dir), "%.*s", (int)(base - link - 1), link + 1);
	base++;
	if ((fd = open_dir(rootfd, rootfs, dir, u)) < 0)
		return fd;
	if (symlinkat(target, fd, base) == 0)
		return undo_note(u, fd, base, MADE_FILE);
	if (errno != EEXIST)
		return gp_error_errno(-errno, "Failed to link %s%s", rootfs, link);
	link_kept(fd, base, link, target);
	return 0;
}

/*
 * GP_CDI_LINK -> GP_CDI_FILE, where the container's /etc/cdi is a plain directory (made
 * if missing). One that is a link, a file or a mount point is kept, and said: the start
 * goes on, the spec is at GP_CDI_FILE for a runtime told to look there.
 */
static void link_cdi(int rootfd, const char *rootfs, struct undo *u)
{
	const char *base = strrchr(GP_CDI_LINK, '/') + 1;
	char dir[64];
	_cleanup_close_ int fd = -1;

	snprintf(dir, sizeof(dir), "%.*s", (int)(base - GP_CDI_LINK - 2), GP_CDI_LINK + 1);
	fd = walk_dir(rootfd, dir, u);
	if (fd < 0) {
		gp_warn("%s/%s in the container is not a plain directory of its rootfs (%s): it is "
			"kept, and no %s is linked there; the start's CDI spec is %s for a runtime "
			"told to read it there",
			rootfs, dir, gp_strerror(-fd), GP_CDI_LINK, GP_CDI_FILE);
		return;
	}
	if (symlinkat(GP_CDI_FILE, fd, base) == 0) {
		undo_note(u, fd, base, MADE_FILE);
		return;
	}
	link_kept(fd, base, GP_CDI_LINK, GP_CDI_FILE);
}

/*
 * LINK -> its file in GP_INJECT_DIR, for each program (/usr/bin/nvidia-smi) and manifest
 * (/etc/vulkan/icd.d/nvidia_icd.json), and GP_CDI_LINK -> GP_CDI_FILE with a spec.
 */
static int link_files(int rootfd, const char *rootfs, const struct gp_inject *inj, bool cdi,
		      struct undo *u)
{
	char target[PATH_MAX];
	int r = 0;

	for (size_t i = 0; i < inj->n && r == 0; i++) {
		const struct gp_inject_file *f = &inj->v[i];

		if (f->kind == GP_INJECT_LIB || !strrchr(f->link, '/'))
			continue;
		snprintf(target, sizeof(target), "%s/%s/%s", GP_INJECT_DIR, gp_inject_dir(f->kind),
			 f->name);
		r = link_one(rootfd, rootfs, f->link, target, u);
	}
	if (r == 0 && cdi)
		link_cdi(rootfd, rootfs, u);
	return r;
}

/* GP_INJECT_LDCONF, where the container has /etc/ld.so.conf.d (its ldconfig reads it). */
static int add_ldconf(int rootfd, const char *rootfs, struct undo *u)
{
	_cleanup_close_ int dir = open_dir(rootfd, rootfs, "etc/ld.so.conf.d", NULL), fd = -1;
	const char *base = strrchr(GP_INJECT_LDCONF, '/') + 1;
	_cleanup_free_ char *have = NULL;

	if (dir < 0)
		return dir == -ENOENT ? 0 : dir;
	fd =
	    gp_openat2(dir, base, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644, GP_RESOLVE_STRICT);
	if (fd >= 0) {
		if (undo_note(u, dir, base, MADE_FILE) < 0)
			return -E2BIG;
		if (write(fd, LDCONF_TEXT, strlen(LDCONF_TEXT)) != (ssize_t)strlen(LDCONF_TEXT))
			return gp_error_errno(-EIO, "Failed to write %s%s", rootfs,
					      GP_INJECT_LDCONF);
		return 0;
	}
	fd = gp_open_regular(dir, base, GP_RESOLVE_STRICT);
	if (fd < 0 || gp_read_fd(fd, 4096, &have, NULL) < 0 || strcmp(have, LDCONF_TEXT) != 0)
		gp_warn("%s%s is not the one gpu-provision writes; it is kept", rootfs,
			GP_INJECT_LDCONF);
	return 0;
}

/* The container's /etc/ld.so.cache written anew, naming GP_INJECT_LIBDIR. */
static int update_cache(int rootfd, const char *rootfs, const struct gp_inject *inj)
{
	_cleanup_close_ int etc = open_dir(rootfd, rootfs, "etc", NULL);

	return etc < 0 ? etc : gp_ldconfig_run(&inj->ldconfig, rootfd, rootfs, GP_INJECT_LIBDIR);
}

static int stage_of(const struct gp_ctx *ctx, const char *name, struct stage *st)
{
	_cleanup_free_ char *path = gp_inject_stage_path(ctx->root, name);

	st->ctx = ctx;
	st->top = gp_root_is_host(ctx->root) ? "/" : ctx->root;
	if (!path || snprintf(st->path, sizeof(st->path), "%s", path) >= (int)sizeof(st->path))
		return -ENOMEM;
	return 0;
}

int gp_inject_mount(const struct gp_ctx *ctx, const char *name, const char *rootfs,
		    const struct gp_inject *inj, const char *cdi)
{
	struct stage st;
	_cleanup_close_ int rootfd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct undo *u = calloc(1, sizeof(*u));
	bool read = false, cached = false;
	int r;

	if (!u)
		return -ENOMEM;
	r = rootfd < 0 ? gp_error_errno(-errno, "Failed to open rootfs \"%s\"", rootfs) : 0;
	if (r == 0)
		r = stage_of(ctx, name, &st);
	if (r == 0)
		r = refuse_musl(rootfd, rootfs);
	if (r == 0)
		r = check_own_libraries(rootfd, inj, &read, &cached);
	if (r == 0)
		r = mount_tree(&st, rootfd, rootfs, inj, cdi, u);
	if (r == 0)
		r = link_files(rootfd, rootfs, inj, cdi != NULL, u);
	if (r == 0)
		r = add_ldconf(rootfd, rootfs, u);
	if (r == 0 && !cached)
		r = update_cache(rootfd, rootfs, inj);
	/* The cache the host's ldconfig wrote names what the container has: checked again. */
	if (r == 0 && !cached) {
		r = check_own_libraries(rootfd, inj, &read, &cached);
		if (r == 0 && !read)
			r = gp_error_errno(-GP_EBADCONF,
					   "the container's /etc/ld.so.cache cannot be "
					   "read even as the host's ldconfig wrote it");
	}
	undo_all(u, r == 0);
	free(u);
	return r;
}
