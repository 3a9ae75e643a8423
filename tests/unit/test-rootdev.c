/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libblkid before formatting: images made in the test, empty and with a filesystem. */
#include "unit.h"

#include <fcntl.h>
#include <unistd.h>

#include "base/log.h"
#include "driver/rootdev.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gp-rootdev.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* An 8 MiB image, then "before PATH after" run on it when before is given. */
static void image(const char *name, const char *before, const char *after, char *path, size_t size)
{
	char sh[384];

	snprintf(path, size, "%s/%s", dir, name);
	snprintf(sh, sizeof(sh), "truncate -s 8M %s", path);
	assert_int_equal(system(sh), 0);
	if (!before)
		return;
	snprintf(sh, sizeof(sh), "%s %s %s", before, path, after);
	assert_int_equal(system(sh), 0);
}

static int check_quiet(const char *path, bool force, char *what, size_t size)
{
	struct gp_log_capture quiet; /* what it says is not this test's subject */
	int r;

	gp_log_capture_start(&quiet);
	r = gp_rootdev_check(path, force, what, size);
	gp_log_capture_stop(&quiet);
	return r;
}

static void empty_image_may_be_formatted(void **state)
{
	char path[128], what[64];

	(void)state;
	image("empty.img", NULL, NULL, path, sizeof(path));
	assert_int_equal(check_quiet(path, false, what, sizeof(what)), 0);
	assert_string_equal(what, "nothing");
}

static void filesystem_is_refused_unless_forced(void **state)
{
	char path[128], what[64];

	(void)state;
	image("ext4.img", "mkfs.ext4 -q -F", ">/dev/null 2>&1", path, sizeof(path));
	assert_int_equal(check_quiet(path, false, what, sizeof(what)), -EEXIST);
	assert_string_equal(what, "ext4 filesystem");
	assert_int_equal(check_quiet(path, true, what, sizeof(what)), 0);
}

/* A DOS partition table written by hand: one Linux partition at sector 2048. */
static void partition_table_is_refused(void **state)
{
	unsigned char mbr[512] = { 0 };
	unsigned char entry[16] = {
		0x00, 0, 0, 0, 0x83, 0, 0, 0, 0x00, 0x08, 0, 0, 0x00, 0x20, 0, 0
	};
	char path[128], what[64];
	int fd;

	(void)state;
	image("dos.img", NULL, NULL, path, sizeof(path));
	memcpy(mbr + 446, entry, sizeof(entry));
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, mbr, sizeof(mbr), 0), 512);
	close(fd);
	assert_int_equal(check_quiet(path, false, what, sizeof(what)), -EEXIST);
	assert_string_equal(what, "dos partition table");
}

static void missing_file_is_an_error(void **state)
{
	char what[64];

	(void)state;
	assert_true(check_quiet("/nonexistent/disk.img", false, what, sizeof(what)) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_image_may_be_formatted),
		cmocka_unit_test(filesystem_is_refused_unless_forced),
		cmocka_unit_test(partition_table_is_refused),
		cmocka_unit_test(missing_file_is_an_error),
	};
	return cmocka_run_group_tests_name("rootdev", tests, setup, teardown);
}
