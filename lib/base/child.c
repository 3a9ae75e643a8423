/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Child processes: cut off from the caller, bounded in output and time (child.h). */
#include <assert.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "base/child.h"
#include "base/util.h"

#define DEFAULT_PATH "/usr/sbin:/usr/bin:/sbin:/bin"

/* A process stuck in the kernel may never die: this long after SIGKILL we go on without it. */
#define KILL_WAIT_MS 500

static bool kept(int fd, const int *keep, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (keep[i] == fd)
			return true;
	return false;
}

/* Where close_range is missing (before 5.9) or filtered: one by one, from /proc/self/fd. */
static int close_listed(const int *keep, size_t n)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] != '.' && fd > 2 && fd != dirfd(d) && !kept(fd, keep, n))
			close(fd);
	}
	closedir(d);
	return 0;
}

/* Closes every descriptor from 3 up, but the sorted keep[] (all >= 3). Returns 0 or -1. */
static int close_all_but(const int *keep, size_t n)
{
	unsigned int from = 3;

	for (size_t i = 0; i < n; i++) {
		if ((unsigned int)keep[i] < from)
			continue;
		if ((unsigned int)keep[i] > from &&
		    syscall(SYS_close_range, from, (unsigned int)keep[i] - 1, 0) < 0)
			return close_listed(keep, n);
		from = (unsigned int)keep[i] + 1;
	}
	if (syscall(SYS_close_range, from, ~0U, 0) < 0)
		return close_listed(keep, n);
	return 0;
}

static void sort_fds(int *fds, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && fds[j - 1] > fds[j]; j--) {
			int t = fds[j];

			fds[j] = fds[j - 1];
			fds[j - 1] = t;
		}
}

