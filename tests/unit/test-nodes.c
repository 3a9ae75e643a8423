/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host nodes: what pre-start does with a missing, stale or foreign node (as root: real mknod). */
#include "unit.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "start/nodes.h"

static char root[64];

static int setup(void **state)
{
	char dev[128];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/gp-nodes.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(dev, sizeof(dev), "%s/dev", root);
	return mkdir(dev, 0755);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static struct gp_plan one_node(void)
{
	struct gp_plan p = { .n = 1 };

	p.nodes[0] =
	    (struct gp_devnode){ .name = "nvidia-uvm", .major = 238, .minor = 0, .mode = 0666 };
	return p;
}

/* Runs gp_nodes_ensure with stderr and stdout captured into out. */
static int ensure(const struct gp_plan *p, bool modify, bool dry_run, char *out, size_t size)
{
	FILE *tmp = tmpfile();
	int e = dup(2), o = dup(1), r;
	size_t n;

	dup2(fileno(tmp), 2);
	dup2(fileno(tmp), 1);
	r = gp_nodes_ensure(root, p, modify, dry_run);
	fflush(stdout);
	fflush(stderr);
	dup2(e, 2);
	dup2(o, 1);
	close(e);
	close(o);
	rewind(tmp);
	n = fread(out, 1, size - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	return r;
}

static void missing_dry_run_prints_mknod(void **state)
{
	struct gp_plan p = one_node();
	char out[1024];
	struct stat st;

	(void)state;
	assert_int_equal(ensure(&p, true, true, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "would run: mknod -m 0666 "));
	assert_non_null(strstr(out, "/dev/nvidia-uvm c 238 0"));
	assert_int_equal(stat(strcat(strcpy(out, root), "/dev/nvidia-uvm"), &st), -1);
}

static void missing_without_modify_is_an_error(void **state)
{
	struct gp_plan p = one_node();
	char out[1024];

	(void)state;
	assert_int_equal(ensure(&p, false, false, out, sizeof(out)), -ENOENT);
	assert_non_null(strstr(out, "ModifyDeviceFiles is 0"));
}

static void foreign_file_is_left_alone(void **state)
{
	struct gp_plan p = one_node();
	char out[1024], path[128];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/dev/nvidia-uvm", root);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "keep", 4), 4);
	close(fd);
	assert_int_equal(ensure(&p, true, false, out, sizeof(out)), -EEXIST);
	assert_non_null(strstr(out, "is not a character device"));
	assert_int_equal(access(path, F_OK), 0);
	unlink(path);
}

static char *at(const char *rel)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return path;
}

/* The node at rel is c major:minor with that mode and owner. */
static void assert_node(const char *rel, unsigned int maj, unsigned int min, mode_t mode, uid_t uid,
			gid_t gid)
{
	struct stat st;

	assert_int_equal(lstat(at(rel), &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(major(st.st_rdev), maj);
	assert_int_equal(minor(st.st_rdev), min);
	assert_int_equal(st.st_mode & 07777, mode);
	assert_int_equal(st.st_uid, uid);
	assert_int_equal(st.st_gid, gid);
}

static int entries(const char *rel)
{
	DIR *d = opendir(at(rel));
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void need_root(void)
{
	if (geteuid() != 0)
		skip(); /* mknod; make unit runs as root */
}

/* As nvidia-modprobe makes it: the driver's number, mode and owner. */
static void missing_is_made_as_the_driver_says(void **state)
{
	struct gp_plan p = one_node();
	char out[1024];

	(void)state;
	need_root();
	p.nodes[0].mode = 0640;
	p.nodes[0].uid = 1234;
	p.nodes[0].gid = 44;
	assert_int_equal(ensure(&p, true, false, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "creating missing"));
	assert_node("dev/nvidia-uvm", 238, 0, 0640, 1234, 44);
	assert_int_equal(entries("dev"), 1); /* the node alone: no temporary left */
	unlink(at("dev/nvidia-uvm"));
}

static void stale_is_replaced(void **state)
{
	struct gp_plan p = one_node();
	char out[1024];

	(void)state;
	need_root();
	assert_int_equal(mknod(at("dev/nvidia-uvm"), S_IFCHR | 0600, makedev(238, 5)), 0);
	assert_int_equal(ensure(&p, true, false, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "replacing stale"));
	assert_node("dev/nvidia-uvm", 238, 0, 0666, 0, 0);
	unlink(at("dev/nvidia-uvm"));
}

static void stale_without_modify_is_kept(void **state)
{
	struct gp_plan p = one_node();
	char out[1024];

	(void)state;
	need_root();
	assert_int_equal(mknod(at("dev/nvidia-uvm"), S_IFCHR | 0600, makedev(238, 5)), 0);
	assert_int_equal(ensure(&p, false, false, out, sizeof(out)), -ESTALE);
	assert_non_null(strstr(out, "ModifyDeviceFiles is 0"));
	assert_node("dev/nvidia-uvm", 238, 5, 0600, 0, 0);
	/* A dry run prints what it would do and does nothing. */
	assert_int_equal(ensure(&p, true, true, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "would run: mknod -m 0666 "));
	assert_node("dev/nvidia-uvm", 238, 5, 0600, 0, 0);
	unlink(at("dev/nvidia-uvm"));
}

static void right_node_is_left_alone(void **state)
{
	struct gp_plan p = one_node();
	struct stat before, after;
	char out[1024];

	(void)state;
	need_root();
	assert_int_equal(mknod(at("dev/nvidia-uvm"), S_IFCHR | 0600, makedev(238, 0)), 0);
	assert_int_equal(lstat(at("dev/nvidia-uvm"), &before), 0);
	assert_int_equal(ensure(&p, true, false, out, sizeof(out)), 0);
	assert_int_equal(lstat(at("dev/nvidia-uvm"), &after), 0);
	assert_int_equal(after.st_ino, before.st_ino);
	unlink(at("dev/nvidia-uvm"));
}

/* A link to a node of the right number is not the node: refused, and left as it is. */
static void link_in_place_is_refused(void **state)
{
	struct gp_plan p = one_node();
	char out[1024], target[256];
	struct stat st;

	(void)state;
	need_root();
	snprintf(target, sizeof(target), "%s/elsewhere", root);
	assert_int_equal(mknod(target, S_IFCHR | 0666, makedev(238, 0)), 0);
	assert_int_equal(symlink(target, at("dev/nvidia-uvm")), 0);
	assert_int_equal(ensure(&p, true, false, out, sizeof(out)), -EEXIST);
	assert_non_null(strstr(out, "is not a character device"));
	assert_int_equal(lstat(at("dev/nvidia-uvm"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	unlink(at("dev/nvidia-uvm"));
	unlink(target);
}

/* A path that cannot be inspected (a file where a directory should be) is no missing node. */
static void uninspectable_is_an_error(void **state)
{
	struct gp_plan p = { .n = 1 };
	char out[1024];
	int fd;

	(void)state;
	p.nodes[0] =
	    (struct gp_devnode){ .name = "nvidia-caps/nvidia-cap1", .major = 240, .minor = 1 };
	fd = open(at("dev/nvidia-caps"), O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(ensure(&p, false, false, out, sizeof(out)), -ENOTDIR);
	assert_non_null(strstr(out, "Failed to inspect"));
	unlink(at("dev/nvidia-caps"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(missing_dry_run_prints_mknod),
		T(missing_without_modify_is_an_error),
		T(foreign_file_is_left_alone),
		T(missing_is_made_as_the_driver_says),
		T(stale_is_replaced),
		T(stale_without_modify_is_kept),
		T(right_node_is_left_alone),
		T(link_in_place_is_refused),
		T(uninspectable_is_an_error),
	};
#undef T
	/* Each case in a fresh root: one that fails leaves nothing for the next. */
	return cmocka_run_group_tests_name("nodes", tests, NULL, NULL);
}
