/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The hook's bind into a container's /dev against hostile target trees built here, with
 * real source nodes (mknod) in a temporary host root. For each hostile case: refusal, no
 * mount left anywhere (/proc/self/mountinfo before and after) and the whole tree, the
 * victim directory outside the rootfs included, exactly as it was. Runs as root in a
 * private mount namespace of its own, so that a case that fails leaves no mount on the host.
 */
#include "unit.h"

#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/util.h"
#include "start/mount.h"

/* base/host/dev: the host's nodes; base/rootfs/dev: the container's; base/victim: the host's. */
static char base[64], said[4096];

static char *at(const char *rel)
{
	static char paths[4][256];
	static int next;
	char *p = paths[next++ % 4];

	snprintf(p, sizeof(paths[0]), "%s/%s", base, rel);
	return p;
}

static void make_node(const char *rel, mode_t type, unsigned int maj, unsigned int min)
{
	assert_int_equal(mknod(at(rel), type | 0666, makedev(maj, min)), 0);
}

static void make_file(const char *rel, const char *text)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* The host nodes the plans below name: nvidia0 is c 1:3, nvidia1 c 1:5, nvidia-cap1 c 1:7. */
static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/gp-mount.XXXXXX");
	if (!mkdtemp(base) || mkdir(at("host"), 0755) || mkdir(at("host/dev"), 0755) ||
	    mkdir(at("host/dev/nvidia-caps"), 0755) || mkdir(at("rootfs"), 0755) ||
	    mkdir(at("rootfs/dev"), 0755) || mkdir(at("victim"), 0755))
		return -1;
	make_node("host/dev/nvidia0", S_IFCHR, 1, 3);
	make_node("host/dev/nvidia1", S_IFCHR, 1, 5);
	make_node("host/dev/nvidia-caps/nvidia-cap1", S_IFCHR, 1, 7);
	make_file("victim/file", "secret\n");
	alarm(5); /* a case that blocks (on a FIFO, say) ends the run, not the machine's time */
	return 0;
}

/* Takes off whatever a failed case left mounted under base, then removes base. */
static int teardown(void **state)
{
	char line[1024], mnt[512], cmd[128];
	bool again = true;

	(void)state;
	alarm(0);
	while (again) {
		FILE *f = fopen("/proc/self/mountinfo", "r");

		again = false;
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "%*s %*s %*s %*s %511s", mnt) == 1 &&
			    strncmp(mnt, base, strlen(base)) == 0 &&
			    umount2(mnt, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
				again = true;
		if (f)
			fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	return system(cmd);
}

/* A case that blocks (on a FIFO, say) ends the run, and leaves no tree behind in /tmp. */
static void on_alarm(int sig)
{
	static const char msg[] = "test-mount: a case blocked for 5 s\n";

	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	/* Not async-signal-safe, but the case is stuck in a system call: nothing else runs. */
	teardown(NULL);
	_exit(128 + sig);
}

/* The group runs in a mount namespace of its own, with no propagation back to the host. */
static int group_setup(void **state)
{
	(void)state;
	signal(SIGALRM, on_alarm);
	if (geteuid() != 0) {
		fprintf(stderr, "test-mount must run as root (sudo make unit)\n");
		return -1;
	}
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	return 0;
}

/* What a refusal must leave as it was: every mount, every file under base. */
struct snap {
	char *mounts, *tree;
};

static struct gp_buf tree_buf;

static int add_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)flag;
	(void)ftw;
	return gp_buf_printf(&tree_buf, "%s %o %u:%u %lld\n", path + strlen(base),
			     (unsigned int)st->st_mode, major(st->st_rdev), minor(st->st_rdev),
			     S_ISDIR(st->st_mode) ? 0LL : (long long)st->st_size);
}

