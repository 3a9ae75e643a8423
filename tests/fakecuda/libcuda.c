/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A test double of the driver's libcuda.so.1, for containers without a GPU. What it
 * does is chosen by /etc/fake-cuda inside the container (fake-cuda.h), one word a line:
 *
 *   result N        cuInit returns N (default 0)
 *   hang            cuInit never returns
 *   crash           cuInit dies of SIGSEGV
 *   exit            cuInit ends the process quietly (exit code 3)
 *   device PCI UUID one line per device cuDeviceGetCount reports
 *
 * and, for gpu-probe --deep's compute (primary contexts, device memory, a kernel from PTX
 * text), where STEP is context (cuDevicePrimaryCtxRetain), current (cuCtxSetCurrent),
 * alloc, htod, dtoh, module (cuModuleLoadData), function, launch or sync:
 *
 *   fail STEP CODE  that call returns CODE
 *   hang-in STEP    that call never returns
 *   corrupt         device-to-host copies come back with one word changed
 *   idle-kernel     a launch does nothing, so the kernel's result is wrong
 *
 * Device memory is host memory, its address the device pointer; the one kernel there is,
 * gp_add_index (p[i] += i for each thread index i < n), runs on the CPU at the launch. The
 * deep calls, as the driver's, answer 3 before a cuInit that succeeded and 201 without a
 * current context.
 *
 * It is never a real driver: tests use it to reach every probe finding through a real
 * container, a real attach and a real deadline. Its entry points have dynlink_cuda.h's types
 * (libffmpeg-nvenc-dev), as the probe's calls do; those the header lacks, cuda.h's.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ffnvcodec/dynlink_cuda.h>

#include "fake-cuda.h"

#define MAX_ALLOCATIONS 64
#define MAX_BLOCK_THREADS 1024u

/* cuda.h's codes that dynlink_cuda.h's CUresult leaves out. */
#define CU_SUCCESS CUDA_SUCCESS
#define CU_INVALID_VALUE ((CUresult)1)
#define CU_OUT_OF_MEMORY ((CUresult)2)
#define CU_NOT_INITIALIZED ((CUresult)3)
#define CU_INVALID_DEVICE ((CUresult)101)
#define CU_INVALID_CONTEXT ((CUresult)201)
#define CU_INVALID_PTX ((CUresult)218)
#define CU_INVALID_HANDLE ((CUresult)400)
#define CU_NOT_FOUND ((CUresult)500)
#define CU_ILLEGAL_ADDRESS ((CUresult)700)

enum step {
	S_CONTEXT,
	S_CURRENT,
	S_ALLOC,
	S_HTOD,
	S_DTOH,
	S_MODULE,
	S_FUNCTION,
	S_LAUNCH,
	S_SYNC,
	S_COUNT
};

static const char *const step_names[S_COUNT] = {
	"context", "current", "alloc", "htod", "dtoh", "module", "function", "launch", "sync",
};

static bool loaded, initialised;
static int result;
static char fate[8]; /* the first of hang, crash and exit */
static int ndev;
static struct fake_device devices[FAKE_MAX_DEVICES];
static int fail[S_COUNT];
static bool hang_in[S_COUNT], corrupt, idle_kernel;

struct context {
	int refs;
};
static struct context contexts[FAKE_MAX_DEVICES];
static struct context *current;

struct allocation {
	unsigned char *p;
	size_t size;
};
static struct allocation allocations[MAX_ALLOCATIONS];

/* The one module and the one function in it; their handles point here. */
static int modules_loaded;
static char module_token, function_token;
static int pending; /* what the next cuCtxSynchronize reports of the last launch */

static int step_of(const char *name)
{
	for (int s = 0; s < S_COUNT; s++)
		if (strcmp(name, step_names[s]) == 0)
			return s;
	return -1;
}

static void take_deep(const char *word, const char *args)
{
	char name[32];
	int code, s;

	if (strcmp(word, "fail") == 0 && sscanf(args, "%31s %d", name, &code) == 2 &&
	    (s = step_of(name)) >= 0)
		fail[s] = code;
	else if (strcmp(word, "hang-in") == 0 && sscanf(args, "%31s", name) == 1 &&
		 (s = step_of(name)) >= 0)
		hang_in[s] = true;
	else if (strcmp(word, "corrupt") == 0)
		corrupt = true;
	else if (strcmp(word, "idle-kernel") == 0)
		idle_kernel = true;
}

static void take(const char *word, const char *args)
{
	if (strcmp(word, "result") == 0)
		sscanf(args, "%d", &result);
	else if (!fate[0] && (strcmp(word, "hang") == 0 || strcmp(word, "crash") == 0 ||
			      strcmp(word, "exit") == 0))
		snprintf(fate, sizeof(fate), "%s", word);
	else if (!fake_cuda_device(word, args, devices, &ndev))
		take_deep(word, args);
}

static void load(void)
{
	if (loaded)
		return;
	loaded = true;
	fake_cuda_read(take);
}

CUresult cuDriverGetVersion(int *v);
CUresult cuDriverGetVersion(int *v)
{
	*v = 13000;
	return 0;
}

