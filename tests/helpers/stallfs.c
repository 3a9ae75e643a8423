/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stallfs [--ns PID] MOUNTPOINT
 *
 * A test double for tests/integration: a FUSE server, spoken to over
 * /dev/fuse without libfuse, that answers INIT, GETATTR of its root and
 * STATFS (STATX, ACCESS and the xattr requests of its root with ENOSYS),
 * and never a LOOKUP nor any other request.  It reads them and leaves them pending, so whatever
 * walks a path below MOUNTPOINT (or opens the root as a directory) waits in the kernel for an
 * answer that never comes and, once SIGKILLed, stays in state D until this server dies.  That is
 * the container's own stalled mount.
 *
 * --ns PID makes the mount in the mount namespace of PID, at MOUNTPOINT as
 * PID sees it.
 *
 * "ready" is printed once the mount exists and INIT was answered.  On
 * SIGTERM or SIGINT the server detaches its mount (if still on top at
 * MOUNTPOINT) and exits 0; closing /dev/fuse aborts the connection, which
 * releases the blocked requests.  Killed otherwise, it leaves the mount
 * behind, failing with ENOTCONN, for umount -l.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/fuse.h>

#define STALL_MAX_WRITE 4096u
#define STALL_BUF_SIZE (FUSE_MIN_READ_BUFFER + STALL_MAX_WRITE)
#define STALL_ATTR_VALID 3600u
#define STALL_MIN_MINOR 23u

/* FUSE_STATX, of protocol 7.39: newer than the <linux/fuse.h> of Debian 12. */
#define STALL_OP_STATX 52u

static const char *mountpoint;
static uint64_t our_mount_id;
static int initialized;
static char buf[STALL_BUF_SIZE] __attribute__((aligned(8)));

static void die(const char *what)
{
	fprintf(stderr, "stallfs: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: stallfs [--ns PID] MOUNTPOINT\n");
	exit(1);
}

/*
 * The id of the mount on top at MOUNTPOINT, 0 if unknown.  DONT_SYNC: from
 * what is cached, without a request this single-threaded server would have
 * to answer itself.  The walk to a mount's root asks the server nothing.
 */
static uint64_t mount_id(void)
{
	struct statx stx;
	int flags = AT_STATX_DONT_SYNC | AT_NO_AUTOMOUNT;

	if (statx(AT_FDCWD, mountpoint, flags, STATX_MNT_ID, &stx) ||
	    !(stx.stx_mask & STATX_MNT_ID))
		return 0;
	return stx.stx_mnt_id;
}

/* Detaches the mount only while the one on top at MOUNTPOINT is still ours. */
static void on_signal(int sig)
{
	(void)sig;
	if (our_mount_id && our_mount_id == mount_id())
		umount2(mountpoint, MNT_DETACH);
	_exit(0);
}

static void set_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL))
		die("sigaction");
}

static long parse_pid(const char *s)
{
	char *end;
	long pid;

	errno = 0;
	pid = strtol(s, &end, 10);
	if (errno || end == s || *end || pid <= 0 || pid > INT_MAX) {
		fprintf(stderr, "stallfs: --ns: not a PID: %s\n", s);
		exit(1);
	}
	return pid;
}

/*
 * Both /proc/PID/ns/mnt and /proc/PID/root are opened before setns(): once
 * in PID's namespace, /proc there may be another PID namespace's or absent.
 * setns() leaves us at that namespace's root mount, which need not be PID's
 * root (pivot_root, chroot), so we chroot into PID's root as well.  That way
 * MOUNTPOINT, absolute symlinks in it included, resolves as PID sees it, and
 * the mount point lies on a mount of the namespace we now are in.
 */
static void enter_ns(long pid)
{
	char path[64];
	int nsfd, rootfd;

	snprintf(path, sizeof(path), "/proc/%ld/ns/mnt", pid);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		die(path);
	snprintf(path, sizeof(path), "/proc/%ld/root", pid);
	rootfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		die(path);
	if (setns(nsfd, CLONE_NEWNS))
		die("setns");
	if (fchdir(rootfd))
		die("fchdir to the root of --ns PID");
	if (chroot("."))
		die("chroot to the root of --ns PID");
	if (chdir("/"))
		die("chdir /");
	close(nsfd);
	close(rootfd);
}

static void do_mount(int fd)
{
	char opts[128];

	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd);
	if (mount("stallfs", mountpoint, "fuse.stallfs", MS_NOSUID | MS_NODEV, opts)) {
		fprintf(stderr, "stallfs: mount %s: %s\n", mountpoint, strerror(errno));
		exit(1);
	}
	our_mount_id = mount_id();
}

/*
 * ENOENT: the request was interrupted and is gone; ENODEV: the connection
 * was aborted or the mount went away.
 */
static void reply(int fd, uint64_t unique, int error, const void *arg, size_t size)
{
	struct fuse_out_header out;
	struct iovec iov[2];

	out.len = (uint32_t)(sizeof(out) + size);
	out.error = error;
	out.unique = unique;
	iov[0].iov_base = &out;
	iov[0].iov_len = sizeof(out);
	iov[1].iov_base = (void *)arg;
	iov[1].iov_len = size;
	if (writev(fd, iov, size ? 2 : 1) >= 0 || errno == ENOENT)
		return;
	if (errno == ENODEV)
		exit(0);
	die("write /dev/fuse");
}

