/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-probe's parts: probe/gpu-probe.c (the facts it always gives), probe/line.c (what
 * its lines are made of), probe/deep.c (the lines of --deep), and one file for each
 * capability --deep proves.
 */
#ifndef GP_PROBE_PARTS_H
#define GP_PROBE_PARTS_H

#include <stdbool.h>
#include <stddef.h>

#include <ffnvcodec/dynlink_cuda.h>

/*
 * Every file of the probe asks for symbols that glibc 2.28 has, whichever glibc builds it
 * (make's check-probe-glibc holds it): the dl functions at their first versions, not
 * glibc 2.34's, and sscanf as C99's. Since glibc 2.38 _GNU_SOURCE turns sscanf into C23's
 * __isoc23_sscanf, which differs only in reading %b and 0b, which the probe never asks.
 */
__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver dlerror,dlerror@GLIBC_2.2.5");
__asm__(".symver dladdr,dladdr@GLIBC_2.2.5");
__asm__(".symver __isoc23_sscanf,__isoc99_sscanf@GLIBC_2.7");

/* A word for an output line: no blanks, no control characters, bounded; "-" for none. */
const char *probe_word(const char *s);

/* Milliseconds on the monotonic clock. */
double probe_now_ms(void);

/* Prints "deep CAP DEVICE STEP CODE NAME MS DETAIL" (MS since t0; DEVICE -1 is "-"). */
void probe_step(const char *cap, int dev, const char *step, int code, const char *name, double t0,
		const char *detail);

/* Prints "stage CAP DEVICE" before a part that may not return, so a hang is placed. */
void probe_stage(const char *cap, int dev);

/* dlopen(soname), or NULL after printing its "library" step. */
void *probe_library(const char *cap, const char *soname);

/* dlsym of each of names into out, or false after printing the first missing one. */
bool probe_symbols(const char *cap, void *lib, const char *const *names, void **out, size_t n);

/*
 * CUDA's own calls the video parts share: a device's primary context made current. The
 * types are dynlink_cuda.h's (libffmpeg-nvenc-dev); cuCtxSetCurrent, which it lacks, is
 * declared here (cuda.h's since CUDA 4.0), as is the _v2 release (the same as the first).
 */
struct probe_cuda_ctx {
	tcuDeviceGet *get;
	tcuDevicePrimaryCtxRetain *retain;
	tcuDevicePrimaryCtxRelease *release;
	CUresult (*set_current)(CUcontext);
	tcuGetErrorName *error_name;
};
bool probe_cuda_ctx_load(void *cuda, const char *cap, struct probe_cuda_ctx *c);
const char *probe_cuda_error(const struct probe_cuda_ctx *c, CUresult code);

/* Each capability on each of count devices (libcuda's handle is cuda). */
void probe_compute(void *cuda, int count);
/* Releases the primary contexts probe_compute kept for the parts after it. */
void probe_compute_release(void);
void probe_nvml(void);
void probe_nvdec(void *cuda, int count);
void probe_nvenc(void *cuda, int count);
void probe_vulkan(void);

#endif