tcuInit cuInit;
CUresult cuInit(unsigned int flags)
{
	(void)flags;
	load();
	if (strcmp(fate, "hang") == 0)
		for (;;)
			pause();
	if (strcmp(fate, "crash") == 0)
		raise(SIGSEGV);
	if (strcmp(fate, "exit") == 0)
		_exit(3);
	initialised = result == 0;
	return result;
}

tcuDeviceGetCount cuDeviceGetCount;
CUresult cuDeviceGetCount(int *n)
{
	*n = result == 0 ? ndev : 0;
	return result;
}

tcuDeviceGet cuDeviceGet;
CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
	*dev = ordinal;
	return ordinal >= 0 && ordinal < ndev ? 0 : CU_INVALID_DEVICE;
}

CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice dev);
CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice dev)
{
	if (dev < 0 || dev >= ndev)
		return CU_INVALID_DEVICE;
	snprintf(buf, (size_t)len, "%s", devices[dev].pci);
	return 0;
}

CUresult cuDeviceGetUuid_v2(unsigned char *out, CUdevice dev);
CUresult cuDeviceGetUuid_v2(unsigned char *out, CUdevice dev)
{
	if (dev < 0 || dev >= ndev)
		return CU_INVALID_DEVICE;
	memcpy(out, devices[dev].uuid, 16);
	return 0;
}

/* The start of each deep call: 3 before a cuInit that succeeded, then the step's fault. */
static int enter(enum step s)
{
	if (!initialised)
		return CU_NOT_INITIALIZED;
	if (hang_in[s])
		for (;;)
			pause();
	return fail[s];
}

/* As enter(), for a call that works in the current context. */
static int enter_current(enum step s)
{
	int r = enter(s);

	if (r == 0 && !current)
		return CU_INVALID_CONTEXT;
	return r;
}

tcuDevicePrimaryCtxRetain cuDevicePrimaryCtxRetain;
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
	int r = enter(S_CONTEXT);

	if (r != 0)
		return r;
	if (!ctx)
		return CU_INVALID_VALUE;
	if (dev < 0 || dev >= ndev)
		return CU_INVALID_DEVICE;
	contexts[dev].refs++;
	*ctx = (CUcontext)(void *)&contexts[dev];
	return 0;
}

tcuDevicePrimaryCtxRelease cuDevicePrimaryCtxRelease_v2;
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	if (!initialised)
		return CU_NOT_INITIALIZED;
	if (dev < 0 || dev >= ndev)
		return CU_INVALID_DEVICE;
	if (contexts[dev].refs == 0)
		return CU_INVALID_CONTEXT;
	if (--contexts[dev].refs == 0 && current == &contexts[dev])
		current = NULL;
	return 0;
}

CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxSetCurrent(CUcontext ctx)
{
	int r = enter(S_CURRENT);

	if (r != 0)
		return r;
	if (!ctx) {
		current = NULL;
		return 0;
	}
	for (int i = 0; i < ndev; i++)
		if ((void *)ctx == &contexts[i] && contexts[i].refs > 0) {
			current = &contexts[i];
			return 0;
		}
	return CU_INVALID_CONTEXT;
}

/* The allocation that holds n bytes at dptr, or NULL. */
static struct allocation *allocation_of(unsigned long long dptr, size_t n)
{
	for (int i = 0; i < MAX_ALLOCATIONS; i++) {
		struct allocation *a = &allocations[i];
		uintptr_t base = (uintptr_t)a->p;

		if (a->p && dptr >= base && n <= a->size && dptr - base <= a->size - n)
			return a;
	}
	return NULL;
}

tcuMemAlloc_v2 cuMemAlloc_v2;
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes)
{
	int r = enter_current(S_ALLOC);

	if (r != 0)
		return r;
	if (!dptr || bytes == 0)
		return CU_INVALID_VALUE;
	for (int i = 0; i < MAX_ALLOCATIONS; i++) {
		struct allocation *a = &allocations[i];

		if (a->p)
			continue;
		a->p = malloc(bytes);
		if (!a->p)
			return CU_OUT_OF_MEMORY;
		a->size = bytes;
		*dptr = (uintptr_t)a->p;
		return 0;
	}
	return CU_OUT_OF_MEMORY;
}

tcuMemFree_v2 cuMemFree_v2;
CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	if (!initialised)
		return CU_NOT_INITIALIZED;
	if (!current)
		return CU_INVALID_CONTEXT;
	for (int i = 0; i < MAX_ALLOCATIONS; i++)
		if (allocations[i].p && (uintptr_t)allocations[i].p == dptr) {
			free(allocations[i].p);
			allocations[i].p = NULL;
			return 0;
		}
	return CU_INVALID_VALUE;
}

tcuMemcpyHtoD_v2 cuMemcpyHtoD_v2;
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
	int r = enter_current(S_HTOD);

	if (r != 0)
		return r;
	if (!src || !allocation_of(dst, n))
		return CU_INVALID_VALUE;
	memcpy((void *)(uintptr_t)dst, src, n);
	return 0;
}