static int by_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The tree under base, one sorted line per entry: path, mode, rdev, size. */
static char *tree(void)
{
	char *lines[256], *save = NULL, *l, *out;
	size_t n = 0, len = 0;

	memset(&tree_buf, 0, sizeof(tree_buf));
	assert_int_equal(nftw(base, add_entry, 16, FTW_PHYS), 0);
	for (l = strtok_r(tree_buf.data, "\n", &save); l && n < 256;
	     l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	qsort(lines, n, sizeof(lines[0]), by_line);
	out = calloc(1, tree_buf.len + 2);
	assert_non_null(out);
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(out + len, "%s\n", lines[i]);
	gp_buf_free(&tree_buf);
	return out;
}

static char *mounts(void)
{
	char *buf = NULL;

	assert_int_equal(gp_read_file("/proc/self/mountinfo", 1u << 20, &buf, NULL), 0);
	return buf;
}

static void take(struct snap *s)
{
	s->mounts = mounts();
	s->tree = tree();
}

static void assert_unchanged(struct snap *s)
{
	char *m = mounts(), *t = tree();

	assert_string_equal(m, s->mounts);
	assert_string_equal(t, s->tree);
	free(m);
	free(t);
	free(s->mounts);
	free(s->tree);
}

/* gp_mount_plan on base's rootfs and host root, with what it says kept in said. */
static int bind_plan(const struct gp_plan *p)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), r;
	size_t n;

	assert_non_null(tmp);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	r = gp_mount_plan(at("rootfs"), at("host"), p, NULL, NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(said, 1, sizeof(said) - 1, tmp);
	said[n] = '\0';
	fclose(tmp);
	return r;
}

static struct gp_plan plan_of(const char *a, const char *b)
{
	struct gp_plan p = { 0 };
	const char *names[] = { a, b };

	for (size_t i = 0; i < 2 && names[i]; i++) {
		struct gp_devnode *n = &p.nodes[p.n++];

		snprintf(n->name, sizeof(n->name), "%s", names[i]);
		n->major = 1;
		n->minor = strcmp(names[i], "nvidia0") == 0   ? 3
			   : strcmp(names[i], "nvidia1") == 0 ? 5
							      : 7;
	}
	return p;
}

/* The case is refused with message in what it said, and nothing anywhere changed. */
static void refused(const struct gp_plan *p, const char *message)
{
	struct snap s;
	int r;

	take(&s);
	r = bind_plan(p);
	if (r >= 0)
		fail_msg("bound (%d) where it must refuse; said: %s", r, said);
	if (!strstr(said, message))
		fail_msg("\"%s\" not in \"%s\"", message, said);
	assert_unchanged(&s);
}

/* The mountinfo line whose mount point is path, or NULL. */
static char *mount_line(const char *buf, const char *path, char *line, size_t size)
{
	char mnt[512];

	for (const char *p = buf; *p;) {
		size_t n = strcspn(p, "\n");

		snprintf(line, size, "%.*s", (int)n, p);
		if (sscanf(line, "%*s %*s %*s %*s %511s", mnt) == 1 && strcmp(mnt, path) == 0)
			return line;
		p += n + (p[n] ? 1 : 0);
	}
	return NULL;
}

/* rel in the rootfs is a bind of c 1:minor, nosuid and noexec; taken off again here. */
static void assert_bound(const char *rel, unsigned int minor)
{
	char line[1024], opts[256];
	char *m = mounts(), *path = at(rel);
	struct stat st;

	if (!mount_line(m, path, line, sizeof(line)))
		fail_msg("no mount on %s", path);
	assert_int_equal(sscanf(line, "%*s %*s %*s %*s %*s %255s", opts), 1);
	if (!strstr(opts, "nosuid") || !strstr(opts, "noexec"))
		fail_msg("%s is mounted with \"%s\", not nosuid,noexec", path, opts);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(st.st_rdev, makedev(1, minor));
	assert_int_equal(umount2(path, 0), 0);
	free(m);
}

