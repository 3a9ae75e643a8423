/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-probe --deep: the line every step prints, the stage line before each part, and the
 * libraries it opens. Each step is one line:
 *
 *   deep CAPABILITY DEVICE STEP CODE NAME MS DETAIL
 *
 * CAPABILITY is compute, nvml, nvdec, nvenc or vulkan; DEVICE the CUDA ordinal, or "-"
 * for a step of no one device; CODE the library's return code and NAME its name ("-" when
 * unknown); MS the step's time; DETAIL one word, "-" for none. A library the container
 * lacks is the step "library" with code 1 and the soname as its detail.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

#include "probe.h"
#include "protocol.h"

double probe_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void print_device(int dev)
{
	if (dev < 0)
		printf(" -");
	else
		printf(" %d", dev);
}

void probe_step(const char *cap, int dev, const char *step, int code, const char *name, double t0,
		const char *detail)
{
	printf(GP_PROBE_DEEP " %s", cap);
	print_device(dev);
	printf(" %s %d %s %.1f %s\n", step, code, probe_word(name), probe_now_ms() - t0,
	       probe_word(detail));
	fflush(stdout);
}

void probe_stage(const char *cap, int dev)
{
	printf(GP_PROBE_STAGE " %s", cap);
	print_device(dev);
	printf("\n");
	fflush(stdout);
}

void *probe_library(const char *cap, const char *soname)
{
	double t0 = probe_now_ms();
	void *lib;

	probe_stage(cap, -1);
	lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		probe_step(cap, -1, "library", 1, NULL, t0, soname);
	return lib;
}

bool probe_symbols(const char *cap, void *lib, const char *const *names, void **out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out[i] = dlsym(lib, names[i]);
		if (!out[i]) {
			probe_step(cap, -1, "symbols", 1, NULL, probe_now_ms(), names[i]);
			return false;
		}
	}
	return true;
}
