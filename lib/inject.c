/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The driver's user space in a container. pre-start picks the host's files; the mount
 * hook, before the container's first process, mounts a tmpfs of ours at GP_INJECT_DIR in
 * the rootfs, binds each file read-only there and points the container's loader and PATH
 * at it. The rootfs is hostile: it is reached by fd only (GP_RESOLVE_STRICT), nothing in
 * it is replaced, and nothing from it runs.
 */
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "child.h"
#include "escape.h"
#include "inject.h"
#include "mount.h"
#include "paths.h"
#include "userspace.h"
#include "util.h"

#define HEADER "gpu-provision-inject 1\n"
#define LDCONF_TEXT                                                                                \
	"# gpu-provision: the host's NVIDIA driver libraries, mounted here at each "               \
	"start\n" GP_INJECT_LIBDIR "\n"
#define LDCONFIG_MAX (16u << 20)
#define LDCONFIG_TIMEOUT_MS 10000

static unsigned int expand(unsigned int caps)
{
	if (caps & GP_CAP_BIT(GP_CAP_VIDEO))
		caps |= GP_CAP_BIT(GP_CAP_COMPUTE);
	if (caps & GP_CAP_BIT(GP_CAP_DISPLAY))
		caps |= GP_CAP_BIT(GP_CAP_GRAPHICS);
	return caps;
}

static const char *soname_of(const struct gp_inject_file *f)
{
	return f->soname[0] ? f->soname : f->name;
}

static bool holds(const struct gp_inject *inj, const char *name)
{
	for (size_t i = 0; i < inj->n; i++)
		if (strcmp(soname_of(&inj->v[i]), name) == 0 || strcmp(inj->v[i].name, name) == 0)
			return true;
	return false;
}

static int add(struct gp_inject *inj, bool program, const char *name, const char *soname,
	       const char *root, const char *real)
{
	_cleanup_free_ char *source = gp_path(root, real);
	struct gp_inject_file *f;

	if (!source)
		return -ENOMEM;
	if (inj->n == GP_INJECT_MAX)
		return gp_error_errno(-E2BIG, "more than %d driver files to inject", GP_INJECT_MAX);
	f = &inj->v[inj->n++];
	f->program = program;
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->soname, sizeof(f->soname), "%s", strcmp(name, soname) ? soname : "");
	snprintf(f->source, sizeof(f->source), "%s", source);
	return 0;
}

/* The libraries of caps at the module's version, one per soname as the loader picks. */
static int add_libraries(const char *root, const struct gp_userspace *u, unsigned int caps,
			 struct gp_inject *inj)
{
	int r = 0;

	for (size_t i = 0; i < u->n && r == 0; i++) {
		const struct gp_userspace_lib *l = &u->v[i];

		if (!(caps & GP_CAP_BIT(l->cap)) || holds(inj, l->soname))
			continue;
		if (!l->matches)
			gp_warn("%s (%s) is of version %s, not the kernel module's %s: not "
				"injected; remove it, or reinstall the driver",
				l->path, l->file, l->version[0] ? l->version : "unknown",
				inj->version);
		else
			r = add(inj, false, l->file, l->soname, root, l->real);
	}
	return r;
}

/* A capability asked for must bring at least one library. */
static int check_capabilities(const char *root, unsigned int caps, const struct gp_inject *inj)
{
	int missing = 0;

	for (int c = 0; c < GP_CAP_COUNT; c++) {
		bool found = false;

		if (!(caps & GP_CAP_BIT(c)) || c == GP_CAP_DISPLAY)
			continue;
		for (size_t i = 0; i < inj->n && !found; i++)
			found =
			    !inj->v[i].program && (int)gp_capability_of(soname_of(&inj->v[i])) == c;
		if (found)
			continue;
		gp_error("[driver] capabilities asks for %s, but %s/etc/ld.so.cache names none of "
			 "its libraries at the kernel module's version %s: install the driver's %s "
			 "libraries on the host, or take %s out of capabilities",
			 gp_capability_name(c), gp_root_is_host(root) ? "" : root, inj->version,
			 gp_capability_name(c), gp_capability_name(c));
		missing++;
	}
	return missing ? -EINVAL : 0;
}

int gp_inject_select(const char *root, const char *version, unsigned int caps,
		     struct gp_inject *inj)
{
	_cleanup_free_ struct gp_userspace *u = malloc(sizeof(*u));
	int r;

