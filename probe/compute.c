/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-probe --deep, compute: on each device, in its primary context, 1 MiB copied to the
 * device and back and compared, then a kernel loaded from PTX text (so the driver's JIT is
 * proven too) run over that buffer and its result checked. The steps, in order: device,
 * context, current, alloc, htod, dtoh, compare (CODE: the words that differ), module,
 * function, launch, sync, kernel-dtoh, kernel-result (CODE: the words that differ).
 *
 * The entry points' types are dynlink_cuda.h's (probe.h); the probe has no link-time
 * dependency on libcuda.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

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

/* dynlink_cuda.h's types; cuCtxSynchronize, which it lacks, is cuda.h's. */
struct cuda {
	struct probe_cuda_ctx ctx;
	tcuMemAlloc_v2 *alloc;
	tcuMemFree_v2 *free_;
	tcuMemcpyHtoD_v2 *htod;
	tcuMemcpyDtoH_v2 *dtoh;
	tcuModuleLoadData *load;
	tcuModuleUnload *unload;
	tcuModuleGetFunction *function;
	tcuLaunchKernel *launch;
	CUresult (*sync)(void);
};

bool probe_cuda_ctx_load(void *cuda, const char *cap, struct probe_cuda_ctx *c)
{
	static const char *const names[] = { "cuDeviceGet", "cuDevicePrimaryCtxRetain",
					     "cuDevicePrimaryCtxRelease_v2", "cuCtxSetCurrent" };
	void *f[4];

	if (!probe_symbols(cap, cuda, names, f, 4))
		return false;
	*(void **)&c->get = f[0];
	*(void **)&c->retain = f[1];
	*(void **)&c->release = f[2];
	*(void **)&c->set_current = f[3];
	*(void **)&c->error_name = dlsym(cuda, "cuGetErrorName");
	return true;
}

const char *probe_cuda_error(const struct probe_cuda_ctx *c, CUresult code)
{
	const char *name = NULL;

	if (!c->error_name || c->error_name(code, &name) != 0)
		return NULL;
	return name;
}

static bool load_symbols(void *lib, struct cuda *c)
{
	static const char *const names[] = {
		"cuMemAlloc_v2",       "cuMemFree_v2",	   "cuMemcpyHtoD_v2",
		"cuMemcpyDtoH_v2",     "cuModuleLoadData", "cuModuleUnload",
		"cuModuleGetFunction", "cuLaunchKernel",   "cuCtxSynchronize",
	};
	void *f[9];

	if (!probe_cuda_ctx_load(lib, "compute", &c->ctx) ||
	    !probe_symbols("compute", lib, names, f, 9))
		return false;
	*(void **)&c->alloc = f[0];
	*(void **)&c->free_ = f[1];
	*(void **)&c->htod = f[2];
	*(void **)&c->dtoh = f[3];
	*(void **)&c->load = f[4];
	*(void **)&c->unload = f[5];
	*(void **)&c->function = f[6];
	*(void **)&c->launch = f[7];
	*(void **)&c->sync = f[8];
	return true;
}

/* Prints the step's line; true when it succeeded. */
static bool step(const struct cuda *c, int dev, const char *name, CUresult r, double t0)
{
	probe_step("compute", dev, name, r, probe_cuda_error(&c->ctx, r), t0, NULL);
	return r == 0;
}

/* A check of the buffer is a step of its own: its code is the number of words that differ. */
static bool check_step(int dev, const char *name, int differ, double t0)
{
	probe_step("compute", dev, name, differ, differ ? "mismatch" : "equal", t0, NULL);
	return differ == 0;
}

/* The words that differ from p[i] = pattern(i), after the kernel (p[i] + i) or before it. */
static int mismatches(const uint32_t *p, bool kernel)
{
	int n = 0;

	for (uint32_t i = 0; i < WORDS; i++)
		n += p[i] != i * 2654435761u + (kernel ? i : 0);
	return n;
}