static void good_tree_gets_the_binds(void **state)
{
	struct gp_plan p = plan_of("nvidia0", "nvidia-caps/nvidia-cap1");
	char *before = mounts(), *after;
	struct stat st;

	(void)state;
	assert_int_equal(bind_plan(&p), 0);
	assert_bound("rootfs/dev/nvidia0", 3);
	assert_bound("rootfs/dev/nvidia-caps/nvidia-cap1", 7);
	after = mounts();
	assert_string_equal(after, before);
	/* Under the binds: the empty files it made to mount on. */
	assert_int_equal(lstat(at("rootfs/dev/nvidia0"), &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size == 0);
	free(before);
	free(after);
}

/* LXC's autodev /dev is a tmpfs of its own: the one mount crossing that is allowed. */
static void autodev_tmpfs_gets_the_bind(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	assert_int_equal(mount("tmpfs", at("rootfs/dev"), "tmpfs", 0, "mode=755"), 0);
	assert_int_equal(bind_plan(&p), 0);
	assert_bound("rootfs/dev/nvidia0", 3);
	assert_int_equal(umount2(at("rootfs/dev"), 0), 0);
}

/* A plain file or a node already there (of any number) is covered by the bind. */
static void existing_file_or_node_gets_the_bind(void **state)
{
	struct gp_plan p = plan_of("nvidia0", "nvidia1");

	(void)state;
	make_file("rootfs/dev/nvidia0", "");
	make_node("rootfs/dev/nvidia1", S_IFCHR, 1, 8);
	assert_int_equal(bind_plan(&p), 0);
	assert_bound("rootfs/dev/nvidia0", 3);
	assert_bound("rootfs/dev/nvidia1", 5);
}

static void dev_symlink_to_host_dir_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	assert_int_equal(rmdir(at("rootfs/dev")), 0);
	assert_int_equal(symlink(at("victim"), at("rootfs/dev")), 0);
	refused(&p, "is not a plain directory inside the rootfs");
}

/* Even a link that stays inside the rootfs is not followed. */
static void dev_symlink_inside_rootfs_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	assert_int_equal(rename(at("rootfs/dev"), at("rootfs/realdev")), 0);
	assert_int_equal(symlink("realdev", at("rootfs/dev")), 0);
	refused(&p, "is not a plain directory inside the rootfs");
}

static void dev_that_is_a_file_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	assert_int_equal(rmdir(at("rootfs/dev")), 0);
	make_file("rootfs/dev", "");
	refused(&p, "is not a plain directory inside the rootfs");
}

static void node_symlink_to_host_file_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	assert_int_equal(symlink(at("victim/file"), at("rootfs/dev/nvidia0")), 0);
	refused(&p, "/dev/nvidia0 in the container cannot be a mount target");
}

/* A link to a file that does not exist yet: nothing may be made where it points. */
static void node_dangling_symlink_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	assert_int_equal(symlink(at("victim/new"), at("rootfs/dev/nvidia0")), 0);
	refused(&p, "/dev/nvidia0 in the container cannot be a mount target");
}

/* A link to a node of the right number is still a link. */
static void node_symlink_to_a_node_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	assert_int_equal(symlink(at("host/dev/nvidia0"), at("rootfs/dev/nvidia0")), 0);
	refused(&p, "/dev/nvidia0 in the container cannot be a mount target");
}

static void node_fifo_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	assert_int_equal(mkfifo(at("rootfs/dev/nvidia0"), 0644), 0);
	refused(&p, "/dev/nvidia0 in the container cannot be a mount target");
}

static void node_socket_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	(void)state;
	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", at("rootfs/dev/nvidia0"));
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	refused(&p, "/dev/nvidia0 in the container cannot be a mount target");
}

static void node_directory_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	assert_int_equal(mkdir(at("rootfs/dev/nvidia0"), 0755), 0);
	make_file("rootfs/dev/nvidia0/inside", "");
	refused(&p, "/dev/nvidia0 in the container cannot be a mount target");
}

/* A file that is a mount point already (the owner's bind of a host file, say). */
static void node_mount_point_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	make_file("rootfs/dev/nvidia0", "");
	assert_int_equal(mount(at("victim/file"), at("rootfs/dev/nvidia0"), NULL, MS_BIND, NULL),
			 0);
	refused(&p, "/dev/nvidia0 in the container cannot be a mount target");
	assert_int_equal(umount2(at("rootfs/dev/nvidia0"), 0), 0);
}

static void caps_dir_symlink_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia-caps/nvidia-cap1", NULL);

	(void)state;
	assert_int_equal(symlink(at("victim"), at("rootfs/dev/nvidia-caps")), 0);
	refused(&p, "/dev/nvidia-caps in the container is not a plain directory");
}

