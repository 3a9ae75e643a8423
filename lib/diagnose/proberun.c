/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-probe inside a running container: started through liblxc, bounded in time and output. */
#include <fcntl.h>
#include <limits.h>
#include <lxc/lxccontainer.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "base/child.h"
#include "base/escape.h"
#include "base/util.h"
#include "diagnose/proberun.h"
#include "plan/vendors.h"
#include "probe/protocol.h"

/* A word of the probe's output: printable, no blanks, bounded. */
static bool copy_word(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n == 0 || n >= size)
		return false;
	for (size_t i = 0; i < n; i++)
		if (src[i] <= ' ' || src[i] >= 127)
			return false;
	memcpy(dst, src, n + 1);
	return true;
}

static int parse_node(const char *line, struct gp_probe_result *r)
{
	struct gp_probe_node *n = &r->nodes[r->nnodes];
	int exists, chr, used = 0;
	char name[64];

	if (r->nnodes == GP_PLAN_MAX_NODES ||
	    sscanf(line, GP_PROBE_NODE " %63s %d %d %u %u %d%n", name, &exists, &chr, &n->major,
		   &n->minor, &n->open_errno, &used) != 6 ||
	    line[used] || !gp_devnode_name_is_valid(name) || (exists | chr) > 1 || exists < 0 ||
	    chr < 0 || n->open_errno < 0 || n->open_errno > 4095)
		return -GP_EBADCONF;
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->exists = exists;
	n->is_chr = chr;
	r->nnodes++;
	return 0;
}

static int parse_libcuda(const char *line, struct gp_probe_result *r)
{
	char path[256], suffix[64];
	int found, used = 0;

	if (sscanf(line, GP_PROBE_LIBCUDA " %d %255s %63s%n", &found, path, suffix, &used) != 3 ||
	    line[used] || (found != 0 && found != 1))
		return -GP_EBADCONF;
	r->libcuda_seen = true;
	r->libcuda_found = found;
	if (!copy_word(r->libcuda_path, sizeof(r->libcuda_path), path) ||
	    !copy_word(r->libcuda_suffix, sizeof(r->libcuda_suffix), suffix))
		return -GP_EBADCONF;
	return 0;
}

static int parse_cuinit(const char *line, struct gp_probe_result *r)
{
	char name[64];
	int used = 0;

	if (sscanf(line, GP_PROBE_CUINIT " %d %63s%n", &r->cuinit_code, name, &used) != 2 ||
	    line[used] || !copy_word(r->cuinit_name, sizeof(r->cuinit_name), name))
		return -GP_EBADCONF;
	r->cuinit_done = true;
	return 0;
}

static int parse_device(const char *line, struct gp_probe_result *r)
{
	struct gp_probe_device d;
	char pci[32], uuid[64];
	int used = 0;

	if (sscanf(line, GP_PROBE_DEVICE " %d %31s %63s%n", &d.ordinal, pci, uuid, &used) != 3 ||
	    line[used] || d.ordinal < 0 || d.ordinal >= GP_PROBE_MAX_DEVICES ||
	    d.ordinal >= r->ndevices || !copy_word(d.pci, sizeof(d.pci), pci) ||
	    !copy_word(d.uuid, sizeof(d.uuid), uuid) || strncmp(d.uuid, "GPU-", 4) != 0)
		return -GP_EBADCONF;
	/* A UUID is one GPU's: two devices with one would be one GPU counted twice. */
	for (int i = 0; i < r->ndevices && i < GP_PROBE_MAX_DEVICES; i++)
		if (i != d.ordinal && strcasecmp(r->devices[i].uuid, d.uuid) == 0)
			return -GP_EBADCONF;
	r->devices[d.ordinal] = d;
	return 0;
}

static bool is_capability(const char *cap)
{
	static const char *const caps[] = { GP_PROBE_PARTS };

	for (size_t i = 0; i < GP_ARRAY_SIZE(caps); i++)
		if (strcmp(cap, caps[i]) == 0)
			return true;
	return false;
}

/* A device word: an ordinal below the devices the probe reported, or "-" (-1). */
static int parse_ordinal(const char *word, const struct gp_probe_result *r, int *out)
{
	unsigned int v;

	if (strcmp(word, "-") == 0) {
		*out = -1;
		return 0;
	}
	if (gp_parse_uint(word, &v) < 0 || r->ndevices < 0 || v >= (unsigned int)r->ndevices)
		return -GP_EBADCONF;
	*out = (int)v;
	return 0;
}

/*
 * Splits a copy of line (into buf) at single blanks: exactly n words, none empty, or
 * -GP_EBADCONF. Strictly by words, not by sscanf's widths: a word longer than its field would
 * otherwise be cut in two, and its rest read as the next field.
 */
