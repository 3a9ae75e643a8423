/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Header only: the lines gpu-probe prints (probe/) and lib/diagnose/proberun.c parses, the
 * one statement of what passes between them. Text, one line a fact, each "KEYWORD FIELD..."
 * with fields split at single blanks; a field no blank, no control character and at most
 * GP_PROBE_WORD_MAX - 1 bytes, "-" for none. The parser refuses anything else: a line of
 * another form, a longer one, a field out of its range, anything after the end.
 */
#ifndef GP_PROBE_PROTOCOL_H
#define GP_PROBE_PROTOCOL_H

#define GP_PROBE_HELLO "gpu-probe 1\n" /* the first line; 1 is the protocol's version */
#define GP_PROBE_END "end"	       /* the last line: the output is whole */
#define GP_PROBE_LINE_MAX 512	       /* a line's bytes, its newline included */
#define GP_PROBE_WORD_MAX 256	       /* a field's bytes, the NUL included */
#define GP_PROBE_MAX_DEVICES 64	       /* CUDA devices reported */

/* The lines between, in the order the probe prints them. */
#define GP_PROBE_GLIBC "glibc"	   /* glibc VERSION: the container's C library */
#define GP_PROBE_NODE "node"	   /* node NAME EXISTS IS_CHR MAJOR MINOR OPEN_ERRNO */
#define GP_PROBE_LIBCUDA "libcuda" /* libcuda FOUND PATH VERSION: what dlopen resolved */
#define GP_PROBE_SYMBOLS "symbols" /* symbols 0: libcuda lacks a symbol the probe needs */
#define GP_PROBE_DRIVER "driver"   /* driver VERSION: cuDriverGetVersion's, -1 when it failed */
#define GP_PROBE_STAGE "stage"	 /* stage cuinit | stage PART DEVICE: before what may not return */
#define GP_PROBE_CUINIT "cuinit" /* cuinit CODE NAME: cuInit(0) and its error's name */
#define GP_PROBE_DEVICES "devices" /* devices COUNT: cuDeviceGetCount's */
#define GP_PROBE_DEVICE "device"   /* device ORDINAL PCI UUID, one per device */
#define GP_PROBE_DEEP "deep"	   /* deep PART DEVICE STEP CODE NAME MS DETAIL (--deep) */

/* The parts of --deep, as PART names them; DEVICE is an ordinal below COUNT, or "-". */
#define GP_PROBE_PARTS "compute", "nvml", "nvdec", "nvenc", "vulkan"

#endif