static void reset_signals(void)
{
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In the child: stdin /dev/null, stdout and stderr the pipes, nothing else from us. */
static int set_stdio(int out_w, int err_w, const struct gp_child_opts *o)
{
	int keep[16], n = 0;
	/* Above 2 first, so that no dup2 below overwrites another of them. */
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int out = fcntl(out_w, F_DUPFD_CLOEXEC, 3), err = fcntl(err_w, F_DUPFD_CLOEXEC, 3);
	int nul = null >= 0 ? fcntl(null, F_DUPFD_CLOEXEC, 3) : -1;

	if (out < 0 || err < 0 || nul < 0 || o->nkeep > GP_ARRAY_SIZE(keep))
		return -1;
	for (size_t i = 0; i < o->nkeep; i++)
		if (o->keep_fds[i] < 3)
			return -1; /* 0-2 are the child's stdio: gp_stdio_ensure keeps them taken */
	if (dup2(nul, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
	    dup2(o->merge_stderr ? out : err, STDERR_FILENO) < 0)
		return -1;
	for (size_t i = 0; i < o->nkeep; i++)
		keep[n++] = o->keep_fds[i];
	sort_fds(keep, (size_t)n);
	return close_all_but(keep, (size_t)n);
}

/* The caller's PATH (or the usual one) and the variables named in keep: all a child gets. */
static void clear_environment(const char *const *keep)
{
	const char *path = getenv("PATH");
	char *saved[16] = { NULL };
	size_t n = 0;

	saved[n++] = strdup(path && path[0] == '/' ? path : DEFAULT_PATH);
	for (size_t i = 0; keep && keep[i] && n < GP_ARRAY_SIZE(saved); i++)
		saved[n++] = getenv(keep[i]) ? strdup(getenv(keep[i])) : NULL;
	clearenv();
	setenv("PATH", saved[0] ? saved[0] : DEFAULT_PATH, 1);
	for (size_t i = 1; i < n; i++)
		if (saved[i])
			setenv(keep[i - 1], saved[i], 1);
	for (size_t i = 0; i < n; i++)
		free(saved[i]);
}

static void __attribute__((noreturn))
child_main(pid_t parent, int out_w, int err_w, const struct gp_child_opts *o, gp_child_fn fn,
	   void *arg)
{
	int r;

	reset_signals();
	/*
	 * A new session: no controlling terminal, and a process group of its own to kill.
	 * Not dumpable: a privileged container's root cannot read this process's memory or
	 * environment through /proc, and no core of it is written (execve resets this).
	 */
	if (setsid() < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent ||
	    prctl(PR_SET_DUMPABLE, 0) < 0)
		_exit(126);
	if (set_stdio(out_w, err_w, o) < 0)
		_exit(126);
	clear_environment(o->keep_env);
	r = fn(arg);
	fflush(NULL);
	_exit(r);
}

int gp_child_exec(void *argv)
{
	char *const *v = argv;

	execvp(v[0], v);
	fprintf(stderr, "Failed to run \"%s\": %s\n", v[0], gp_strerror(errno));
	return 127;
}

static int make_pipes(int out[2], int err[2])
{
	out[0] = out[1] = err[0] = err[1] = -1;
	if (pipe2(out, O_CLOEXEC | O_NONBLOCK) < 0 || pipe2(err, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	/* The child's ends block, as a program expects of its stdout. */
	if (fcntl(out[1], F_SETFL, 0) < 0 || fcntl(err[1], F_SETFL, 0) < 0)
		return -errno;
	return 0;
}

static void close_pair(int p[2])
{
	gp_closep(&p[0]);
	gp_closep(&p[1]);
}

static void init(struct gp_child *c, const struct gp_child_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->pidfd = c->out_fd = c->err_fd = -1;
	c->exit_code = -1;
	c->max = o->output_max;
	c->overflow_kills = o->overflow_kills;
	c->start_ms = gp_now_ms();
	c->deadline_ms = c->start_ms + o->timeout_ms;
}

int gp_child_start(struct gp_child *c, const struct gp_child_opts *o, gp_child_fn fn, void *arg)
{
	int out[2], err[2], r;
	pid_t parent = getpid();

	init(c, o);
	/* What a child orphans comes to us, to be killed and reaped with its group. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		return -errno;
	c->out = calloc(1, o->output_max + 1);
	c->err = calloc(1, o->output_max + 1);
	r = c->out && c->err ? make_pipes(out, err) : -ENOMEM;
	if (r < 0)
		goto fail;
	fflush(NULL);
	c->pid = fork();
	if (c->pid == 0)
		child_main(parent, out[1], err[1], o, fn, arg);
	if (c->pid < 0) {
		r = -errno;
		goto fail;
	}
	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	if (c->pidfd < 0) {
		r = -errno;
		kill(-c->pid, SIGKILL);
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
		goto fail;
	}
	c->out_fd = steal_fd(out[0]);
	c->err_fd = steal_fd(err[0]);
	close_pair(out);
	close_pair(err);
	return 0;
fail:
	close_pair(out);
	close_pair(err);
	gp_child_free(c);
	return r;
}

/* Appends what fd has now; closes it at end of file. */
static void drain(struct gp_child *c, int *fd, char *buf, size_t *len)
{
	for (;;) {
		char scratch[4096];
		size_t room = c->max - *len;
		ssize_t n = read(*fd, room ? buf + *len : scratch, room ? room : sizeof(scratch));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			gp_closep(fd);
			*fd = -1;
			return;
		}
		if (room) {
			*len += (size_t)n;
			buf[*len] = '\0';
		} else {
			c->truncated = true;
		}
	}
}

/* The most telling state among the child's processes: D (stuck in the kernel) first. */
static char group_state(pid_t pgid)
{
	static const char rank[] = "DRS";
	_cleanup_free_ char *buf = NULL;
	DIR *d = opendir("/proc");
	struct dirent *e;
	char best = '?';

	while (d && (e = readdir(d))) {
		char path[300], state;
		int pgrp;
		const char *paren;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		free(steal_ptr(buf));
		if (gp_read_file(path, 4096, &buf, NULL) < 0 || !(paren = strrchr(buf, ')')) ||
		    sscanf(paren + 1, " %c %*d %d", &state, &pgrp) != 2 || pgrp != pgid)
			continue;
		if (best == '?' ||
		    (strchr(rank, state) &&
		     (!strchr(rank, best) || strchr(rank, state) < strchr(rank, best))))
			best = state;
	}
	if (d)
		closedir(d);
	return best;
}

/* The child has ended (its pidfd said so): kill what it left in its group, then reap it. */
static void reap(struct gp_child *c)
{
	int status;

	kill(-c->pid, SIGKILL);
	if (waitpid(c->pid, &status, WNOHANG) != c->pid)
		return;
	c->reaped = true;
	c->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	c->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void note_exit(struct gp_child *c)
{
	c->exited = true;
	c->exited_ms = gp_now_ms();
	reap(c);
	gp_closep(&c->pidfd);
	c->pidfd = -1;
}

/*
 * Reaps what is left of the child's process group: we are the subreaper, so what it
 * orphaned (the process it attached into a container, say) comes to us. Waits until
 * end for the killed to die; one stuck in the kernel is left behind.
 */
static void reap_group(pid_t pgid, double end)
{
	for (;;) {
		siginfo_t info = { 0 };

		if (waitid(P_PGID, (id_t)pgid, &info, WEXITED | WNOHANG) < 0)
			return; /* none left */
		if (info.si_pid != 0)
			continue;
		if (gp_now_ms() >= end)
			return;
		usleep(2000);
	}
}

/* Kills the child and its group, and waits a little for them: one may be stuck in the kernel. */
static void kill_now(struct gp_child *c)
{
	struct pollfd p = { .fd = c->pidfd, .events = POLLIN };
	double end = gp_now_ms() + KILL_WAIT_MS;

	kill(-c->pid, SIGKILL);
	kill(c->pid, SIGKILL);
	if (poll(&p, 1, KILL_WAIT_MS) == 1)
		note_exit(c);
	reap_group(c->pid, end);
	c->done = true;
}

static void finish(struct gp_child *c)
{
	double now = gp_now_ms();

	if (c->done)
		goto out;
	if (c->truncated && c->overflow_kills && !c->exited) {
		kill_now(c);
	} else if (!c->exited && now >= c->deadline_ms) {
		c->timed_out = true;
		c->state = group_state(c->pid);
		kill_now(c);
	} else if (c->exited && c->out_fd < 0 && c->err_fd < 0) {
		c->done = true;
		reap_group(c->pid, now + KILL_WAIT_MS);
	} else if (c->exited &&
		   (now >= c->exited_ms + GP_CHILD_GRACE_MS || now >= c->deadline_ms)) {
		c->held_open = true;
		c->done = true;
		reap_group(c->pid, now + KILL_WAIT_MS);
	}
out:
	if (c->done) {
		gp_closep(&c->out_fd);
		gp_closep(&c->err_fd);
		c->out_fd = c->err_fd = -1;
		c->elapsed_ms = gp_now_ms() - c->start_ms;
	}
}

/* How long a poll may wait before something is due: the deadline or the grace's end. */
static int poll_budget(const struct gp_child *c, int wait_ms)
{
	double grace = c->exited_ms + GP_CHILD_GRACE_MS;
	double due = c->exited && grace < c->deadline_ms ? grace : c->deadline_ms;
	double left = due - gp_now_ms();
	int ms = left <= 0 ? 0 : (int)left + 1;

	return wait_ms >= 0 && wait_ms < ms ? wait_ms : ms;
}

static size_t add_fds(const struct gp_child *c, struct pollfd *p)
{
	size_t n = 0;

	if (c->done)
		return 0;
	if (c->out_fd >= 0)
		p[n++] = (struct pollfd){ .fd = c->out_fd, .events = POLLIN };
	if (c->err_fd >= 0)
		p[n++] = (struct pollfd){ .fd = c->err_fd, .events = POLLIN };
	if (c->pidfd >= 0)
		p[n++] = (struct pollfd){ .fd = c->pidfd, .events = POLLIN };
	return n;
}

static void handle(struct gp_child *c, const struct pollfd *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!p[i].revents)
			continue;
		if (p[i].fd == c->out_fd)
			drain(c, &c->out_fd, c->out, &c->out_len);
		else if (p[i].fd == c->err_fd)
			drain(c, &c->err_fd, c->err, &c->err_len);
		else if (p[i].fd == c->pidfd)
			note_exit(c);
	}
	finish(c);
}

void gp_children_step(struct gp_child *const *c, size_t n, int wait_ms)
{
	struct pollfd p[3 * GP_CHILDREN_MAX];
	size_t first[GP_CHILDREN_MAX + 1], total = 0;
	int budget = wait_ms;

	assert(n <= GP_CHILDREN_MAX);
	for (size_t i = 0; i < n; i++) {
		first[i] = total;
		total += add_fds(c[i], p + total);
		if (!c[i]->done)
			budget = poll_budget(c[i], budget);
	}
	first[n] = total;
	if (total == 0)
		return;
	poll(p, total, budget); /* EINTR or not, each child is looked at again below */
	for (size_t i = 0; i < n; i++)
		if (!c[i]->done)
			handle(c[i], p + first[i], first[i + 1] - first[i]);
}

bool gp_child_step(struct gp_child *c, int wait_ms)
{
	gp_children_step(&c, 1, wait_ms);
	return c->done;
}

int gp_child_wait(struct gp_child *c)
{
	while (!gp_child_step(c, -1))
		;
	return c->reaped && c->exit_code == 0 ? 0 : -EIO;
}

void gp_child_free(struct gp_child *c)
{
	gp_closep(&c->pidfd);
	gp_closep(&c->out_fd);
	gp_closep(&c->err_fd);
	c->pidfd = c->out_fd = c->err_fd = -1;
	free(steal_ptr(c->out));
	free(steal_ptr(c->err));
}

/* Copies the whole of in (size bytes) to out in the kernel; -EIO when it changed size. */
static int copy_all(int out, int in, off_t size)
{
	off_t left = size;

	while (left > 0) {
		ssize_t n = sendfile(out, in, NULL, (size_t)left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		left -= n;
	}
	return 0;
}

int gp_sealed_copy(const char *path, size_t max, const char *name)
{
	_cleanup_close_ int in = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (in < 0 || fstat(in, &st) < 0)
		return gp_error_errno(-errno, "Failed to read \"%s\"", path);
	if (!S_ISREG(st.st_mode) || (uintmax_t)st.st_size > max)
		return gp_error_errno(-EFBIG, "\"%s\" is not a file of at most %zu bytes", path,
				      max);
	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	r = copy_all(fd, in, st.st_size);
	if (r < 0)
		return gp_error_errno(r, "Failed to copy \"%s\"", path);
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		return -errno;
	return steal_fd(fd);
}

/*
 * True when this program runs from our sealed memfd: its name, and the seals that keep
 * it from changing (a file on tmpfs answers F_GET_SEALS too, with F_SEAL_SEAL alone).
 */
static bool runs_sealed(void)
{
	static const int want = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
	_cleanup_close_ int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	char self[64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int seals = fd >= 0 ? fcntl(fd, F_GET_SEALS) : -1;

	if (n <= 0)
		return false;
	self[n] = '\0';
	return strncmp(self, "/memfd:gpu-provision", 20) == 0 && seals >= 0 &&
	       (seals & want) == want;
}

int gp_child_reexec_sealed(char **argv)
{
	char self[PATH_MAX], *slash, *envp[3] = { NULL, NULL, NULL };
	ssize_t n;
	int fd;

	if (runs_sealed())
		return 0;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -errno;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	/* The admin's environment stays behind: nothing after this needs it. */
	if (asprintf(&envp[0], "PATH=%s", getenv("PATH") ? getenv("PATH") : DEFAULT_PATH) < 0 ||
	    asprintf(&envp[1], "GP_PROGRAM_DIR=%s", self) < 0)
		return -ENOMEM;
	fd = gp_sealed_copy("/proc/self/exe", 64u << 20, "gpu-provision");
	if (fd < 0)
		return fd;
	fexecve(fd, argv, envp);
	gp_error("Failed to execute a sealed copy of this program: %s", gp_strerror(errno));
	close(fd);
	return -errno;
}

void gp_stdio_ensure(void)
{
	int fd;

	/* Asked first, as three fcntl calls: /dev/null is opened only where one is closed. */
	if (fcntl(STDIN_FILENO, F_GETFD) >= 0 && fcntl(STDOUT_FILENO, F_GETFD) >= 0 &&
	    fcntl(STDERR_FILENO, F_GETFD) >= 0)
		return;
	while ((fd = open("/dev/null", O_RDWR | O_NOCTTY)) >= 0 && fd < 3)
		;
	if (fd > 2)
		close(fd);
}
