/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * NVML's addressing mode per GPU, asked in a child process of lib/base/child.c: NVML talks
 * to the driver and a wedged driver must not wedge us, nor hold our caller's output
 * (LXC's pipe to the hook). The child's answer is parsed strictly.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "base/child.h"
#include "base/util.h"
#include "driver/nvml.h"
#include "host/hmm.h"

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
		return -GP_EBADCONF;
	for (p += 5; *p == ' ';) {
		int v, used = 0;

		if (sscanf(p, " %d%n", &v, &used) != 1 || v < 0 || v > 99 ||
		    out->n == GP_NVML_MAX_GPUS)
			return -GP_EBADCONF;
		out->modes[out->n++] = v;
		p += used;
	}
	return strcmp(p, "\n") == 0 ? 0 : -GP_EBADCONF;
}

static int nvml_child(void *unused)
{
	(void)unused;
	child(STDOUT_FILENO);
}

/* 3: no libnvidia-ml.so.1; 4: an NVML without addressing modes; 5: init failed */
static int exit_status(int code)
{
	return code == 3 ? -ENOENT : code == 4 ? -ENOSYS : -EIO;
}

void gp_nvml_addressing(int timeout_ms, struct gp_nvml *out)
{
	/* Its stdout is the answer; its stderr goes nowhere, and neither holds our caller's. */
	const struct gp_child_opts o = { .timeout_ms = timeout_ms,
					 .output_max = 512,
					 .overflow_kills = true };
	struct gp_child c;

	memset(out, 0, sizeof(*out));
	out->status = gp_child_start(&c, &o, nvml_child, NULL);
	if (out->status < 0)
		return;
	gp_child_wait(&c);
	if (c.timed_out)
		out->status = -ETIMEDOUT;
	else if (!c.reaped || c.exit_code < 0)
		out->status = -EIO;
	else if (c.exit_code != 0)
		out->status = exit_status(c.exit_code);
	else if (gp_nvml_parse(c.out, out) < 0)
		out->status = -EPROTO;
	gp_child_free(&c);
}
