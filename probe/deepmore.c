/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-probe --deep, NVML and NVDEC:
 *
 *   nvml STEP CODE NAME [DETAIL]       init, count (DETAIL: n), uuid (DETAIL: index uuid)
 *   nvdec DEVICE CODEC CODE NAME SUPPORTED  cuvidGetDecoderCaps, 8-bit 4:2:0
 *   nvdec - library 1 - 0               libnvcuvid.so.1 missing
 *
 * Prototypes, enums and the decoder-caps layout from nvml.h and cuviddec.h's documented
 * ABI, declared here: no link-time dependency.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "probe.h"

static const char *const nvml_names[] = {
	"NVML_SUCCESS",
	"NVML_ERROR_UNINITIALIZED",
	"NVML_ERROR_INVALID_ARGUMENT",
	"NVML_ERROR_NOT_SUPPORTED",
	"NVML_ERROR_NO_PERMISSION",
	"NVML_ERROR_ALREADY_INITIALIZED",
	"NVML_ERROR_NOT_FOUND",
	"NVML_ERROR_INSUFFICIENT_SIZE",
	"NVML_ERROR_INSUFFICIENT_POWER",
	"NVML_ERROR_DRIVER_NOT_LOADED",
	"NVML_ERROR_TIMEOUT",
	"NVML_ERROR_IRQ_ISSUE",
	"NVML_ERROR_LIBRARY_NOT_FOUND",
	"NVML_ERROR_FUNCTION_NOT_FOUND",
	"NVML_ERROR_CORRUPTED_INFOROM",
	"NVML_ERROR_GPU_IS_LOST",
	"NVML_ERROR_RESET_REQUIRED",
	"NVML_ERROR_OPERATING_SYSTEM",
	"NVML_ERROR_LIB_RM_VERSION_MISMATCH",
	"NVML_ERROR_IN_USE",
	"NVML_ERROR_MEMORY",
	"NVML_ERROR_NO_DATA",
};

static const char *nvml_name(int r)
{
	if (r >= 0 && (size_t)r < sizeof(nvml_names) / sizeof(nvml_names[0]))
		return nvml_names[r];
	return r == 999 ? "NVML_ERROR_UNKNOWN" : "-";
}

void probe_nvml(void)
{
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	int (*init)(void), (*count)(unsigned int *), (*handle)(unsigned int, void **),
	    (*uuid)(void *, char *, unsigned int), (*shutdown)(void);
	unsigned int n = 0;
	int r;

	if (!lib) {
		printf("nvml library 1 - 0\n");
		return;
	}
	*(void **)&init = dlsym(lib, "nvmlInit_v2");
	*(void **)&count = dlsym(lib, "nvmlDeviceGetCount_v2");
	*(void **)&handle = dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&uuid = dlsym(lib, "nvmlDeviceGetUUID");
	*(void **)&shutdown = dlsym(lib, "nvmlShutdown");
	if (!init || !count || !handle || !uuid || !shutdown) {
		printf("nvml symbols 1 - 0\n");
		return;
	}
	r = init();
	printf("nvml init %d %s\n", r, nvml_name(r));
	if (r != 0)
		return;
	r = count(&n);
	printf("nvml count %d %s %u\n", r, nvml_name(r), r == 0 ? n : 0);
	for (unsigned int i = 0; r == 0 && i < n && i < 64; i++) {
		char id[96] = "";
		void *h = NULL;
		int u = handle(i, &h);

		if (u == 0)
			u = uuid(h, id, sizeof(id));
		printf("nvml uuid %d %s %u %s\n", u, nvml_name(u), i, probe_word(id));
	}
	shutdown();
}

/* cuviddec.h: CUVIDDECODECAPS, 64 bytes as laid out since SDK 8. */
struct decode_caps {
	int codec;  /* cudaVideoCodec: H264 4, HEVC 8, AV1 11 */
	int chroma; /* cudaVideoChromaFormat: 420 is 1 */
	unsigned int bit_depth_minus8;
	unsigned int reserved1[3];
	unsigned char supported;
	unsigned char num_nvdecs;
	unsigned short output_format_mask;
	unsigned int max_width, max_height, max_mb_count;
	unsigned short min_width, min_height;
	unsigned int reserved3[11];
};

void probe_nvdec(void *cuda, int count)
{
	static const struct {
		int id;
		const char *name;
	} codecs[] = { { 4, "h264" }, { 8, "hevc" }, { 11, "av1" } };
	void *lib = dlopen("libnvcuvid.so.1", RTLD_NOW | RTLD_LOCAL);
	int (*caps)(struct decode_caps *), (*get)(int *, int), (*retain)(void **, int),
	    (*set)(void *), (*release)(int), (*name)(int, const char **);

	if (!lib) {
		printf("nvdec - library 1 - 0\n");
		return;
	}
	*(void **)&caps = dlsym(lib, "cuvidGetDecoderCaps");
	*(void **)&get = dlsym(cuda, "cuDeviceGet");
	*(void **)&retain = dlsym(cuda, "cuDevicePrimaryCtxRetain");
	*(void **)&set = dlsym(cuda, "cuCtxSetCurrent");
	*(void **)&release = dlsym(cuda, "cuDevicePrimaryCtxRelease_v2");
	*(void **)&name = dlsym(cuda, "cuGetErrorName");
	if (!caps || !get || !retain || !set || !release) {
		printf("nvdec - symbols 1 - 0\n");
		return;
	}
	for (int i = 0; i < count && i < 64; i++) {
		void *ctx = NULL;
		int dev;

		if (get(&dev, i) != 0 || retain(&ctx, dev) != 0)
			continue;
		set(ctx);
		for (size_t k = 0; k < sizeof(codecs) / sizeof(codecs[0]); k++) {
			struct decode_caps c = { .codec = codecs[k].id, .chroma = 1 };
			const char *err = NULL;
			int r = caps(&c);

			if (!name || name(r, &err) != 0)
				err = NULL;
			printf("nvdec %d %s %d %s %d %u\n", i, codecs[k].name, r, probe_word(err),
			       r == 0 && c.supported, r == 0 ? c.num_nvdecs : 0);
		}
		set(NULL);
		release(dev);
	}
}
