/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-probe inside a running container: started through liblxc, bounded in time and output. */
#include <fcntl.h>
#include <lxc/lxccontainer.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "probe.h"
#include "util.h"

#define PROBE_BINARY_MAX (4u << 20)

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
	    sscanf(line, "node %63s %d %d %u %u %d%n", name, &exists, &chr, &n->major, &n->minor,
		   &n->open_errno, &used) != 6 ||
	    line[used] || !gp_node_name_is_valid(name) || (exists | chr) > 1 || exists < 0 ||
	    chr < 0 || n->open_errno < 0 || n->open_errno > 4095)
		return -EINVAL;
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

	if (sscanf(line, "libcuda %d %255s %63s%n", &found, path, suffix, &used) != 3 ||
	    line[used] || (found != 0 && found != 1))
		return -EINVAL;
	r->libcuda_found = found;
	if (!copy_word(r->libcuda_path, sizeof(r->libcuda_path), path) ||
	    !copy_word(r->libcuda_suffix, sizeof(r->libcuda_suffix), suffix))
		return -EINVAL;
	return 0;
}

static int parse_cuinit(const char *line, struct gp_probe_result *r)
{
	char name[64];
	int used = 0;

	if (sscanf(line, "cuinit %d %63s%n", &r->cuinit_code, name, &used) != 2 || line[used] ||
	    !copy_word(r->cuinit_name, sizeof(r->cuinit_name), name))
		return -EINVAL;
	r->cuinit_done = true;
	return 0;
}

static int parse_device(const char *line, struct gp_probe_result *r)
{
	struct gp_probe_device d;
	char pci[32], uuid[64];
	int used = 0;

	if (sscanf(line, "device %d %31s %63s%n", &d.ordinal, pci, uuid, &used) != 3 ||
	    line[used] || d.ordinal < 0 || d.ordinal >= GP_PROBE_MAX_DEVICES ||
	    d.ordinal >= r->ndevices || !copy_word(d.pci, sizeof(d.pci), pci) ||
	    !copy_word(d.uuid, sizeof(d.uuid), uuid) || strncmp(d.uuid, "GPU-", 4) != 0)
		return -EINVAL;
	r->devices[d.ordinal] = d;
	return 0;
}

static int parse_scalar(const char *line, const char *key, int lo, int hi, int *out)
{
	int used = 0;

	if (sscanf(line + strlen(key), " %d%n", out, &used) != 1 || line[strlen(key) + used] ||
	    *out < lo || *out > hi)
		return -EINVAL;
	return 0;
}

static int parse_line(const char *line, struct gp_probe_result *r)
{
	char glibc[32];
	int v;

	if (strncmp(line, "node ", 5) == 0)
		return parse_node(line, r);
	if (strncmp(line, "libcuda ", 8) == 0)
		return parse_libcuda(line, r);
	if (strncmp(line, "cuinit ", 7) == 0)
		return parse_cuinit(line, r);
	if (strncmp(line, "device ", 7) == 0)
		return parse_device(line, r);
	if (strncmp(line, "devices ", 8) == 0)
		return parse_scalar(line, "devices", 0, GP_PROBE_MAX_DEVICES, &r->ndevices);
	if (strncmp(line, "driver ", 7) == 0)
		return parse_scalar(line, "driver", -1, 1000000, &r->driver_version);
	if (strcmp(line, "symbols 0") == 0) {
		r->symbols_missing = true;
		return 0;
	}
	if (strcmp(line, "stage cuinit") == 0) {
		r->reached_cuinit = true;
		return 0;
	}
	if (sscanf(line, "glibc %31s%n", glibc, &v) == 1 && !line[v])
		return copy_word(r->glibc, sizeof(r->glibc), glibc) ? 0 : -EINVAL;
	return -EINVAL;
}

int gp_probe_parse(const char *buf, struct gp_probe_result *r)
{
	const char *p = buf;

	if (strncmp(p, "gpu-probe 1\n", 12) != 0)
		return -EINVAL;
	for (p += 12; *p;) {
		const char *nl = strchr(p, '\n');
		char line[512];
		size_t n;

		if (!nl || (size_t)(nl - p) >= sizeof(line))
			return -EINVAL;
		n = (size_t)(nl - p);
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl + 1;
		if (strcmp(line, "end") == 0) {
			r->complete = true;
			return *p ? -EINVAL : 0;
		}
		if (parse_line(line, r) < 0)
			return -EINVAL;
	}
	return 0;
}

