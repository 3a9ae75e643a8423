/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-probe's parts: probe/gpu-probe.c (the facts it always gives), probe/compute.c. */
#ifndef GP_PROBE_PARTS_H
#define GP_PROBE_PARTS_H

#include <stdbool.h>

/* The dl functions at their first versions, in every file of the probe (glibc 2.28). */
__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver dlerror,dlerror@GLIBC_2.2.5");
__asm__(".symver dladdr,dladdr@GLIBC_2.2.5");

/* A word for an output line: no blanks, no control characters, bounded; "-" for none. */
const char *probe_word(const char *s);

/* --deep: memory round trip and a PTX kernel on each of count devices (libcuda's). */
void probe_compute(void *lib, int count);

/* --deep: NVML's init, count and UUIDs (probe/deepmore.c). */
void probe_nvml(void);

/* --deep: NVDEC's decoder caps for H.264, HEVC, AV1 on each of count devices. */
void probe_nvdec(void *cuda, int count);

/* --deep: an NVENC session per device and its codecs (probe/nvenc.c). */
void probe_nvenc(void *cuda, int count);

#endif
