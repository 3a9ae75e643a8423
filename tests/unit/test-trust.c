/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trust rule of programs that run as root at every start (lib/base/trust.c), case by case:
 * another owner, a group-writable directory, a link from a trusted place into an
 * untrusted one. Runs as root (make check), in a tree under /var/lib, which is root's.
 */
#include "unit.h"

#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/trust.h"

static char top[64];

static char *at(const char *rel)
{
	static char paths[2][256];
	static int next;
	char *p = paths[next++ % 2];

	snprintf(p, sizeof(paths[0]), "%s/%s", top, rel);
	return p;
}

/* top/good/gpu-hook and top/bad/gpu-hook, every part root's and 0755 to begin with. */
static int setup(void **state)
{
	int fd;

	(void)state;
	if (geteuid() != 0)
		return -1; /* make unit runs as root */
	snprintf(top, sizeof(top), "/var/lib/gp-trust.XXXXXX");
	if (!mkdtemp(top) || chmod(top, 0755) || mkdir(at("good"), 0755) || mkdir(at("bad"), 0755))
		return -1;
	for (int i = 0; i < 2; i++) {
		fd = open(at(i ? "bad/gpu-hook" : "good/gpu-hook"), O_CREAT | O_WRONLY | O_CLOEXEC,
			  0755);
		if (fd < 0 || fchmod(fd, 0755) < 0)
			return -1;
		close(fd);
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	return system(cmd);
}

static int trust_quietly(const char *path, char *real, size_t size)
{
	struct gp_log_capture quiet; /* what it says is not this test's subject */
	int r;

	gp_log_capture_start(&quiet);
	r = gp_trust_program(path, real, size);
	gp_log_capture_stop(&quiet);
	return r;
}

static void root_owned_tree_is_trusted(void **state)
{
	char real[PATH_MAX];

	(void)state;
	assert_int_equal(trust_quietly(at("good/gpu-hook"), real, sizeof(real)), 0);
	assert_string_equal(real, at("good/gpu-hook"));
}

static void program_of_another_owner_is_refused(void **state)
{
	char real[PATH_MAX];

	(void)state;
	assert_int_equal(chown(at("good/gpu-hook"), 1000, 0), 0);
	assert_int_equal(chmod(at("good/gpu-hook"), 0755), 0);
	assert_int_equal(trust_quietly(at("good/gpu-hook"), real, sizeof(real)), -GP_EBADCONF);
}

static void directory_of_another_owner_is_refused(void **state)
{
	char real[PATH_MAX];

	(void)state;
	assert_int_equal(chown(at("good"), 1000, 1000), 0);
	assert_int_equal(trust_quietly(at("good/gpu-hook"), real, sizeof(real)), -GP_EBADCONF);
}

static void group_writable_directory_is_refused(void **state)
{
	char real[PATH_MAX];

	(void)state;
	assert_int_equal(chmod(at("good"), 0775), 0);
	assert_int_equal(trust_quietly(at("good/gpu-hook"), real, sizeof(real)), -GP_EBADCONF);
	/* Two levels up counts as much as one. */
	assert_int_equal(chmod(at("good"), 0755), 0);
	assert_int_equal(chmod(top, 0775), 0);
	assert_int_equal(trust_quietly(at("good/gpu-hook"), real, sizeof(real)), -GP_EBADCONF);
}

static void writable_by_anyone_is_refused(void **state)
{
	char real[PATH_MAX];

	(void)state;
	assert_int_equal(chmod(at("good"), 0777), 0);
	assert_int_equal(trust_quietly(at("good/gpu-hook"), real, sizeof(real)), -GP_EBADCONF);
	assert_int_equal(chmod(at("good"), 0755), 0);
	assert_int_equal(chmod(at("good/gpu-hook"), 0775), 0); /* the program itself */
	assert_int_equal(trust_quietly(at("good/gpu-hook"), real, sizeof(real)), -GP_EBADCONF);
}

static void a_system_program_is_trusted(void **state)
{
	char real[PATH_MAX];

	(void)state;
	assert_int_equal(trust_quietly("/bin/sh", real, sizeof(real)), 0);
	assert_int_equal(real[0], '/');
}

static void a_missing_program_is_an_error(void **state)
{
	char real[PATH_MAX];

	(void)state;
	assert_int_equal(trust_quietly(at("good/none"), real, sizeof(real)), -ENOENT);
}

/* A link in a trusted directory to a program in one others can write: the program's place counts.
 */
static void link_into_an_untrusted_directory_is_refused(void **state)
{
	char real[PATH_MAX];

	(void)state;
	assert_int_equal(chmod(at("bad"), 0777), 0);
	assert_int_equal(symlink(at("bad/gpu-hook"), at("good/link")), 0);
	assert_int_equal(trust_quietly(at("good/link"), real, sizeof(real)), -GP_EBADCONF);
	/* And a link to a trusted program gives the program's own path. */
	assert_int_equal(chmod(at("bad"), 0755), 0);
	assert_int_equal(trust_quietly(at("good/link"), real, sizeof(real)), 0);
	assert_string_equal(real, at("bad/gpu-hook"));
}

/* gp_trust_open_file from top as root, quietly: the fd's result (>= 0 closed: 0). */
static int open_quietly(const char *rel, uid_t owner)
{
	struct gp_log_capture quiet;
	int fd;

	gp_log_capture_start(&quiet);
	fd = gp_trust_open_file(top, at(rel), owner);
	gp_log_capture_stop(&quiet);
	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

/* An injected file: the same rule, held on descriptors from the root down, links refused. */
static void injected_file_rule(void **state)
{
	struct stat st, fst;
	int fd;

	(void)state;
	assert_int_equal(open_quietly("good/gpu-hook", 0), 0);
	fd = gp_trust_open_file(top, at("good/gpu-hook"), 0);
	assert_true(fd >= 0 && fstat(fd, &fst) == 0 && stat(at("good/gpu-hook"), &st) == 0);
	assert_true(st.st_ino == fst.st_ino && st.st_dev == fst.st_dev); /* the file itself */
	close(fd);
	assert_int_equal(open_quietly("good/gpu-hook", 65534), -GP_EBADCONF); /* another owner */
	assert_int_equal(chmod(at("good/gpu-hook"), 0664), 0);
	assert_int_equal(open_quietly("good/gpu-hook", 0), -GP_EBADCONF);
	assert_int_equal(chmod(at("good/gpu-hook"), 0644), 0);
	assert_int_equal(chown(at("good/gpu-hook"), 100000, 100000), 0); /* a container's uid */
	assert_int_equal(open_quietly("good/gpu-hook", 0), -GP_EBADCONF);
	assert_int_equal(chown(at("good/gpu-hook"), 0, 0), 0);
	assert_int_equal(chmod(at("good"), 0775), 0);
	assert_int_equal(open_quietly("good/gpu-hook", 0), -GP_EBADCONF);
	assert_int_equal(chmod(at("good"), 0755), 0);
	assert_int_equal(chmod(top, 0757), 0); /* the root itself */
	assert_int_equal(open_quietly("good/gpu-hook", 0), -GP_EBADCONF);
	assert_int_equal(chmod(top, 0755), 0);
	assert_int_equal(symlink("good", at("link")), 0);
	assert_int_equal(open_quietly("link/gpu-hook", 0), -GP_EBADCONF);
	assert_int_equal(open_quietly("good", 0), -GP_EBADCONF); /* a directory is no file */
	assert_int_equal(open_quietly("good/none", 0), -ENOENT);
	assert_int_equal(gp_trust_open_file(top, "/elsewhere/gpu-hook", 0), -GP_EBADCONF);
}

/* On the host, root is root; in a user namespace that does not map it, the overflow uid. */
static void host_root_uid(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	assert_int_equal(gp_host_root_uid(), 0);
	pid = fork();
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 && gp_host_root_uid() == 65534 ? 0 : 1);
	assert_true(pid > 0 && waitpid(pid, &status, 0) == pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(root_owned_tree_is_trusted),
		T(program_of_another_owner_is_refused),
		T(directory_of_another_owner_is_refused),
		T(group_writable_directory_is_refused),
		T(link_into_an_untrusted_directory_is_refused),
		T(writable_by_anyone_is_refused),
		T(a_system_program_is_trusted),
		T(a_missing_program_is_an_error),
		T(injected_file_rule),
		T(host_root_uid),
	};
#undef T
	return cmocka_run_group_tests_name("trust", tests, NULL, NULL);
}
