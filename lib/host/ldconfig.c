/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The host's ldconfig over a container's rootfs, the one program of the host that runs
 * there: pre-start finds it and checks it (root's all the way up, a static program that
 * needs no loader), the mount hook runs that very file from a sealed copy, chrooted
 * into the rootfs, with no capability, no way to gain one, no network, no descriptor of
 * ours, no environment and a deadline. Nothing of the rootfs runs.
 */
#include <elf.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/child.h"
#include "base/escape.h"
#include "base/trust.h"
#include "base/util.h"
#include "host/ldconfig.h"

#define LDCONFIG_MAX (16u << 20)
#define LDCONFIG_TIMEOUT_MS 10000

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
	const char *dir;
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
 * Roots this process in a detached copy of the rootfs's mounts, nodev, nosuid and noexec
 * throughout: during hooks the container's device cgroup is not on yet, and a device
 * node it made (a disk as /etc/ld.so.cache~) must not be opened, even by uid 0. Every
 * mount below the rootfs's own (its /proc, /sys, /dev) is read-only in the copy too:
 * ldconfig writes /etc only. The copy is attached nowhere: nothing else sees it, and it
 * goes with this process. 0, or -1 with errno.
 */
static int enter_rootfs(int rootfd)
{
	struct mount_attr all = { .attr_set = MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID |
					      MOUNT_ATTR_NOEXEC | MOUNT_ATTR_RDONLY };
	struct mount_attr top = { .attr_clr = MOUNT_ATTR_RDONLY };
	_cleanup_close_ int tree =
	    (int)syscall(SYS_open_tree, rootfd, "",
			 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH);
	struct statvfs sv;

	if (tree < 0 || fstatvfs(tree, &sv) < 0 ||
	    syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &all, sizeof(all)) <
		0)
		return -1;
	/* The rootfs's own mount as writable as it was, and no more. */
	if (!(sv.f_flag & ST_RDONLY) &&
	    syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &top, sizeof(top)) < 0)
		return -1;
	if (fchdir(tree) < 0 || chroot(".") < 0 || chdir("/") < 0)
		return -1;
	return 0;
}

/*
 * In the child (lib/base/child.c has cut it off: no terminal, no descriptor of ours but the
 * two it is given, no environment): root of a nodev copy of the rootfs, no network, no
 * capability and no way to gain one, bounded memory, CPU, file size and descriptors; then
 * the host's ldconfig from its sealed copy.
 */
static int run_ldconfig(void *arg)
{
	const struct ldconfig_job *job = arg;
	char name[] = "ldconfig", keep_links[] = "-X", dir[PATH_MAX];
	char *argv[] = { name, keep_links, dir, NULL }, *envp[] = { NULL };

	snprintf(dir, sizeof(dir), "%s", job->dir);
	if (enter_rootfs(job->rootfd) < 0) {
		fprintf(stderr, "cannot enter the rootfs: %s\n", gp_strerror(errno));
		return 126;
	}
	if (unshare(CLONE_NEWNET | CLONE_NEWIPC) < 0) {
		fprintf(stderr, "cannot leave the network: %s\n", gp_strerror(errno));
		return 126;
	}
	limit(RLIMIT_AS, 1u << 30);
	limit(RLIMIT_CPU, 10);
	limit(RLIMIT_FSIZE, 64u << 20);
	limit(RLIMIT_NOFILE, 64);
	limit(RLIMIT_CORE, 0);
	if (drop_privileges() < 0) {
		fprintf(stderr, "cannot drop privileges: %s\n", gp_strerror(errno));
		return 126;
	}
	syscall(SYS_execveat, job->exe, "", argv, envp, AT_EMPTY_PATH);
	fprintf(stderr, "cannot run the host's ldconfig: %s\n", gp_strerror(errno));
	return 127;
}

int gp_ldconfig_find(struct gp_ldconfig *l)
{
	const char *path =
	    access("/sbin/ldconfig.real", F_OK) == 0 ? "/sbin/ldconfig.real" : "/sbin/ldconfig";
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r = gp_trust_program(path, l->path, sizeof(l->path));

	if (r < 0)
		return r;
	fd = open(l->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return gp_error_errno(-errno, "Failed to open \"%s\"", l->path);
	if (!elf_is_static(fd))
		return gp_error_errno(-GP_EBADCONF,
				      "the host's %s is not a static program: it would run on the "
				      "container's loader; set \"inject = no\" under [driver]",
				      l->path);
	l->dev = st.st_dev;
	l->ino = st.st_ino;
	return 0;
}

/* A sealed copy of the file pre-start checked, read through one descriptor. */
static int sealed_copy(const struct gp_ldconfig *l)
{
	_cleanup_close_ int fd = open(l->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char proc[64];
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return gp_error_errno(-errno, "Failed to open \"%s\"", l->path);
	if (st.st_dev != l->dev || st.st_ino != l->ino)
		return gp_error_errno(-ESTALE,
				      "\"%s\" is not the file pre-start checked: restart the "
				      "container",
				      l->path);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return gp_sealed_copy(proc, LDCONFIG_MAX, "ldconfig");
}

int gp_ldconfig_run(const struct gp_ldconfig *l, int rootfd, const char *rootfs, const char *dir)
{
	_cleanup_close_ int exe = sealed_copy(l);
	struct ldconfig_job job = { .exe = exe, .rootfd = rootfd, .dir = dir };
	int keep[2] = { exe < rootfd ? exe : rootfd, exe < rootfd ? rootfd : exe }, r;
	struct gp_child c;
	struct gp_child_opts o = { .timeout_ms = LDCONFIG_TIMEOUT_MS,
				   .output_max = 4096,
				   .merge_stderr = true,
				   .keep_fds = keep,
				   .nkeep = 2 };

	if (exe < 0)
		return exe;
	if (!elf_is_static(exe))
		return gp_error_errno(-GP_EBADCONF, "\"%s\" is no longer a static program",
				      l->path);
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