static int split_words(const char *line, char *buf, size_t size, char **w, int n)
{
	char *p = buf;

	if (snprintf(buf, size, "%s", line) >= (int)size)
		return -GP_EBADCONF;
	for (int i = 0; i < n; i++) {
		w[i] = p;
		p = strchr(p, ' ');
		if (i < n - 1 && !p)
			return -GP_EBADCONF;
		if (p)
			*p++ = '\0';
		if (!w[i][0])
			return -GP_EBADCONF;
	}
	return p ? -GP_EBADCONF : 0; /* a word more */
}

/* A whole word that is a decimal int: digits, an optional leading minus, in range. */
static int parse_int(const char *word, int *out)
{
	char *end;
	long v;

	if (!((word[0] >= '0' && word[0] <= '9') ||
	      (word[0] == '-' && word[1] >= '0' && word[1] <= '9')))
		return -GP_EBADCONF;
	errno = 0;
	v = strtol(word, &end, 10);
	if (errno || *end || v < INT_MIN || v > INT_MAX)
		return -GP_EBADCONF;
	*out = (int)v;
	return 0;
}

/* A step's time: a whole word of digits and a point (as %.1f prints), below 1e9 ms. */
static int parse_ms(const char *word, double *out)
{
	char *end;

	if (word[0] < '0' || word[0] > '9' || word[strspn(word, "0123456789.")])
		return -GP_EBADCONF;
	errno = 0;
	*out = strtod(word, &end);
	if (errno || *end || !(*out >= 0 && *out < 1e9))
		return -GP_EBADCONF;
	return 0;
}

/* "deep CAP DEVICE STEP CODE NAME MS DETAIL" (probe/deep.c). */
static int parse_deep(const char *line, struct gp_probe_result *r)
{
	struct gp_probe_step *s = &r->steps[r->nsteps];
	char buf[512], *w[8];

	if (r->nsteps == GP_PROBE_MAX_STEPS || split_words(line, buf, sizeof(buf), w, 8) < 0 ||
	    !is_capability(w[1]) || parse_ordinal(w[2], r, &s->device) < 0 ||
	    parse_int(w[4], &s->code) < 0 || parse_ms(w[6], &s->ms) < 0 ||
	    !copy_word(s->cap, sizeof(s->cap), w[1]) ||
	    !copy_word(s->step, sizeof(s->step), w[3]) ||
	    !copy_word(s->name, sizeof(s->name), w[5]) ||
	    !copy_word(s->detail, sizeof(s->detail), w[7]))
		return -GP_EBADCONF;
	r->nsteps++;
	return 0;
}

/* "stage cuinit" before cuInit, or "stage CAP DEVICE" before each part of --deep. */
static int parse_stage(const char *line, struct gp_probe_result *r)
{
	char buf[64], *w[3];
	int device;

	if (strcmp(line, GP_PROBE_STAGE " cuinit") == 0) {
		r->reached_cuinit = true;
		return 0;
	}
	if (split_words(line, buf, sizeof(buf), w, 3) < 0 || !is_capability(w[1]) ||
	    parse_ordinal(w[2], r, &device) < 0)
		return -GP_EBADCONF;
	snprintf(r->stage_cap, sizeof(r->stage_cap), "%s", w[1]);
	r->stage_device = device;
	return 0;
}

/* Sets *out only to a value in range: a refused "devices" line must not leave its count. */
static int parse_scalar(const char *line, const char *key, int lo, int hi, int *out)
{
	int used = 0, v;

	if (sscanf(line + strlen(key), " %d%n", &v, &used) != 1 || line[strlen(key) + used] ||
	    v < lo || v > hi)
		return -GP_EBADCONF;
	*out = v;
	return 0;
}

/* True when line is a KEYWORD line: the keyword, then a blank. */
static bool is_line(const char *line, const char *keyword)
{
	size_t n = strlen(keyword);

	return strncmp(line, keyword, n) == 0 && line[n] == ' ';
}