/* BENEATH alone would follow a link that stays under /dev. */
static void caps_dir_symlink_inside_dev_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia-caps/nvidia-cap1", NULL);

	(void)state;
	assert_int_equal(mkdir(at("rootfs/dev/realcaps"), 0755), 0);
	assert_int_equal(symlink("realcaps", at("rootfs/dev/nvidia-caps")), 0);
	refused(&p, "/dev/nvidia-caps in the container is not a plain directory");
}

static void caps_dir_mount_point_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia-caps/nvidia-cap1", NULL);

	(void)state;
	assert_int_equal(mkdir(at("rootfs/dev/nvidia-caps"), 0755), 0);
	assert_int_equal(mount(at("victim"), at("rootfs/dev/nvidia-caps"), NULL, MS_BIND, NULL), 0);
	refused(&p, "/dev/nvidia-caps in the container is not a plain directory");
	assert_int_equal(umount2(at("rootfs/dev/nvidia-caps"), 0), 0);
}

/* The host side: only a character device of the planned number is bound. */
static void source_with_another_number_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	p.nodes[0].minor = 4;
	refused(&p, "is not c 1:4 as planned");
}

static void source_block_device_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	assert_int_equal(unlink(at("host/dev/nvidia0")), 0);
	make_node("host/dev/nvidia0", S_IFBLK, 1, 3);
	refused(&p, "is not c 1:3 as planned");
}

static void source_regular_file_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	p.nodes[0].major = p.nodes[0].minor = 0; /* a file's st_rdev */
	assert_int_equal(unlink(at("host/dev/nvidia0")), 0);
	make_file("host/dev/nvidia0", "");
	refused(&p, "is not c 0:0 as planned");
}

/* A link in the host root to the real /dev/null (c 1:3) is still not the planned node. */
static void source_symlink_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	assert_int_equal(unlink(at("host/dev/nvidia0")), 0);
	assert_int_equal(symlink("/dev/null", at("host/dev/nvidia0")), 0);
	refused(&p, "is not c 1:3 as planned");
}

static void source_missing_is_refused(void **state)
{
	struct gp_plan p = plan_of("nvidia0", NULL);

	(void)state;
	assert_int_equal(unlink(at("host/dev/nvidia0")), 0);
	refused(&p, "Failed to open host node");
}

/* A refusal after a bind was made takes that bind off and removes the file it made. */
static void refusal_undoes_earlier_binds(void **state)
{
	struct gp_plan p = plan_of("nvidia0", "nvidia1");

	(void)state;
	assert_int_equal(mkfifo(at("rootfs/dev/nvidia1"), 0644), 0);
	refused(&p, "/dev/nvidia1 in the container cannot be a mount target");
}

static void refusal_keeps_a_file_it_did_not_make(void **state)
{
	struct gp_plan p = plan_of("nvidia0", "nvidia1");

	(void)state;
	make_file("rootfs/dev/nvidia0", "");
	assert_int_equal(unlink(at("host/dev/nvidia1")), 0);
	refused(&p, "Failed to open host node");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(good_tree_gets_the_binds),
		T(autodev_tmpfs_gets_the_bind),
		T(existing_file_or_node_gets_the_bind),
		T(dev_symlink_to_host_dir_is_refused),
		T(dev_symlink_inside_rootfs_is_refused),
		T(dev_that_is_a_file_is_refused),
		T(node_symlink_to_host_file_is_refused),
		T(node_dangling_symlink_is_refused),
		T(node_symlink_to_a_node_is_refused),
		T(node_fifo_is_refused),
		T(node_socket_is_refused),
		T(node_directory_is_refused),
		T(node_mount_point_is_refused),
		T(caps_dir_symlink_is_refused),
		T(caps_dir_symlink_inside_dev_is_refused),
		T(caps_dir_mount_point_is_refused),
		T(source_with_another_number_is_refused),
		T(source_block_device_is_refused),
		T(source_regular_file_is_refused),
		T(source_symlink_is_refused),
		T(source_missing_is_refused),
		T(refusal_undoes_earlier_binds),
		T(refusal_keeps_a_file_it_did_not_make),
	};
#undef T
	return cmocka_run_group_tests_name("mount", tests, group_setup, NULL);
}
