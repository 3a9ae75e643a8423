/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check's view of the driver's user space (lib/check/checkdriver.c) over a scratch copy of the
 * H200 fixture: its loader cache written by the real ldconfig -r over the libcuda test
 * double, and a container rootfs beside it with one of its own. Each case with the
 * whole set of ids.
 */
#include "unit.h"

#include <unistd.h>

#include "base/util.h"
#include "check/check.h"
#include "check/rootfsread.h"
#include "config/ini.h"
#include "ids.h"

static char root[128], rootfs[160];
static struct gp_findings found;

/* The double as the file DIR/libcuda.so.VERSION under dir, and the cache ldconfig writes. */
static void put_libcuda(const char *top, const char *dir_and_version)
{
	char dir[128], version[32];

	assert_int_equal(sscanf(dir_and_version, "%127s %31s", dir, version), 2);
	sh("mkdir -p %s%s && cp %s %s%s/libcuda.so.%s && echo %s >>%s/etc/ld.so.conf && "
	   "ldconfig -r %s",
	   top, dir, FAKECUDA, top, dir, version, dir, top, top);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/gp-checkdriver.XXXXXX");
	assert_non_null(mkdtemp(root));
	sh("cp -a " FIXTURES "/h200-580-open/. %s/ && mkdir -p %s/etc", root, root);
	snprintf(rootfs, sizeof(rootfs), "%s/ct", root);
	sh("mkdir -p %s/etc %s/lib", rootfs, rootfs);
	put_libcuda(root, "/usr/lib/x86_64-linux-gnu 580.159.04");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", root);
	return 0;
}

static const struct gp_findings *run(const char *caps, const char *mode, bool inject)
{
	struct gp_check_run run;
	struct gp_ini conf;
	struct gp_log_capture quiet;
	struct gp_rootfs_read *read;

	memset(&found, 0, sizeof(found));
	gp_ini_init(&conf);
	snprintf(conf.path, sizeof(conf.path), "101.ini");
	snprintf(conf.mode, sizeof(conf.mode), "%s", mode);
	assert_int_equal(gp_ini_set(&conf, "driver", "inject", inject ? "yes" : "no", "t"), 0);
	assert_int_equal(gp_ini_set(&conf, "driver", "capabilities", caps, "t"), 0);
	gp_log_capture_start(&quiet);
	assert_int_equal(gp_check_run_init(&run, test_ctx(root, "/nonexistent", NULL, false),
					   test_runtime(root, false)),
			 0);
	read = gp_check_read_rootfs(&run, "101", rootfs);
	gp_check_driver(&run, "101", &conf, rootfs, read, &found);
	gp_rootfs_read_free(read);
	gp_check_run_free(&run);
	gp_log_capture_stop(&quiet);
	return &found;
}

static void capabilities(void **state)
{
	(void)state;
	assert_ids(run("compute, utility", "", true), "inject-capability-missing", NULL);
	assert_non_null(strstr(found.v[0].summary, "101 asks to inject utility"));
	assert_ids(run("compute", "", true), NULL);
	assert_ids(run("compute, video", "", true), "inject-capability-missing", NULL);
	assert_ids(run("compute, video", "", false), NULL); /* nothing is injected */
}

static void host_other_version(void **state)
{
	(void)state;
	put_libcuda(root, "/usr/lib/old 575.51.02");
	assert_ids(run("compute", "", true), "inject-other-version", NULL);
	assert_non_null(strstr(found.v[0].evidence, "/usr/lib/old/libcuda.so.1 (575.51.02)"));
}

static void container_other_version(void **state)
{
	(void)state;
	put_libcuda(rootfs, "/opt/own 575.51.02");
	assert_ids(run("compute", "", true), "container-driver-version", NULL);
	assert_ids(run("compute", "", false), "container-driver-version", NULL);
	sh("rm -f %s/opt/own/libcuda.so.575.51.02", rootfs);
	put_libcuda(rootfs, "/opt/own 580.159.04");
	assert_ids(run("compute", "", true), NULL); /* the module's own version */
}

static void devn_and_musl(void **state)
{
	(void)state;
	assert_ids(run("compute", "devn", true), "inject-devn", NULL);
	assert_ids(run("compute", "devn", false), NULL);
	sh("touch %s/lib/ld-musl-x86_64.so.1", rootfs);
	assert_ids(run("compute", "", true), "inject-musl", NULL);
	assert_ids(run("compute", "", false), NULL);
}

/* A host file to inject that others than root could change: the start is refused. */
static void host_file_untrusted(void **state)
{
	(void)state;
	sh("chown 100000 %s/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04", root);
	assert_ids(run("compute", "", true), "inject-file-untrusted", NULL);
	assert_non_null(strstr(found.v[0].summary, "libcuda.so.580.159.04, which others"));
	assert_non_null(strstr(found.v[0].evidence, "owned by uid 100000"));
	assert_ids(run("compute", "", false), NULL); /* nothing is injected */
	sh("chown 0 %s/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04 && chmod 0775 "
	   "%s/usr/lib/x86_64-linux-gnu",
	   root, root);
	assert_ids(run("compute", "", true), "inject-file-untrusted", NULL);
	assert_non_null(strstr(found.v[0].evidence, "x86_64-linux-gnu\" is a directory owned "
						    "by uid 0 with mode 0775"));
}

/*
 * What check cannot read is said, and nothing is read across a mount of the container's
 * (a tmpfs here stands in for its FUSE or NFS mount): neither its cache nor a library.
 */
static void rootfs_not_read(void **state)
{
	(void)state;
	sh("mkfifo %s/etc/ld.so.cache", rootfs);
	assert_ids(run("compute", "", false), "container-rootfs-unread", NULL);
	assert_non_null(strstr(found.v[0].evidence, "is not a regular file: not read"));
	sh("rm %s/etc/ld.so.cache && mkdir -p %s/mnt && mount -t tmpfs none %s/mnt", rootfs, rootfs,
	   rootfs);
	put_libcuda(rootfs, "/mnt/own 575.51.02");
	sh("mv %s/etc/ld.so.cache %s/mnt/cache && ln -s /mnt/cache %s/etc/ld.so.cache", rootfs,
	   rootfs, rootfs);
	assert_ids(run("compute", "", false), "container-rootfs-unread", NULL);
	assert_non_null(strstr(found.v[0].evidence, "Invalid cross-device link"));
	/* The cache on the rootfs's own filesystem, its library behind the mount: said. */
	sh("rm %s/etc/ld.so.cache && ldconfig -r %s", rootfs, rootfs);
	assert_ids(run("compute", "", false), "container-libraries-unfollowed", NULL);
	assert_non_null(strstr(found.v[0].summary, "names 1 driver library behind a mount"));
	assert_non_null(strstr(found.v[0].evidence, "names /mnt/own/libcuda.so.1"));
	sh("umount %s/mnt", rootfs);
	put_libcuda(rootfs, "/mnt/own 575.51.02");
	assert_ids(run("compute", "", false), "container-driver-version", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(capabilities, setup, teardown),
		cmocka_unit_test_setup_teardown(host_other_version, setup, teardown),
		cmocka_unit_test_setup_teardown(container_other_version, setup, teardown),
		cmocka_unit_test_setup_teardown(devn_and_musl, setup, teardown),
		cmocka_unit_test_setup_teardown(rootfs_not_read, setup, teardown),
		cmocka_unit_test_setup_teardown(host_file_untrusted, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