static int parse_line(const char *line, struct gp_probe_result *r)
{
	char glibc[32];
	int v;

	if (is_line(line, GP_PROBE_NODE))
		return parse_node(line, r);
	if (is_line(line, GP_PROBE_LIBCUDA))
		return parse_libcuda(line, r);
	if (is_line(line, GP_PROBE_CUINIT))
		return parse_cuinit(line, r);
	if (is_line(line, GP_PROBE_DEVICE))
		return parse_device(line, r);
	if (is_line(line, GP_PROBE_DEVICES))
		return parse_scalar(line, GP_PROBE_DEVICES, 0, GP_PROBE_MAX_DEVICES, &r->ndevices);
	if (is_line(line, GP_PROBE_DRIVER))
		return parse_scalar(line, GP_PROBE_DRIVER, -1, 1000000, &r->driver_version);
	if (strcmp(line, GP_PROBE_SYMBOLS " 0") == 0) {
		r->symbols_missing = true;
		return 0;
	}
	if (is_line(line, GP_PROBE_DEEP))
		return parse_deep(line, r);
	if (is_line(line, GP_PROBE_STAGE))
		return parse_stage(line, r);
	if (sscanf(line, GP_PROBE_GLIBC " %31s%n", glibc, &v) == 1 && !line[v])
		return copy_word(r->glibc, sizeof(r->glibc), glibc) ? 0 : -GP_EBADCONF;
	return -GP_EBADCONF;
}

/* Keeps the first line the parser refused, escaped: it came from the container. */
static int refuse(struct gp_probe_result *r, unsigned int lineno, const char *line, size_t len)
{
	r->bad_lineno = lineno;
	gp_escape(r->bad_line, sizeof(r->bad_line), line, len, false);
	return -GP_EBADCONF;
}

int gp_probe_parse(const char *buf, struct gp_probe_result *r)
{
	const char *p = buf, *end = buf + strlen(buf), *at;
	unsigned int lineno = 1;
	size_t n;

	if (strncmp(p, GP_PROBE_HELLO, strlen(GP_PROBE_HELLO)) != 0)
		return refuse(r, lineno, p, strcspn(p, "\n"));
	for (p += strlen(GP_PROBE_HELLO); gp_line_next(&p, end, &at, &n);) {
		char line[GP_PROBE_LINE_MAX];

		lineno++;
		if (at + n == end || n >= sizeof(line)) /* no newline, or too long */
			return refuse(r, lineno, at, n);
		memcpy(line, at, n);
		line[n] = '\0';
		if (strcmp(line, GP_PROBE_END) == 0) {
			/* Complete only when nothing follows: a line after the end is refused. */
			if (*p)
				return refuse(r, lineno + 1, p, strcspn(p, "\n"));
			r->complete = true;
			return 0;
		}
		if (parse_line(line, r) < 0)
			return refuse(r, lineno, line, n);
	}
	return 0;
}

struct attach_job {
	const char *lxcpath, *name;
	int fds[2];		 /* the probe's memfd; the pipe that says the attach was made */
	gp_probe_attached_fn fn; /* what runs attached, with arg */
	void *arg;
};

struct probe_job {
	int memfd;
	char **argv;
};

/* The runner's exit code when it could not attach (the attached pipe says which it was). */
#define ATTACH_FAILED 125

/* What the runner's child writes to the attached pipe: only it writes there. */
#define ATTACHED 'a'
#define NOT_RUNNING 's'

/* Runs in the attached process, inside the container: becomes gpu-probe. */
static int exec_probe(void *data)
{
	struct probe_job *j = data;
	char *envp[] = { (char *)GP_PROBE_PATH_ENV, NULL };

	fexecve(j->memfd, j->argv, envp);
	return 127;
}

void __attribute__((noreturn)) gp_probe_end_like(int status)
{
	struct rlimit none = { 0, 0 };
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;

	if (sig) {
		setrlimit(RLIMIT_CORE, &none);
		signal(sig, SIG_DFL);
		raise(sig);
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 126);
}

/* The attached process: the pipe only the runner's child writes is closed before fn runs. */
static int attached_main(void *data)
{
	struct attach_job *j = data;

	close(j->fds[1]);
	return j->fn(j->arg);
}

/*
 * The runner's child (lib/base/child.c): already in a session of its own with only
 * stdin /dev/null, stdout and stderr on the runner's pipe and the probe's memfd. The
 * attached process inherits exactly that, and no terminal; liblxc gives it the
 * container's namespaces, cgroup, credentials and LSM profile.
 */
