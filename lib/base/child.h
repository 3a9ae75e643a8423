/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/base/child.c. */
#ifndef GP_CHILD_H
#define GP_CHILD_H

/*
 * The one way the tools start a child process (lib/base/child.c owns all of this).
 *
 * A child is cut off from its caller before any code of its own runs: a new session
 * without a controlling terminal, stdin /dev/null, stdout and stderr on pipes that only
 * the caller reads, every other descriptor closed but the ones it is given, an
 * environment of the caller's PATH alone, and death with its caller. The caller reads at most
 * output_max bytes of each stream and never waits past one deadline for the whole child: at the
 * deadline the child's process group is killed and the caller stops reading, even when a grandchild
 * or a process stuck in the kernel still holds a pipe.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How long the caller reads on after the child ended, for what it left in the pipe. */
#define GP_CHILD_GRACE_MS 200

/* Runs in the child, cut off as above; its return value is the child's exit code. */
typedef int (*gp_child_fn)(void *arg);

struct gp_child_opts {
	int timeout_ms;	     /* the deadline for the whole child, from its start */
	size_t output_max;   /* bytes kept of stdout and of stderr each */
	bool merge_stderr;   /* stderr into the stdout buffer */
	bool overflow_kills; /* more output than output_max ends the child */
	const int *keep_fds; /* descriptors (>= 3) the child keeps open */
	size_t nkeep;
	const char *const *keep_env; /* NULL-terminated: variables kept besides PATH (proxies) */
};

struct gp_child {
	pid_t pid;
	int pidfd, out_fd, err_fd;
	size_t max;
	bool overflow_kills;
	double start_ms, deadline_ms, exited_ms;
	bool exited;
	/* What the caller gets: the child's output, NUL-terminated, and how it ended. */
	char *out, *err;
	size_t out_len, err_len;
	bool done;	/* nothing more to wait for */
	bool timed_out; /* killed at the deadline */
	bool truncated; /* it wrote more than output_max */
	bool held_open; /* its output was still held open after it ended */
	bool reaped;
	char state;    /* at the deadline: 'D' if any of its processes was stuck in the kernel */
	int exit_code; /* -1 unless it exited */
	int signal;    /* the signal that ended it, 0 if none */
	double elapsed_ms;
};

/*
 * Starts fn(arg) in a child as above. Returns 0, or -errno with nothing left running.
 * c must be released with gp_child_free once done.
 */
int gp_child_start(struct gp_child *c, const struct gp_child_opts *o, gp_child_fn fn, void *arg);

/* A gp_child_fn: executes argv (a NULL-terminated char *[], found on PATH). */
int gp_child_exec(void *argv);

/*
 * Reads what the child wrote and notes its end, waiting at most wait_ms (-1: as long
 * as its deadline allows) for something to happen. Returns c->done.
 */
bool gp_child_step(struct gp_child *c, int wait_ms);

/*
 * Steps several children (at most GP_CHILDREN_MAX) together until one of them is done
 * or wait_ms has passed.
 */
#define GP_CHILDREN_MAX 8
void gp_children_step(struct gp_child *const *c, size_t n, int wait_ms);

/* Steps the child until it is done. Returns 0 when it exited 0, else -EIO. */
int gp_child_wait(struct gp_child *c);

/* Closes what the caller still holds of the child and frees its output. */
void gp_child_free(struct gp_child *c);

/*
 * A sealed memfd holding the file at path (at most max bytes): nothing can change it,
 * and a process executed from it has a memfd, not the file, as /proc/PID/exe.
 * Returns the fd (close-on-exec) or -errno.
 */
int gp_sealed_copy(const char *path, size_t max, const char *name);

/*
 * Executes this program again from a sealed memfd copy of itself, unless it already
 * runs from one, so that a process it forks into a container cannot reach the host's
 * binary through /proc/PID/exe. The program's directory is kept in GP_PROGRAM_DIR for
 * gp_program_path. Returns 0 when already sealed; otherwise returns only on failure.
 */
int gp_child_reexec_sealed(char **argv);

/*
 * Makes sure descriptors 0, 1 and 2 are open (on /dev/null where they were closed), so
 * that no file or pipe opened later takes their place. Call it first in main.
 */
void gp_stdio_ensure(void);

#endif