/* The kernel's result, copied back and checked: each step timed on its own. */
static void check_kernel(const struct cuda *c, int dev, CUdeviceptr buf, uint32_t *host)
{
	double t0 = probe_now_ms();

	if (!step(c, dev, "kernel-dtoh", c->dtoh(host, buf, WORDS * 4), t0))
		return;
	t0 = probe_now_ms();
	check_step(dev, "kernel-result", mismatches(host, true), t0);
}

static void run_kernel(const struct cuda *c, int dev, CUdeviceptr buf, uint32_t *host)
{
	CUmodule module = NULL;
	CUfunction fn = NULL;
	unsigned int n = WORDS;
	void *params[] = { &buf, &n };
	double t0 = probe_now_ms();

	if (!step(c, dev, "module", c->load(&module, ptx), t0))
		return;
	t0 = probe_now_ms();
	if (!step(c, dev, "function", c->function(&fn, module, "gp_add_index"), t0))
		goto out;
	t0 = probe_now_ms();
	if (!step(c, dev, "launch",
		  c->launch(fn, WORDS / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, params, NULL), t0))
		goto out;
	t0 = probe_now_ms();
	if (step(c, dev, "sync", c->sync(), t0))
		check_kernel(c, dev, buf, host);
out:
	c->unload(module);
}

/* 1 MiB there and back, compared; then the kernel over it. */
static void copy_and_check(const struct cuda *c, int index, CUdeviceptr buf, uint32_t *host)
{
	double t0;

	for (uint32_t i = 0; i < WORDS; i++)
		host[i] = i * 2654435761u;
	t0 = probe_now_ms();
	if (!step(c, index, "htod", c->htod(buf, host, WORDS * 4), t0))
		return;
	memset(host, 0, WORDS * 4);
	t0 = probe_now_ms();
	if (!step(c, index, "dtoh", c->dtoh(host, buf, WORDS * 4), t0))
		return;
	t0 = probe_now_ms();
	if (check_step(index, "compare", mismatches(host, false), t0))
		run_kernel(c, index, buf, host);
}

static void round_trip(const struct cuda *c, int index, uint32_t *host)
{
	CUdeviceptr buf = 0;
	double t0 = probe_now_ms();

	if (!step(c, index, "alloc", c->alloc(&buf, WORDS * 4), t0))
		return;
	copy_and_check(c, index, buf, host);
	c->free_(buf);
}

/*
 * The devices whose primary context compute made: it is kept until probe_compute_release,
 * so NVDEC and NVENC use it rather than make it again (a context costs a few hundred ms).
 */
static bool held[64];
static struct probe_cuda_ctx held_ctx;

static void device_compute(const struct cuda *c, int index, uint32_t *host)
{
	CUcontext ctx = NULL;
	double t0 = probe_now_ms();
	CUdevice dev;

	probe_stage("compute", index);
	if (!step(c, index, "device", c->ctx.get(&dev, index), t0))
		return;
	t0 = probe_now_ms();
	if (!step(c, index, "context", c->ctx.retain(&ctx, dev), t0))
		return;
	held[index] = true;
	t0 = probe_now_ms();
	if (step(c, index, "current", c->ctx.set_current(ctx), t0))
		round_trip(c, index, host);
	c->ctx.set_current(NULL);
}

void probe_compute(void *cuda, int count)
{
	uint32_t *host = malloc(WORDS * 4);
	struct cuda c;

	probe_stage("compute", -1);
	if (!host) {
		probe_step("compute", -1, "memory", 1, NULL, probe_now_ms(), NULL);
		return;
	}
	if (load_symbols(cuda, &c)) {
		held_ctx = c.ctx;
		for (int i = 0; i < count && i < 64; i++)
			device_compute(&c, i, host);
	}
	free(host);
}

void probe_compute_release(void)
{
	CUdevice dev;

	for (int i = 0; i < 64; i++)
		if (held[i] && held_ctx.get(&dev, i) == 0)
			held_ctx.release(dev);
}
