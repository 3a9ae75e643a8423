/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-probe one level deeper: in a nested container of the container's own Podman or Docker. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/util.h"
#include "diagnose/nestedrun.h"
#include "start/cdi.h"

/* The attached process's exit codes where nothing of the probe came: what stopped it. */
#define EXIT_NO_RUNTIME 90
#define EXIT_NO_CDI 91
#define EXIT_NO_IMAGE 92
#define EXIT_NO_FILE 93

/* The first line the attached process writes: which runtime it runs. */
#define NESTED_LINE "nested "

/* Where the probe's file may be made in the container, in this order (one not noexec). */
static const char *const file_bases[] = { "/run", "/tmp" };
static const char *const path_dirs[] = { "/usr/sbin", "/usr/bin", "/sbin", "/bin" };

/* What the attached process needs: all of it made on the host side before the attach. */
struct nested_job {
	int memfd;
	enum gp_nested_runtime want;
	const char *name, *image;
	char **probe_argv;
};

const char *gp_nested_runtime_name(enum gp_nested_runtime rt)
{
	return rt == GP_NESTED_PODMAN ? "podman" : rt == GP_NESTED_DOCKER ? "docker" : "auto";
}

int gp_nested_runtime_parse(const char *word, enum gp_nested_runtime *out)
{
	if (strcmp(word, "podman") == 0)
		*out = GP_NESTED_PODMAN;
	else if (strcmp(word, "docker") == 0)
		*out = GP_NESTED_DOCKER;
	else
		return -GP_EBADCONF;
	return 0;
}

bool gp_nested_image_is_valid(const char *image)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789._-/:@";
	size_t n = strlen(image);

	return n && n < 256 && image[0] != '-' && strspn(image, ok) == n;
}

/* argv from words, NULL-terminated, each strdup'd, then more (NULL-terminated) appended. */
static char **argv_of(const char *const *words, size_t n, char *const *more)
{
	size_t nmore = 0, k = 0;
	char **argv;

	while (more && more[nmore])
		nmore++;
	argv = calloc(n + nmore + 1, sizeof(char *));
	if (!argv)
		return NULL;
	for (size_t i = 0; i < n + nmore; i++, k++) {
		argv[k] = strdup(i < n ? words[i] : more[i - n]);
		if (!argv[k]) {
			gp_probe_argv_free(argv);
			return NULL;
		}
	}
	return argv;
}

char **gp_nested_argv(enum gp_nested_runtime rt, const char *runtime_path, const char *name,
		      const char *file, const char *image, char *const *probe_argv)
{
	_cleanup_free_ char *volume = NULL;
	const char *words[] = { runtime_path,
				"run",
				"--rm",
				"--network",
				"none",
				"--name",
				name,
				"--pull",
				"never",
				"--stop-timeout",
				"0",
				"--entrypoint",
				"/gpu-probe",
				"--volume",
				NULL,
				"--device",
				GP_CDI_KIND "=all",
				image };

	(void)rt; /* podman and docker take the same words here */
	if (asprintf(&volume, "%s:/gpu-probe:ro", file) < 0)
		return NULL;
	words[14] = volume;
	return argv_of(words, GP_ARRAY_SIZE(words), probe_argv);
}

char **gp_nested_rm_argv(const char *runtime_path, const char *name)
{
	const char *words[] = { runtime_path, "rm", "-f", name };

	return argv_of(words, GP_ARRAY_SIZE(words), NULL);
}

int gp_nested_take_line(const char *out, struct gp_nested *n, const char **rest)
{
	static const enum gp_nested_runtime rts[] = { GP_NESTED_PODMAN, GP_NESTED_DOCKER };

	*rest = out;
	if (strncmp(out, NESTED_LINE, strlen(NESTED_LINE)) != 0)
		return -GP_EBADCONF;
	for (size_t i = 0; i < GP_ARRAY_SIZE(rts); i++) {
		const char *word = gp_nested_runtime_name(rts[i]);
		const char *at = out + strlen(NESTED_LINE);

		if (strncmp(at, word, strlen(word)) == 0 && at[strlen(word)] == '\n') {
			n->runtime = rts[i];
			*rest = at + strlen(word) + 1;
			return 0;
		}
	}
	return -GP_EBADCONF;
}

/* --- In the attached process, inside the container, with its credentials only --- */

