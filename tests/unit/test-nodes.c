/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host nodes: what pre-start does with a missing, stale or foreign node (no mknod here). */
#include "unit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nodes.h"

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
	    (struct gp_node){ .name = "nvidia-uvm", .major = 238, .minor = 0, .mode = 0666 };
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(missing_dry_run_prints_mknod),
		cmocka_unit_test(missing_without_modify_is_an_error),
		cmocka_unit_test(foreign_file_is_left_alone),
	};
	return cmocka_run_group_tests_name("nodes", tests, setup, teardown);
}
