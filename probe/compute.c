/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-probe --deep, compute: on each device, in its primary context, 1 MiB copied to the
 * device and back and compared, then a kernel loaded from PTX text (so the driver's JIT is
 * proven too) run over that buffer and its result checked. One line per step:
 *
 *   compute DEVICE STEP CODE NAME MS
 *
 * Prototypes and constants from the CUDA driver API's documented ABI (cuda.h), declared
 * here: the probe has no link-time dependency on libcuda.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe.h"

typedef int cu_result;
typedef unsigned long long cu_ptr;

/* p[i] += i over n words: the result depends on every thread's own index. */
static const char ptx[] = ".version 6.0\n"
			  ".target sm_50\n"
			  ".address_size 64\n"
			  ".visible .entry gp_add_index(.param .u64 gp_p, .param .u32 gp_n)\n"
			  "{\n"
			  "	.reg .pred %p<2>;\n"
			  "	.reg .b32 %r<7>;\n"
			  "	.reg .b64 %rd<5>;\n"
			  "	ld.param.u64 %rd1, [gp_p];\n"
			  "	ld.param.u32 %r2, [gp_n];\n"
			  "	mov.u32 %r3, %ctaid.x;\n"
			  "	mov.u32 %r4, %ntid.x;\n"
			  "	mov.u32 %r5, %tid.x;\n"
			  "	mad.lo.s32 %r1, %r3, %r4, %r5;\n"
			  "	setp.ge.u32 %p1, %r1, %r2;\n"
			  "	@%p1 bra DONE;\n"
			  "	cvta.to.global.u64 %rd2, %rd1;\n"
			  "	mul.wide.u32 %rd3, %r1, 4;\n"
			  "	add.s64 %rd4, %rd2, %rd3;\n"
			  "	ld.global.u32 %r6, [%rd4];\n"
			  "	add.s32 %r6, %r6, %r1;\n"
			  "	st.global.u32 [%rd4], %r6;\n"
			  "DONE:\n"
			  "	ret;\n"
			  "}\n";

#define WORDS (256u * 1024u) /* 1 MiB */
#define BLOCK 256u

struct cuda {
	cu_result (*get)(int *, int);
	cu_result (*retain)(void **, int);
	cu_result (*release)(int);
	cu_result (*set_current)(void *);
	cu_result (*alloc)(cu_ptr *, size_t);
	cu_result (*free_)(cu_ptr);
	cu_result (*htod)(cu_ptr, const void *, size_t);
	cu_result (*dtoh)(void *, cu_ptr, size_t);
	cu_result (*load)(void **, const void *);
	cu_result (*unload)(void *);
	cu_result (*function)(void **, void *, const char *);
	cu_result (*launch)(void *, unsigned int, unsigned int, unsigned int, unsigned int,
			    unsigned int, unsigned int, unsigned int, void *, void **, void **);
	cu_result (*sync)(void);
	cu_result (*error_name)(cu_result, const char **);
};

static bool load_symbols(void *lib, struct cuda *c)
{
	*(void **)&c->get = dlsym(lib, "cuDeviceGet");
	*(void **)&c->retain = dlsym(lib, "cuDevicePrimaryCtxRetain");
	*(void **)&c->release = dlsym(lib, "cuDevicePrimaryCtxRelease_v2");
	*(void **)&c->set_current = dlsym(lib, "cuCtxSetCurrent");
	*(void **)&c->alloc = dlsym(lib, "cuMemAlloc_v2");
	*(void **)&c->free_ = dlsym(lib, "cuMemFree_v2");
	*(void **)&c->htod = dlsym(lib, "cuMemcpyHtoD_v2");
	*(void **)&c->dtoh = dlsym(lib, "cuMemcpyDtoH_v2");
	*(void **)&c->load = dlsym(lib, "cuModuleLoadData");
	*(void **)&c->unload = dlsym(lib, "cuModuleUnload");
	*(void **)&c->function = dlsym(lib, "cuModuleGetFunction");
	*(void **)&c->launch = dlsym(lib, "cuLaunchKernel");
	*(void **)&c->sync = dlsym(lib, "cuCtxSynchronize");
	*(void **)&c->error_name = dlsym(lib, "cuGetErrorName");
	return c->get && c->retain && c->release && c->set_current && c->alloc && c->free_ &&
	       c->htod && c->dtoh && c->load && c->unload && c->function && c->launch && c->sync;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Prints the step's line; true when it succeeded. */
static bool step(const struct cuda *c, int dev, const char *name, cu_result r, double t0)
{
	const char *err = NULL;

	if (!c->error_name || c->error_name(r, &err) != 0)
		err = NULL;
	printf("compute %d %s %d %s %.1f\n", dev, name, r, probe_word(err), now_ms() - t0);
	fflush(stdout);
	return r == 0;
}

/* The words match what p[i] = pattern(i) gives after the kernel (with or without it). */
static int mismatches(const uint32_t *p, bool kernel)
{
	for (uint32_t i = 0; i < WORDS; i++)
		if (p[i] != i * 2654435761u + (kernel ? i : 0))
			return 1;
	return 0;
}

static void run_kernel(const struct cuda *c, int dev, cu_ptr buf, uint32_t *host)
{
	void *module = NULL, *fn = NULL;
	unsigned int n = WORDS;
	void *params[] = { &buf, &n };
	double t0 = now_ms();

	if (!step(c, dev, "module", c->load(&module, ptx), t0))
		return;
	t0 = now_ms();
	if (step(c, dev, "function", c->function(&fn, module, "gp_add_index"), t0)) {
		t0 = now_ms();
		if (step(c, dev, "launch",
			 c->launch(fn, WORDS / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, params, NULL),
			 t0) &&
		    step(c, dev, "sync", c->sync(), t0)) {
			t0 = now_ms();
			if (step(c, dev, "kernel-dtoh", c->dtoh(host, buf, WORDS * 4), t0))
				step(c, dev, "kernel-result", mismatches(host, true), t0);
		}
	}
	c->unload(module);
}

static void device_compute(const struct cuda *c, int index, uint32_t *host)
{
	void *ctx = NULL;
	cu_ptr buf = 0;
	double t0 = now_ms();
	int dev;

	if (!step(c, index, "device", c->get(&dev, index), t0))
		return;
	t0 = now_ms();
	if (!step(c, index, "context", c->retain(&ctx, dev), t0))
		return;
	if (step(c, index, "current", c->set_current(ctx), t0) &&
	    step(c, index, "alloc", c->alloc(&buf, WORDS * 4), t0)) {
		for (uint32_t i = 0; i < WORDS; i++)
			host[i] = i * 2654435761u;
		t0 = now_ms();
		if (step(c, index, "htod", c->htod(buf, host, WORDS * 4), t0)) {
			memset(host, 0, WORDS * 4);
			if (step(c, index, "dtoh", c->dtoh(host, buf, WORDS * 4), t0) &&
			    step(c, index, "compare", mismatches(host, false), t0))
				run_kernel(c, index, buf, host);
		}
		c->free_(buf);
	}
	c->set_current(NULL);
	c->release(dev);
}

void probe_compute(void *lib, int count)
{
	uint32_t *host = malloc(WORDS * 4);
	struct cuda c;

	if (!host || !load_symbols(lib, &c)) {
		printf("compute - symbols 1 - 0\n");
		free(host);
		return;
	}
	for (int i = 0; i < count && i < 64; i++)
		device_compute(&c, i, host);
	free(host);
}
