/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where a command or a start works (lib/base/ctx.c): the owner it trusts, Proxmox VE asked
 * or found, the container files' place; and liblxc's lock of a container as another user
 * than root finds it (lib/base/lock.c).
 */
#include "unit.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/lock.h"
#include "base/util.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gp-ctx.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", dir);
	return 0;
}

/* The host's root on the host; under a --root the owner of that directory. */
static void owner_is_the_roots(void **state)
{
	struct gp_ctx ctx;
	uid_t other = geteuid() == 0 ? 65534 : geteuid();

	(void)state;
	gp_ctx_init(&ctx, NULL, "/etc/gpu-provision", NULL, false, GP_CTX_ALL);
	assert_int_equal(ctx.owner, 0);
	if (geteuid() == 0)
		assert_int_equal(chown(dir, other, (gid_t)-1), 0);
	gp_ctx_init(&ctx, dir, dir, NULL, false, GP_CTX_ALL);
	assert_int_equal(ctx.owner, other);
	gp_ctx_init(&ctx, "/nonexistent", dir, NULL, false, GP_CTX_ALL);
	assert_int_equal(ctx.owner, 0);
}

/* Proxmox VE when asked or where its cluster filesystem is; the files follow pmxcfs. */
static void pve_asked_or_found(void **state)
{
	_cleanup_free_ char *off = NULL, *on = NULL;
	struct gp_ctx ctx;
	char want[160];

	(void)state;
	gp_ctx_init(&ctx, dir, "/conf", "/lxc", false, GP_CTX_ALL);
	assert_false(ctx.pve);
	assert_false(ctx.pmxcfs);
	assert_string_equal(ctx.lxcpath, "/lxc");
	off = gp_ini_path(&ctx, "101");
	assert_string_equal(off, "/conf/101.ini");
	assert_int_equal(gp_container_file_mode(&ctx), 0644);
	gp_ctx_init(&ctx, dir, "/conf", NULL, true, GP_CTX_ALL);
	assert_true(ctx.pve);
	assert_false(ctx.pmxcfs);
	sh("mkdir -p %s/etc/pve/lxc && ln -s nodes/pve1 %s/etc/pve/local", dir, dir);
	gp_ctx_init(&ctx, dir, "/conf", NULL, false, GP_CTX_ALL);
	assert_true(ctx.pve);
	assert_true(ctx.pmxcfs);
	assert_string_equal(ctx.node, "pve1");
	on = gp_applied_path(&ctx, "101");
	snprintf(want, sizeof(want), "%s/etc/pve/gpu-provision/101.applied", dir);
	assert_string_equal(on, want);
	assert_int_equal(gp_container_file_mode(&ctx), GP_CLUSTER_MODE);
	/* What is not asked for is not read: no cluster, and an owner that owns nothing. */
	gp_ctx_init(&ctx, dir, "/conf", NULL, false, GP_CTX_OWNER);
	assert_false(ctx.pmxcfs);
	assert_string_equal(ctx.node, "");
	gp_ctx_init(&ctx, dir, "/conf", NULL, false, 0);
	assert_int_equal(ctx.owner, (uid_t)-1);
}

/* liblxc's run directory for one who does not own /run: XDG_RUNTIME_DIR, else HOME's cache. */
static void lxc_lock_of_another_user(void **state)
{
	_cleanup_free_ char *mine = gp_lock_lxc_path("/var/lib/lxc", "c1");
	pid_t pid;
	int status;

	(void)state;
	if (geteuid() == 0)
		assert_string_equal(mine, "/run/lxc/lock//var/lib/lxc/.c1");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		_cleanup_free_ char *xdg = NULL, *home = NULL;

		if (geteuid() == 0 &&
		    (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0))
			_exit(2);
		setenv("XDG_RUNTIME_DIR", "/x", 1);
		xdg = gp_lock_lxc_path("/var/lib/lxc", "c1");
		unsetenv("XDG_RUNTIME_DIR");
		setenv("HOME", "/h", 1);
		home = gp_lock_lxc_path("/var/lib/lxc", "c1");
		_exit(!xdg || strcmp(xdg, "/x/lxc/lock//var/lib/lxc/.c1") != 0 || !home ||
		      strcmp(home, "/h/.cache/lxc/run//lxc/lock//var/lib/lxc/.c1") != 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(owner_is_the_roots, setup, teardown),
		cmocka_unit_test_setup_teardown(pve_asked_or_found, setup, teardown),
		cmocka_unit_test(lxc_lock_of_another_user),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