	memset(inj, 0, sizeof(*inj));
	if (!u)
		return -ENOMEM;
	if (!version || !*version) {
		gp_error("the NVIDIA kernel module's version is unknown (no "
			 "/proc/driver/nvidia/version): load the driver before a start that "
			 "injects its user space");
		return -EINVAL;
	}
	snprintf(inj->version, sizeof(inj->version), "%s", version);
	r = gp_userspace_discover(root, version, u);
	if (r == 0 && !u->cache_found) {
		gp_error("no %s/etc/ld.so.cache to find the driver's libraries in: run ldconfig",
			 gp_root_is_host(root) ? "" : root);
		r = -EINVAL;
	}
	caps = expand(caps);
	if (r == 0)
		r = add_libraries(root, u, caps, inj);
	for (size_t i = 0; i < u->nbins && r == 0; i++)
		if (caps & GP_CAP_BIT(u->bins[i].cap))
			r = add(inj, true, u->bins[i].name, u->bins[i].name, root, u->bins[i].real);
	return r < 0 ? r : check_capabilities(root, caps, inj);
}

char *gp_inject_format(const struct gp_inject *inj)
{
	struct gp_buf b = { 0 };
	int r = gp_buf_printf(&b, HEADER "version %s\n", inj->version);

	for (size_t i = 0; i < inj->n && r == 0; i++) {
		const struct gp_inject_file *f = &inj->v[i];

		if (f->program)
			r = gp_buf_printf(&b, "bin %s %s\n", f->name, f->source);
		else
			r = gp_buf_printf(&b, "lib %s %s %s\n", f->name,
					  f->soname[0] ? f->soname : "-", f->source);
	}
	if (r < 0) {
		gp_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* A file name of the driver's: letters, digits, . _ + -, not starting with a dot. */
static bool name_is_valid(const char *s)
{
	if (!*s || *s == '.')
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") ==
	       strlen(s);
}

static int parse_line(const char *line, struct gp_inject *inj)
{
	struct gp_inject_file *f = &inj->v[inj->n];
	char name[128], soname[64], source[256];
	int used = 0;

	if (sscanf(line, "lib %127s %63s %255s%n", name, soname, source, &used) == 3 &&
	    !line[used]) {
		f->program = false;
		snprintf(f->soname, sizeof(f->soname), "%s", strcmp(soname, "-") ? soname : "");
	} else if (sscanf(line, "bin %127s %255s%n", name, source, &used) == 2 && !line[used]) {
		f->program = true;
	} else {
		return -EINVAL;
	}
	if (!name_is_valid(name) || (f->soname[0] && !name_is_valid(f->soname)) || source[0] != '/')
		return -EINVAL;
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->source, sizeof(f->source), "%s", source);
	inj->n++;
	return 0;
}

int gp_inject_parse(const char *buf, struct gp_inject *inj)
{
	const char *pos, *end = buf + strlen(buf), *at;
	char line[512];
	size_t n;

	memset(inj, 0, sizeof(*inj));
	if (strncmp(buf, HEADER, strlen(HEADER)) != 0)
		return -EINVAL;
	pos = buf + strlen(HEADER);
	if (!gp_line_next(&pos, end, &at, &n) || n >= sizeof(line) || at + n == end)
		return -EINVAL;
	memcpy(line, at, n);
	line[n] = '\0';
	if (sscanf(line, "version %31s", inj->version) != 1 || !name_is_valid(inj->version))
		return -EINVAL;
	while (gp_line_next(&pos, end, &at, &n)) {
		if (at + n == end || n >= sizeof(line) || inj->n == GP_INJECT_MAX)
			return -EINVAL;
		memcpy(line, at, n);
		line[n] = '\0';
		if (parse_line(line, inj) < 0)
			return -EINVAL;
	}
	return 0;
}

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

static void undo_note(struct undo *u, int dirfd, const char *name, int what)
{
	struct made *m = &u->v[u->n++];

	m->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	m->what = what;
	snprintf(m->name, sizeof(m->name), "%s", name);
}

static void undo_all(struct undo *u, bool keep)
{
	while (u->n > 0) {
		struct made *m = &u->v[--u->n];

		if (!keep && m->what == MADE_MOUNT)
			gp_mount_undo_at(m->dirfd, m->name);
		else if (!keep)
			unlinkat(m->dirfd, m->name, m->what == MADE_DIR ? AT_REMOVEDIR : 0);
		gp_closep(&m->dirfd);
	}
}

/* Opens rel ("usr/local/nvidia") inside the rootfs, each part a plain directory on the
 * rootfs's own filesystem; with u, parts that are missing are made (and noted). */
static int open_dir(int rootfd, const char *rootfs, const char *rel, struct undo *u)
{
	char copy[PATH_MAX], *save = NULL;
	_cleanup_close_ int fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);

	snprintf(copy, sizeof(copy), "%s", rel);
	for (char *p = strtok_r(copy, "/", &save); p && fd >= 0; p = strtok_r(NULL, "/", &save)) {
		int next;

		if (u && mkdirat(fd, p, 0755) == 0)
			undo_note(u, fd, p, MADE_DIR);
		next = gp_openat2(fd, p, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, GP_RESOLVE_STRICT);
		if (next < 0 && (errno != ENOENT || u))
			return gp_error_errno(
			    -errno,
			    "%s/%s in the container is not a plain directory of "
			    "its rootfs (a link, a file or a mount point is in the "
			    "way): refusing to inject the driver through it",
			    rootfs, rel);
		close(fd);
		fd = next;
	}
	return fd < 0 ? -errno : steal_fd(fd);
}