/*
 * Returns 1 once INIT is answered with a version the kernel takes, 0 when
 * the kernel's major is newer than ours: it then sends INIT again.
 */
static int on_init(int fd, const struct fuse_in_header *in, const char *arg)
{
	struct fuse_init_in init;
	struct fuse_init_out out;

	memset(&init, 0, sizeof(init));
	memcpy(&init, arg, 4 * sizeof(uint32_t));
	memset(&out, 0, sizeof(out));
	out.major = FUSE_KERNEL_VERSION;
	out.minor = FUSE_KERNEL_MINOR_VERSION;
	if (init.major > FUSE_KERNEL_VERSION) {
		reply(fd, in->unique, 0, &out, FUSE_COMPAT_INIT_OUT_SIZE);
		return 0;
	}
	if (init.major < FUSE_KERNEL_VERSION || init.minor < STALL_MIN_MINOR) {
		fprintf(stderr, "stallfs: kernel FUSE %u.%u is too old\n", init.major, init.minor);
		exit(1);
	}
	if (init.minor < out.minor)
		out.minor = init.minor;
	initialized = 1;
	out.max_readahead = init.max_readahead;
	out.max_write = STALL_MAX_WRITE;
	reply(fd, in->unique, 0, &out, sizeof(out));
	return 1;
}

static void on_getattr(int fd, const struct fuse_in_header *in)
{
	struct fuse_attr_out out;

	if (in->nodeid != FUSE_ROOT_ID)
		return;
	memset(&out, 0, sizeof(out));
	out.attr_valid = STALL_ATTR_VALID;
	out.attr.ino = FUSE_ROOT_ID;
	out.attr.mode = 040755;
	out.attr.nlink = 2;
	out.attr.blksize = 4096;
	reply(fd, in->unique, 0, &out, sizeof(out));
}

/*
 * A statx() asking for more than the basic stats (coreutils stat asks for
 * the birth time) comes as STATX rather than GETATTR.  ENOSYS makes the
 * kernel fall back to GETATTR, for good on this connection.
 */
static void on_statx(int fd, const struct fuse_in_header *in)
{
	if (in->nodeid == FUSE_ROOT_ID)
		reply(fd, in->unique, -ENOSYS, NULL, 0);
}

/*
 * ACCESS of the root (chdir and chroot into the mount ask it): ENOSYS, so that the kernel
 * grants it without asking again, and a process can make the mount its root. The same for
 * GETXATTR and LISTXATTR (an overlay over the mount asks them): no extended attributes.
 */
static void on_access(int fd, const struct fuse_in_header *in)
{
	if (in->nodeid == FUSE_ROOT_ID)
		reply(fd, in->unique, -ENOSYS, NULL, 0);
}

static void on_statfs(int fd, const struct fuse_in_header *in)
{
	struct fuse_statfs_out out;

	memset(&out, 0, sizeof(out));
	out.st.bsize = 4096;
	out.st.frsize = 4096;
	out.st.namelen = 255;
	reply(fd, in->unique, 0, &out, sizeof(out));
}

/* Reads one request into buf; returns its length, or 0 to read again. */
static size_t read_request(int fd)
{
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0) {
		if (errno == EINTR || errno == EAGAIN || errno == ENOENT)
			return 0;
		if (errno == ENODEV)
			exit(0);
		die("read /dev/fuse");
	}
	if ((size_t)n < sizeof(struct fuse_in_header)) {
		fprintf(stderr, "stallfs: short request of %zd bytes\n", n);
		exit(1);
	}
	return (size_t)n;
}

/*
 * Everything not answered here (LOOKUP, OPENDIR, INTERRUPT, ...)
 * is dropped unanswered and stays pending in the kernel.  FORGET and
 * BATCH_FORGET take no answer anyway.
 */
static void dispatch(int fd, const struct fuse_in_header *in, size_t len)
{
	const char *arg = buf + sizeof(*in);

	switch (in->opcode) {
	case FUSE_INIT:
		if (len < sizeof(*in) + 4 * sizeof(uint32_t)) {
			fprintf(stderr, "stallfs: short INIT\n");
			exit(1);
		}
		if (!initialized && on_init(fd, in, arg)) {
			printf("ready\n");
			if (fflush(stdout))
				die("write stdout");
		}
		break;
	case FUSE_GETATTR:
		on_getattr(fd, in);
		break;
	case STALL_OP_STATX:
		on_statx(fd, in);
		break;
	case FUSE_ACCESS:
	case FUSE_GETXATTR:
	case FUSE_LISTXATTR:
		on_access(fd, in);
		break;
	case FUSE_STATFS:
		on_statfs(fd, in);
		break;
	case FUSE_DESTROY:
		reply(fd, in->unique, 0, NULL, 0);
		break;
	default:
		break;
	}
}

static void serve(int fd)
{
	struct fuse_in_header in;
	size_t len;

	for (;;) {
		len = read_request(fd);
		if (!len)
			continue;
		memcpy(&in, buf, sizeof(in));
		dispatch(fd, &in, len);
	}
}

int main(int argc, char **argv)
{
	long pid = 0;
	int i, fd;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--ns") && i + 1 < argc)
			pid = parse_pid(argv[++i]);
		else
			usage();
	}
	if (i != argc - 1)
		usage();
	mountpoint = argv[i];
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open /dev/fuse");
	if (pid)
		enter_ns(pid);
	set_signals();
	do_mount(fd);
	serve(fd);
	return 0;
}