/* The probe's bytes in a memfd sealed against any change; the container gets only the fd. */
static int sealed_copy(const char *path)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	size_t len, off = 0;
	int r = gp_read_file(path, PROBE_BINARY_MAX, &buf, &len);

	if (r < 0) {
		gp_error("Failed to read \"%s\": %s", path, strerror(-r));
		return r;
	}
	fd = memfd_create("gpu-probe", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t n = write(fd, buf + off, len - off);
		if (n < 0)
			return -errno;
		off += (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		return -errno;
	return steal_fd(fd);
}

struct exec_payload {
	int fd;
	char **argv;
};

/* Runs in the attached process, inside the container: becomes gpu-probe. */
static int exec_probe(void *data)
{
	struct exec_payload *p = data;
	char *envp[] = { (char *)"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };

	fexecve(p->fd, p->argv, envp);
	return 127;
}

static char **probe_argv(const struct gp_plan *expected)
{
	char **argv = calloc(expected->n + 2, sizeof(char *));

	if (!argv)
		return NULL;
	argv[0] = strdup("gpu-probe");
	for (size_t i = 0; i < expected->n; i++)
		if (asprintf(&argv[i + 1], "%s:%u:%u", expected->nodes[i].name,
			     expected->nodes[i].major, expected->nodes[i].minor) < 0)
			argv[i + 1] = NULL;
	return argv;
}

static void free_argv(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Reads until EOF, the size bound or the deadline; false on the deadline. */
static bool read_until(int fd, double deadline, char *buf, size_t size, size_t *len)
{
	while (*len < size - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double left = deadline - now_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left + 1) == 0)
			return false;
		n = read(fd, buf + *len, size - 1 - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	buf[*len] = '\0';
	return true;
}

static char process_state(pid_t pid)
{
	_cleanup_free_ char *buf = NULL, *path = NULL;
	const char *paren;

	if (asprintf(&path, "/proc/%d/stat", (int)pid) < 0 ||
	    gp_read_file(path, 4096, &buf, NULL) < 0 || !(paren = strrchr(buf, ')')))
		return '?';
	return paren[1] == ' ' ? paren[2] : '?';
}

/*
 * Reaps the probe by the deadline, killing it if it is still there then (or at once
 * with kill_now). A process stuck in the kernel may not die: one more second, then
 * give up on it rather than hang with it.
 */
static void finish(pid_t pid, bool kill_now, double deadline, struct gp_probe_result *r)
{
	bool killed = kill_now;
	int status = 0;

	if (kill_now)
		kill(pid, SIGKILL);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid) {
			r->reaped = true;
			r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
			r->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
			return;
		}
		if (w < 0)
			return;
		if (!killed && now_ms() > deadline) {
			r->timed_out = true;
			r->state = process_state(pid);
			kill(pid, SIGKILL);
			killed = true;
			deadline = now_ms();
		}
		if (killed && now_ms() > deadline + 1000)
			return;
		usleep(5000);
	}
}

static int attach(const char *lxcpath, const char *name, struct exec_payload *payload, int out,
		  pid_t *pid)
{
	struct lxc_container *c = lxc_container_new(name, lxcpath);
	lxc_attach_options_t opts = LXC_ATTACH_OPTIONS_DEFAULT;
	int r;

	if (!c || !c->is_running(c)) {
		gp_error("container \"%s\" is not running: start it, then probe it", name);
		if (c)
			lxc_container_put(c);
		return -ESRCH;
	}
	opts.env_policy = LXC_ATTACH_CLEAR_ENV;
	opts.stdin_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	opts.stdout_fd = out;
	opts.stderr_fd = out;
	r = c->attach(c, exec_probe, payload, &opts, pid);
	close(opts.stdin_fd);
	lxc_container_put(c);
	if (r < 0)
		gp_error("Failed to attach to container \"%s\"", name);
	return r < 0 ? -EIO : 0;
}

int gp_probe_run(const char *lxcpath, const char *name, const char *probe_path,
		 const struct gp_plan *expected, int timeout_ms, struct gp_probe_result *r)
{
	_cleanup_free_ char *out = malloc(GP_PROBE_OUTPUT_MAX + 1);
	struct exec_payload payload = { .fd = -1 };
	int fds[2] = { -1, -1 }, ret;
	double start = now_ms();
	size_t len = 0;
	bool in_time;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	payload.fd = sealed_copy(probe_path);
	payload.argv = probe_argv(expected);
	if (!out || payload.fd < 0 || !payload.argv || pipe2(fds, O_CLOEXEC) < 0) {
		ret = payload.fd < 0 ? payload.fd : -ENOMEM;
		goto out;
	}
	ret = attach(lxcpath, name, &payload, fds[1], &pid);
	gp_closep(&fds[1]);
	if (ret < 0)
		goto out;
	in_time = read_until(fds[0], start + timeout_ms, out, GP_PROBE_OUTPUT_MAX + 1, &len);
	r->timed_out = !in_time;
	if (!in_time)
		r->state = process_state(pid);
	/* Past the deadline, or more output than any probe writes: it goes. */
	finish(pid, !in_time || len == GP_PROBE_OUTPUT_MAX, start + timeout_ms, r);
	r->elapsed_ms = now_ms() - start;
	out[len] = '\0';
	if (gp_probe_parse(out, r) < 0 && in_time)
		gp_warn("the probe's output was not as expected (a crash, or not our probe)");
	r->status = r->timed_out ? GP_PROBE_TIMEOUT : GP_PROBE_FAILED;
out:
	gp_closep(&fds[0]);
	gp_closep(&payload.fd);
	free_argv(payload.argv);
	return ret;
}