static int refuse_musl(int rootfd, const char *rootfs)
{
	_cleanup_close_ int fd = gp_openat2(rootfd, "lib/ld-musl-x86_64.so.1", O_PATH | O_CLOEXEC,
					    0, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);

	if (fd < 0)
		return 0;
	gp_error("%s/lib/ld-musl-x86_64.so.1: the container's C library is musl, whose loader "
		 "NVIDIA's libraries do not run on: set \"inject = no\" under [driver] in its "
		 "ini, or use a glibc distribution",
		 rootfs);
	return -EINVAL;
}

/*
 * Refuses driver libraries of another version in the container's own loader cache (a
 * process would load both: "Driver/library version mismatch"). Says in *cached whether
 * that cache already names every injected library at GP_INJECT_LIBDIR.
 */
static int refuse_other_versions(int rootfd, const struct gp_inject *inj, bool *cached)
{
	_cleanup_free_ struct gp_userspace *u = malloc(sizeof(*u));
	const char *ours = GP_INJECT_LIBDIR "/";
	size_t found = 0, libs = 0, bad = 0;

	*cached = false;
	if (!u)
		return -ENOMEM;
	if (gp_userspace_scan_rootfs(rootfd, inj->version, u) < 0)
		return 0; /* said; the host's ldconfig writes it anew */
	for (size_t i = 0; i < u->n; i++) {
		const struct gp_userspace_lib *l = &u->v[i];

		if (strncmp(l->path, ours, strlen(ours)) == 0) {
			found += holds(inj, l->path + strlen(ours));
			continue;
		}
		if (l->matches || !strchr(l->version, '.'))
			continue;
		gp_error("the container's %s is %s, of driver %s, not the host's %s", l->path,
			 l->real, l->version, inj->version);
		bad++;
	}
	for (size_t i = 0; i < inj->n; i++)
		libs += !inj->v[i].program;
	*cached = u->cache_found && found >= libs;
	if (!bad)
		return 0;
	gp_error("%zu driver librar%s of another version in the container would be loaded beside "
		 "the injected ones: remove the container's own driver packages, or set \"inject = "
		 "no\" under [driver] in its ini",
		 bad, bad == 1 ? "y" : "ies");
	return -EINVAL;
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

/* A tmpfs, nosuid and nodev, mounted on dirfd: its root's fd. */
static int mount_tmpfs(int dirfd)
{
	_cleanup_close_ int fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	int mnt;

	if (fs < 0 || syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0755", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "nr_inodes", "1024", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -errno;
	mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (mnt < 0)
		return -errno;
	if (syscall(SYS_move_mount, mnt, "", dirfd, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) {
		int r = -errno;

		close(mnt);
		return r;
	}
	return mnt;
}

/* One host file bound read-only onto an empty file of that name in dirfd (our tmpfs). */
static int bind_file(int dirfd, const struct gp_inject_file *f)
{
	_cleanup_close_ int src = open(f->source, O_PATH | O_NOFOLLOW | O_CLOEXEC), tgt = -1;
	struct stat st;
	int r;

	if (src < 0 || fstat(src, &st) < 0)
		return gp_error_errno(-errno, "Failed to open the host's \"%s\"", f->source);
	if (!S_ISREG(st.st_mode))
		return gp_error_errno(-EINVAL, "the host's \"%s\" is not a regular file",
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

/* The tmpfs at GP_INJECT_DIR with lib64/ and bin/, then made read-only. */
static int mount_tree(int rootfd, const char *rootfs, const struct gp_inject *inj, struct undo *u)
{
	_cleanup_close_ int dir = open_dir(rootfd, rootfs, GP_INJECT_DIR + 1, u), mnt = -1;
	_cleanup_close_ int lib = -1, bin = -1;
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	int r;

	if (dir < 0)
		return dir;
	r = check_empty(dir, rootfs);
	if (r < 0)
		return r;
	mnt = mount_tmpfs(dir);
	if (mnt < 0)
		return gp_error_errno(mnt, "Failed to mount a tmpfs on %s%s", rootfs,
				      GP_INJECT_DIR);
	undo_note(u, dir, ".", MADE_MOUNT);
	if (mkdirat(mnt, "lib64", 0755) < 0 || mkdirat(mnt, "bin", 0755) < 0)
		return -errno;
	lib = openat(mnt, "lib64", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	bin = openat(mnt, "bin", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (lib < 0 || bin < 0)
		return -errno;
	for (size_t i = 0; i < inj->n && r == 0; i++)
		r = bind_file(inj->v[i].program ? bin : lib, &inj->v[i]);
	if (r == 0 && syscall(SYS_mount_setattr, mnt, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
		r = gp_error_errno(-errno, "Failed to make %s%s read-only", rootfs, GP_INJECT_DIR);
	return r;
}

/* /usr/bin/NAME -> GP_INJECT_BINDIR/NAME, where the container has no NAME of its own. */
static int link_programs(int rootfd, const char *rootfs, const struct gp_inject *inj,
			 struct undo *u)
{
	_cleanup_close_ int dir = -1;

	for (size_t i = 0; i < inj->n; i++) {
		const struct gp_inject_file *f = &inj->v[i];
		char target[PATH_MAX], have[PATH_MAX];
		ssize_t n;

		if (!f->program)
			continue;
		if (dir < 0 && (dir = open_dir(rootfd, rootfs, "usr/bin", u)) < 0)
			return dir;
		snprintf(target, sizeof(target), "%s/%s", GP_INJECT_BINDIR, f->name);
		if (symlinkat(target, dir, f->name) == 0) {
			undo_note(u, dir, f->name, MADE_FILE);
			continue;
		}
		if (errno != EEXIST)
			return gp_error_errno(-errno, "Failed to link %s/usr/bin/%s", rootfs,
					      f->name);
		n = readlinkat(dir, f->name, have, sizeof(have) - 1);
		if (n >= 0 && (have[n] = '\0', strcmp(have, target) == 0))
			continue;
		gp_warn("the container has its own /usr/bin/%s, which is kept: the injected one is "
			"%s",
			f->name, target);
	}
	return 0;
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
		undo_note(u, dir, base, MADE_FILE);
		if (write(fd, LDCONF_TEXT, strlen(LDCONF_TEXT)) != (ssize_t)strlen(LDCONF_TEXT))
			return gp_error_errno(-EIO, "Failed to write %s%s", rootfs,
					      GP_INJECT_LDCONF);
		return 0;
	}
	fd = gp_openat2(dir, base, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0,
			GP_RESOLVE_STRICT);
	if (fd < 0 || gp_read_fd(fd, 4096, &have, NULL) < 0 || strcmp(have, LDCONF_TEXT) != 0)
		gp_warn("%s%s is not the one gpu-provision writes; it is kept", rootfs,
			GP_INJECT_LDCONF);
	return 0;
}

/* True when the ELF file at fd asks for no program interpreter (runs on no loader). */
static bool elf_is_static(int fd)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum > 64)
		return false;
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return false;
		if (ph.p_type == PT_INTERP)
			return false;
	}
	return true;
}

struct ldconfig_job {
	int exe, rootfd;
};

static int drop_privileges(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct none[2] = { { 0 } };

	(void)setgroups(0, NULL); /* refused where the user namespace denies it: no matter */
	for (int c = 0; c <= 63; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall(SYS_capset, &h, none) < 0)
		return -errno;
	return 0;
}

static void limit(int resource, rlim_t v)
{
	struct rlimit rl = { v, v };

	(void)setrlimit(resource, &rl);
}

/*
 * In the child (lib/child.c has cut it off: no terminal, no descriptor of ours but the
 * two it is given, no environment): root of the rootfs, no network, no capability, and
 * no way to gain one; then the host's ldconfig from its sealed copy.
 */
static int run_ldconfig(void *arg)
{
	const struct ldconfig_job *job = arg;
	char name[] = "ldconfig", keep_links[] = "-X", dir[] = GP_INJECT_LIBDIR;
	char *argv[] = { name, keep_links, dir, NULL }, *envp[] = { NULL };

	if (fchdir(job->rootfd) < 0 || chroot(".") < 0 || chdir("/") < 0) {
		fprintf(stderr, "cannot enter the rootfs: %s\n", strerror(errno));
		return 126;
	}
	(void)unshare(CLONE_NEWNET | CLONE_NEWIPC);
	limit(RLIMIT_CPU, 10);
	limit(RLIMIT_FSIZE, 64u << 20);
	limit(RLIMIT_NOFILE, 64);
	limit(RLIMIT_CORE, 0);
	if (drop_privileges() < 0) {
		fprintf(stderr, "cannot drop privileges: %s\n", strerror(errno));
		return 126;
	}
	syscall(SYS_execveat, job->exe, "", argv, envp, AT_EMPTY_PATH);
	fprintf(stderr, "cannot run the host's ldconfig: %s\n", strerror(errno));
	return 127;
}

/* The container's /etc/ld.so.cache written anew by the host's ldconfig, confined. */
static int update_cache(int rootfd, const char *rootfs)
{
	_cleanup_close_ int etc = open_dir(rootfd, rootfs, "etc", NULL), exe = -1;
	struct ldconfig_job job = { .rootfd = rootfd };
	int keep[2], r;
	struct gp_child c;
	struct gp_child_opts o = { .timeout_ms = LDCONFIG_TIMEOUT_MS,
				   .output_max = 4096,
				   .merge_stderr = true,
				   .keep_fds = keep,
				   .nkeep = 2 };

	if (etc < 0)
		return etc;
	exe = gp_sealed_copy("/sbin/ldconfig", LDCONFIG_MAX, "ldconfig");
	if (exe < 0)
		return exe;
	if (!elf_is_static(exe))
		return gp_error_errno(-EINVAL, "the host's /sbin/ldconfig is not a static "
					       "program: it would run on the container's loader");
	job.exe = exe;
	keep[0] = exe < rootfd ? exe : rootfd;
	keep[1] = exe < rootfd ? rootfd : exe;
	r = gp_child_start(&c, &o, run_ldconfig, &job);
	if (r < 0)
		return gp_error_errno(r, "Failed to start the host's ldconfig");
	r = gp_child_wait(&c);
	if (r < 0) {
		_cleanup_free_ char *out = gp_escape_dup(c.out ? c.out : "", c.out_len, false);

		gp_error("the host's ldconfig, run in %s, %s: %s", rootfs,
			 c.timed_out ? "took too long" : "failed", out ? out : "");
	}
	gp_child_free(&c);
	return r;
}

int gp_inject_mount(const char *rootfs, const struct gp_inject *inj)
{
	_cleanup_close_ int rootfd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct undo *u = calloc(1, sizeof(*u));
	bool cached = false;
	int r;

	if (!u)
		return -ENOMEM;
	r = rootfd < 0 ? gp_error_errno(-errno, "Failed to open rootfs \"%s\"", rootfs) : 0;
	if (r == 0)
		r = refuse_musl(rootfd, rootfs);
	if (r == 0)
		r = refuse_other_versions(rootfd, inj, &cached);
	if (r == 0)
		r = mount_tree(rootfd, rootfs, inj, u);
	if (r == 0)
		r = link_programs(rootfd, rootfs, inj, u);
	if (r == 0)
		r = add_ldconf(rootfd, rootfs, u);
	if (r == 0 && !cached)
		r = update_cache(rootfd, rootfs);
	undo_all(u, r == 0);
	free(u);
	return r;
}