static int attach_and_wait(void *data)
{
	struct attach_job *j = data;
	struct lxc_container *c = lxc_container_new(j->name, j->lxcpath);
	lxc_attach_options_t opts = LXC_ATTACH_OPTIONS_DEFAULT;
	int status;
	pid_t pid;

	if (!c)
		return ATTACH_FAILED;
	if (!c->is_running(c)) {
		(void)!write(j->fds[1], &(char){ NOT_RUNNING }, 1);
		return ATTACH_FAILED;
	}
	opts.env_policy = LXC_ATTACH_CLEAR_ENV;
	opts.stdin_fd = STDIN_FILENO;
	opts.stdout_fd = STDOUT_FILENO;
	opts.stderr_fd = STDERR_FILENO;
	if (c->attach(c, attached_main, j, &opts, &pid) < 0) {
		fprintf(stderr, "Failed to attach to container \"%s\"\n", j->name);
		return ATTACH_FAILED;
	}
	/* Only we write this pipe: an exit code is the container's to choose, this is not. */
	if (write(j->fds[1], &(char){ ATTACHED }, 1) != 1)
		return ATTACH_FAILED;
	close(j->fds[1]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return ATTACH_FAILED;
	gp_probe_end_like(status);
}

char **gp_probe_argv(const struct gp_plan *expected, bool deep)
{
	char **argv = calloc(expected->n + 3, sizeof(char *));
	size_t k = 1;

	if (!argv)
		return NULL;
	argv[0] = strdup("gpu-probe");
	if (deep)
		argv[k++] = strdup("--deep");
	for (size_t i = 0; i < expected->n; i++, k++)
		if (asprintf(&argv[k], "%s:%u:%u", expected->nodes[i].name,
			     expected->nodes[i].major, expected->nodes[i].minor) < 0)
			argv[k] = NULL;
	for (size_t i = 0; i < k; i++)
		if (!argv[i]) { /* out of memory: no probe run on part of its arguments */
			for (size_t j = 0; j < k; j++)
				free(argv[j]);
			free(argv);
			return NULL;
		}
	return argv;
}

void gp_probe_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

void gp_probe_take(const struct gp_child *ch, const char *out, struct gp_probe_result *r)
{
	r->timed_out = ch->timed_out;
	r->state = ch->state;
	r->reaped = ch->reaped;
	r->exit_code = ch->exit_code;
	r->signal = ch->signal;
	r->held_open = ch->held_open;
	r->truncated = ch->truncated;
	r->elapsed_ms = ch->elapsed_ms;
	/* Nothing at all is said by the findings (the exit code); words not ours are warned of. */
	if (gp_probe_parse(out, r) < 0 && !ch->timed_out && *out)
		gp_warn("the probe's output was not as expected (a crash, or not our probe)");
	if (ch->truncated)
		r->complete = false;
	r->status = r->timed_out ? GP_PROBE_TIMEOUT : GP_PROBE_FAILED;
}

int gp_probe_attach(const char *lxcpath, const char *name, int memfd, gp_probe_attached_fn fn,
		    void *arg, const struct gp_child_opts *o, struct gp_child *ch, bool *attached)
{
	struct attach_job job = { lxcpath, name, { memfd, -1 }, fn, arg };
	struct gp_child_opts opts = *o;
	int pipefd[2] = { -1, -1 }, ret = 0;
	char byte = 0;

	opts.keep_fds = job.fds;
	opts.nkeep = 2;
	if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	job.fds[1] = pipefd[1];
	ret = gp_child_start(ch, &opts, attach_and_wait, &job);
	gp_closep(&pipefd[1]);
	if (ret == 0) {
		gp_child_wait(ch);
		if (read(pipefd[0], &byte, 1) != 1)
			byte = 0;
		if (byte == NOT_RUNNING) {
			gp_error("container \"%s\" is not running: start it, then probe it", name);
			gp_child_free(ch);
			ret = -ESRCH;
		}
		*attached = byte == ATTACHED;
	}
	gp_closep(&pipefd[0]);
	return ret;
}

int gp_probe_run(const char *lxcpath, const char *name, const char *probe_path,
		 const struct gp_plan *expected, bool deep, int timeout_ms,
		 struct gp_probe_result *r)
{
	struct probe_job job = { -1, NULL };
	struct gp_child_opts opts = {
		.timeout_ms = timeout_ms,
		.output_max = GP_PROBE_OUTPUT_MAX,
		.merge_stderr = true,
		.overflow_kills = true,
	};
	struct gp_child ch;
	bool attached = false;
	int ret;

	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	job.memfd = gp_sealed_copy(probe_path, GP_PROBE_BINARY_MAX, "gpu-probe");
	job.argv = gp_probe_argv(expected, deep);
	ret = job.memfd < 0 ? job.memfd : job.argv ? 0 : -ENOMEM;
	if (ret == 0)
		ret = gp_probe_attach(lxcpath, name, job.memfd, exec_probe, &job, &opts, &ch,
				      &attached);
	if (ret == 0) {
		gp_probe_take(&ch, ch.out, r);
		r->attach_failed = !attached;
		gp_child_free(&ch);
	}
	gp_closep(&job.memfd);
	gp_probe_argv_free(job.argv);
	return ret;
}
