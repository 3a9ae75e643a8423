/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * NVML's addressing mode per GPU, asked in a child process: NVML talks to the driver
 * and a wedged driver must not wedge us. The child's answer is parsed strictly.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "hmm.h"
#include "util.h"

struct addressing_mode {
	unsigned int version;
	unsigned int value;
};
#define ADDRESSING_MODE_V1 (sizeof(struct addressing_mode) | (1u << 24))

typedef int (*nvml_void)(void);
typedef int (*nvml_count)(unsigned int *);
typedef int (*nvml_handle)(unsigned int, void **);
typedef int (*nvml_mode)(void *, struct addressing_mode *);

/* In the child: writes "modes M M ...\n", or "error N\n". Never returns. */
static void __attribute__((noreturn)) child(int fd)
{
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	nvml_void init, shutdown;
	nvml_count count;
	nvml_handle handle;
	nvml_mode mode;
	unsigned int n = 0;

	if (!lib)
		_exit(3);
	init = (nvml_void)dlsym(lib, "nvmlInit_v2");
	shutdown = (nvml_void)dlsym(lib, "nvmlShutdown");
	count = (nvml_count)dlsym(lib, "nvmlDeviceGetCount_v2");
	handle = (nvml_handle)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
	mode = (nvml_mode)dlsym(lib, "nvmlDeviceGetAddressingMode");
	if (!init || !count || !handle || !mode)
		_exit(4);
	if (init() != 0 || count(&n) != 0)
		_exit(5);
	dprintf(fd, "modes");
	for (unsigned int i = 0; i < n && i < GP_NVML_MAX_GPUS; i++) {
		struct addressing_mode m = { .version = ADDRESSING_MODE_V1 };
		void *dev = NULL;

		if (handle(i, &dev) != 0 || mode(dev, &m) != 0)
			m.value = 99;
		dprintf(fd, " %u", m.value);
	}
	dprintf(fd, "\n");
	if (shutdown)
		shutdown();
	_exit(0);
}

int gp_nvml_parse(const char *buf, struct gp_nvml *out)
{
	const char *p = buf;

	out->n = 0;
	if (strncmp(p, "modes", 5) != 0)
		return -EINVAL;
	for (p += 5; *p == ' ';) {
		int v, used = 0;

		if (sscanf(p, " %d%n", &v, &used) != 1 || v < 0 || v > 99 ||
		    out->n == GP_NVML_MAX_GPUS)
			return -EINVAL;
		out->modes[out->n++] = v;
		p += used;
	}
	return strcmp(p, "\n") == 0 ? 0 : -EINVAL;
}

static int read_bounded(int fd, int timeout_ms, char *buf, size_t size)
{
	size_t have = 0;
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (have < size - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long left;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = timeout_ms - ((now.tv_sec - start.tv_sec) * 1000 +
				     (now.tv_nsec - start.tv_nsec) / 1000000);
		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return -ETIMEDOUT;
		n = read(fd, buf + have, size - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	buf[have] = '\0';
	return 0;
}

void gp_nvml_addressing(int timeout_ms, struct gp_nvml *out)
{
	char buf[512];
	int fds[2], status = 0;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if (pipe2(fds, O_CLOEXEC) < 0) {
		out->status = -errno;
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child(fds[1]);
	}
	close(fds[1]);
	out->status = pid < 0 ? -errno : read_bounded(fds[0], timeout_ms, buf, sizeof(buf));
	close(fds[0]);
	if (pid < 0)
		return;
	if (out->status == -ETIMEDOUT)
		kill(pid, SIGKILL);
	/* A child stuck in the kernel may not die at once: wait briefly, never forever. */
	for (int i = 0; i < 100 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	if (out->status == 0 && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		int code = WEXITSTATUS(status);

		/* 3: no libnvidia-ml.so.1; 4: an NVML without addressing modes; 5: init failed */
		out->status = code == 3 ? -ENOENT : code == 4 ? -ENOSYS : -EIO;
	} else if (out->status == 0 && gp_nvml_parse(buf, out) < 0) {
		out->status = -EPROTO;
	}
}