tcuMemcpyDtoH_v2 cuMemcpyDtoH_v2;
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
	int r = enter_current(S_DTOH);

	if (r != 0)
		return r;
	if (!dst || !allocation_of(src, n))
		return CU_INVALID_VALUE;
	memcpy(dst, (const void *)(uintptr_t)src, n);
	if (corrupt && n >= 4)
		((unsigned char *)dst)[n / 8 * 4] ^= 1; /* the middle word */
	return 0;
}

tcuModuleLoadData cuModuleLoadData;
CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
	int r = enter_current(S_MODULE);

	if (r != 0)
		return r;
	if (!module || !image)
		return CU_INVALID_VALUE;
	if (!strstr(image, ".entry gp_add_index"))
		return CU_INVALID_PTX;
	modules_loaded++;
	*module = (CUmodule)(void *)&module_token;
	return 0;
}

tcuModuleUnload cuModuleUnload;
CUresult cuModuleUnload(CUmodule module)
{
	if (!initialised)
		return CU_NOT_INITIALIZED;
	if (!current)
		return CU_INVALID_CONTEXT;
	if ((void *)module != &module_token || modules_loaded == 0)
		return CU_INVALID_HANDLE;
	modules_loaded--;
	return 0;
}

tcuModuleGetFunction cuModuleGetFunction;
CUresult cuModuleGetFunction(CUfunction *fn, CUmodule module, const char *name)
{
	int r = enter_current(S_FUNCTION);

	if (r != 0)
		return r;
	if (!fn || !name)
		return CU_INVALID_VALUE;
	if ((void *)module != &module_token || modules_loaded == 0)
		return CU_INVALID_HANDLE;
	if (strcmp(name, "gp_add_index") != 0)
		return CU_NOT_FOUND;
	*fn = (CUfunction)(void *)&function_token;
	return 0;
}

/* gp_add_index(p, n) over threads: p[i] += i for i < threads and i < n, as the GPU would. */
static void add_index(unsigned long long p, unsigned int n, unsigned long long threads)
{
	unsigned long long m = threads < n ? threads : n;
	uint32_t *words = (uint32_t *)(uintptr_t)p;

	if (p % 4 != 0 || !allocation_of(p, m * 4)) {
		pending = CU_ILLEGAL_ADDRESS;
		return;
	}
	for (uint32_t i = 0; i < m; i++)
		words[i] += i;
}

tcuLaunchKernel cuLaunchKernel;
CUresult cuLaunchKernel(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
			unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
			CUstream stream, void **params, void **extra)
{
	int r = enter_current(S_LAUNCH);

	(void)shared;
	(void)stream;
	(void)extra;
	if (r != 0)
		return r;
	if ((void *)fn != &function_token || modules_loaded == 0)
		return CU_INVALID_HANDLE;
	if (!gx || !gy || !gz || !bx || !by || !bz ||
	    (unsigned long long)bx * by * bz > MAX_BLOCK_THREADS || !params || !params[0] ||
	    !params[1])
		return CU_INVALID_VALUE;
	if (!idle_kernel)
		add_index(*(unsigned long long *)params[0], *(unsigned int *)params[1],
			  (unsigned long long)gx * bx);
	return 0;
}

CUresult cuCtxSynchronize(void);
CUresult cuCtxSynchronize(void)
{
	int r = enter_current(S_SYNC);

	if (r != 0)
		return r;
	r = pending;
	pending = 0;
	return r;
}

tcuGetErrorName cuGetErrorName;
CUresult cuGetErrorName(CUresult code, const char **name)
{
	static const struct {
		int code;
		const char *name;
	} names[] = {
		{ 0, "CUDA_SUCCESS" },
		{ 1, "CUDA_ERROR_INVALID_VALUE" },
		{ 2, "CUDA_ERROR_OUT_OF_MEMORY" },
		{ 3, "CUDA_ERROR_NOT_INITIALIZED" },
		{ 34, "CUDA_ERROR_STUB_LIBRARY" },
		{ 46, "CUDA_ERROR_DEVICES_UNAVAILABLE" },
		{ 100, "CUDA_ERROR_NO_DEVICE" },
		{ 101, "CUDA_ERROR_INVALID_DEVICE" },
		{ 200, "CUDA_ERROR_INVALID_IMAGE" },
		{ 201, "CUDA_ERROR_INVALID_CONTEXT" },
		{ 209, "CUDA_ERROR_NO_BINARY_FOR_GPU" },
		{ 218, "CUDA_ERROR_INVALID_PTX" },
		{ 221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND" },
		{ 222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" },
		{ 400, "CUDA_ERROR_INVALID_HANDLE" },
		{ 500, "CUDA_ERROR_NOT_FOUND" },
		{ 700, "CUDA_ERROR_ILLEGAL_ADDRESS" },
		{ 719, "CUDA_ERROR_LAUNCH_FAILED" },
		{ 802, "CUDA_ERROR_SYSTEM_NOT_READY" },
		{ 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" },
		{ 804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE" },
		{ 999, "CUDA_ERROR_UNKNOWN" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].code == (int)code) {
			*name = names[i].name;
			return 0;
		}
	return 1;
}