/* The runtime's file in the probe's PATH: an executable regular file. */
static int find_runtime(enum gp_nested_runtime want, enum gp_nested_runtime *rt, char *path,
			size_t size)
{
	static const enum gp_nested_runtime order[] = { GP_NESTED_PODMAN, GP_NESTED_DOCKER };
	struct stat st;

	for (size_t i = 0; i < GP_ARRAY_SIZE(order); i++) {
		if (want != GP_NESTED_AUTO && want != order[i])
			continue;
		for (size_t d = 0; d < GP_ARRAY_SIZE(path_dirs); d++) {
			snprintf(path, size, "%s/%s", path_dirs[d],
				 gp_nested_runtime_name(order[i]));
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
			    access(path, X_OK) == 0) {
				*rt = order[i];
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* Runs argv and waits for it: its wait status. quiet: its stdout and stderr on /dev/null. */
static int spawn_wait(char **argv, bool quiet)
{
	char *envp[] = { (char *)GP_PROBE_PATH_ENV, NULL };
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return W_EXITCODE(126, 0);
	if (pid == 0) {
		/* O_NONBLOCK: a FIFO the container put there does not hold us. */
		int null = quiet ? open("/dev/null", O_WRONLY | O_NOCTTY | O_NONBLOCK) : -1;

		if (quiet &&
		    (null < 0 || dup2(null, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0))
			_exit(126);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return W_EXITCODE(126, 0);
	return status;
}

static bool exited_zero(int status)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The probe from the memfd into the new file path, executable and read-only. */
static int write_probe(int memfd, const char *path)
{
	char buf[65536];
	off_t off = 0;
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0555);

	if (fd < 0)
		return -errno;
	while ((n = pread(memfd, buf, sizeof(buf), off)) > 0) {
		if (write(fd, buf, (size_t)n) != n) {
			close(fd);
			return -EIO;
		}
		off += n;
	}
	return close(fd) == 0 && n == 0 ? 0 : -EIO;
}

/* A new directory base/name (mode 0700, on a filesystem that executes) holding the probe. */
static int make_file(const struct nested_job *j, char *dir, size_t dsize, char *file, size_t fsize)
{
	struct statvfs sv;

	for (size_t i = 0; i < GP_ARRAY_SIZE(file_bases); i++) {
		snprintf(dir, dsize, "%s/%s", file_bases[i], j->name);
		snprintf(file, fsize, "%s/gpu-probe", dir);
		if (mkdir(dir, 0700) < 0)
			continue;
		if (statvfs(dir, &sv) == 0 && !(sv.f_flag & ST_NOEXEC) &&
		    write_probe(j->memfd, file) == 0)
			return 0;
		unlink(file);
		rmdir(dir);
	}
	return -ENOENT;
}

/* Removes the probe's file and its directory, wherever a run of this name made them. */
static void remove_files(const char *name)
{
	char dir[96], file[128];

	for (size_t i = 0; i < GP_ARRAY_SIZE(file_bases); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", file_bases[i], name);
		snprintf(file, sizeof(file), "%s/gpu-probe", dir);
		unlink(file);
		rmdir(dir);
	}
}

/* The attached process of the probe: the runtime runs gpu-probe in the image. */
static int nested_main(void *data)
{
	struct nested_job *j = data;
	char path[64], dir[96], file[128];
	enum gp_nested_runtime rt;
	char *inspect[] = { path, (char *)"image", (char *)"inspect", (char *)j->image, NULL };
	char **argv;
	int status;

	if (find_runtime(j->want, &rt, path, sizeof(path)) < 0)
		return EXIT_NO_RUNTIME;
	if (dprintf(STDOUT_FILENO, NESTED_LINE "%s\n", gp_nested_runtime_name(rt)) < 0)
		return EXIT_NO_RUNTIME;
	if (access(GP_CDI_LINK, R_OK) < 0)
		return EXIT_NO_CDI;
	if (!exited_zero(spawn_wait(inspect, true)))
		return EXIT_NO_IMAGE;
	if (make_file(j, dir, sizeof(dir), file, sizeof(file)) < 0)
		return EXIT_NO_FILE;
	argv = gp_nested_argv(rt, path, j->name, file, j->image, j->probe_argv + 1);
	status = argv ? spawn_wait(argv, false) : W_EXITCODE(EXIT_NO_FILE, 0);
	gp_probe_argv_free(argv);
	remove_files(j->name);
	gp_probe_end_like(status);
}

/* The attached process of the cleanup: rm -f of the nested container; GP_NESTED_CLEANUP_*. */
static int cleanup_main(void *data)
{
	struct nested_job *j = data;
	enum gp_nested_runtime rt;
	char path[64];
	char *inspect[] = { path, (char *)"container", (char *)"inspect", (char *)j->name, NULL };
	char **rm;
	int removed;

	remove_files(j->name);
	if (find_runtime(j->want, &rt, path, sizeof(path)) < 0)
		return GP_NESTED_CLEANUP_FAILED;
	rm = gp_nested_rm_argv(path, j->name);
	if (!rm)
		return GP_NESTED_CLEANUP_FAILED;
	removed = exited_zero(spawn_wait(rm, true));
	gp_probe_argv_free(rm);
	if (exited_zero(spawn_wait(inspect, true)))
		return GP_NESTED_CLEANUP_LEFT;
	return removed ? GP_NESTED_CLEANUP_REMOVED : GP_NESTED_CLEANUP_NONE;
}

/* --- On the host side --- */

static int random_name(char *name, size_t size)
{
	unsigned char b[8];

	if (getrandom(b, sizeof(b), 0) != sizeof(b))
		return -EIO;
	snprintf(name, size, "gpu-probe-%02x%02x%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
		 b[4], b[5], b[6], b[7]);
	return 0;
}

/* What stopped the run before the probe, from the exit code of an attached process that
 * wrote nothing of it. */
static enum gp_nested_outcome outcome_of(int exit_code)
{
	switch (exit_code) {
	case EXIT_NO_RUNTIME:
		return GP_NESTED_NO_RUNTIME;
	case EXIT_NO_CDI:
		return GP_NESTED_NO_CDI;
	case EXIT_NO_IMAGE:
		return GP_NESTED_NO_IMAGE;
	case EXIT_NO_FILE:
		return GP_NESTED_NO_FILE;
	default:
		return GP_NESTED_RAN;
	}
}

/* The runtime's first non-empty line on stderr, escaped: it came from the container. */
static void first_err_line(const char *err, char *dst, size_t size)
{
	err += strspn(err, "\n");
	gp_escape(dst, size, err, strcspn(err, "\n"), false);
}

/*
 * The file was bound but not executed: the image has no loader for it (exec's ENOENT of a
 * file that is there, as crun and runc word it), or a glibc older than it needs (the loader's
 * "version `GLIBC_2.28' not found"). Only words of the runtime's message: it says no more.
 */
static bool no_loader(const struct gp_child *ch)
{
	const char *e = ch->err;

	if (ch->exit_code == 126 || ch->exit_code == 127)
		return true;
	return (strstr(e, "/gpu-probe") && strcasestr(e, "no such file or directory")) ||
	       strstr(e, "GLIBC_");
}

void gp_nested_take(const struct gp_child *ch, struct gp_nested *n, struct gp_probe_result *r)
{
	const char *rest;
	bool said = gp_nested_take_line(ch->out, n, &rest) == 0;

	gp_probe_take(ch, rest, r);
	first_err_line(ch->err, n->err, sizeof(n->err));
	if (ch->timed_out || ch->truncated || ch->signal || *rest)
		return;
	n->outcome = outcome_of(ch->exit_code);
	if (n->outcome == GP_NESTED_NO_RUNTIME && said)
		n->outcome = GP_NESTED_RAN; /* a runtime was found: the code is the probe's */
	n->no_loader = n->outcome == GP_NESTED_RAN && said && no_loader(ch);
}

bool gp_nested_must_clean(const struct gp_child *ch, const struct gp_nested *n,
			  const struct gp_probe_result *r)
{
	return ch->timed_out || ch->truncated || ch->signal || !ch->reaped ||
	       (!r->complete && n->outcome == GP_NESTED_RAN);
}

/* The second attached run, with its own deadline: removes what the first one left. */
static void cleanup(const char *lxcpath, const char *ct, struct nested_job *job,
		    struct gp_nested *n)
{
	struct gp_child_opts opts = { .timeout_ms = GP_NESTED_CLEANUP_MS,
				      .output_max = 4096,
				      .merge_stderr = true,
				      .overflow_kills = true };
	struct gp_child ch;
	bool attached = false;

	n->cleanup_ran = true;
	n->cleanup = GP_NESTED_CLEANUP_FAILED;
	if (n->runtime != GP_NESTED_AUTO)
		job->want = n->runtime;
	if (gp_probe_attach(lxcpath, ct, job->memfd, cleanup_main, job, &opts, &ch, &attached) < 0)
		return;
	if (attached && !ch.timed_out && ch.exit_code >= GP_NESTED_CLEANUP_REMOVED &&
	    ch.exit_code <= GP_NESTED_CLEANUP_FAILED)
		n->cleanup = ch.exit_code;
	gp_child_free(&ch);
}

int gp_nested_run(const char *lxcpath, const char *ct, const char *probe_path,
		  const struct gp_plan *expected, bool deep, int timeout_ms, struct gp_nested *n,
		  struct gp_probe_result *r)
{
	struct nested_job job = { -1, n->want, n->name, n->image, NULL };
	struct gp_child_opts opts = {
		.timeout_ms = timeout_ms,
		.output_max = GP_PROBE_OUTPUT_MAX,
		.overflow_kills = true,
	};
	struct gp_child ch;
	bool attached = false, clean;
	int ret;

	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	n->runtime = GP_NESTED_AUTO;
	n->outcome = GP_NESTED_RAN;
	ret = random_name(n->name, sizeof(n->name));
	if (ret == 0)
		job.memfd = gp_sealed_copy(probe_path, GP_PROBE_BINARY_MAX, "gpu-probe");
	if (ret == 0 && job.memfd < 0)
		ret = job.memfd;
	if (ret == 0 && !(job.probe_argv = gp_probe_argv(expected, deep)))
		ret = -ENOMEM;
	if (ret == 0)
		ret = gp_probe_attach(lxcpath, ct, job.memfd, nested_main, &job, &opts, &ch,
				      &attached);
	if (ret == 0) {
		gp_nested_take(&ch, n, r);
		r->attach_failed = !attached;
		clean = !gp_nested_must_clean(&ch, n, r);
		gp_child_free(&ch);
		if (attached && !clean)
			cleanup(lxcpath, ct, &job, n);
	}
	gp_closep(&job.memfd);
	gp_probe_argv_free(job.probe_argv);
	return ret;
}
