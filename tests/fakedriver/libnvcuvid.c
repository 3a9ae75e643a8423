/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A test double of the driver's libnvcuvid.so.1 (NVDEC), never a real driver: it decodes
 * nothing and only answers cuvidGetDecoderCaps, for gpu-probe --deep. By default H.264,
 * HEVC and AV1 are supported, with 2 NVDECs. Its words in the container's /etc/fake-cuda
 * (fake-cuda.h):
 *
 *   nvdec CODEC CODE SUPPORTED  for CODEC (h264, hevc or av1) the call returns CODE (a
 *                               CUresult) and, when CODE is 0, says the codec is supported
 *                               or not (SUPPORTED 1 or 0): "nvdec av1 0 0", "nvdec hevc 100 0"
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../fakecuda/fake-cuda.h"

#define CUDA_ERROR_INVALID_VALUE 1
#define NVDECS 2

/* cuviddec.h's CUVIDDECODECAPS (88 bytes): what the caller asks, then what it is told. */
struct decode_caps {
	int codec;  /* cudaVideoCodec */
	int chroma; /* cudaVideoChromaFormat: 4:2:0 is 1 */
	unsigned int bit_depth_minus8;
	unsigned int reserved1[3];
	unsigned char supported;
	unsigned char num_nvdecs;
	unsigned short output_format_mask;
	unsigned int max_width, max_height, max_mb_count;
	unsigned short min_width, min_height;
	unsigned char histogram_supported;
	unsigned char counter_bit_depth;
	unsigned short max_histogram_bins;
	unsigned int reserved3[10];
};
_Static_assert(sizeof(struct decode_caps) == 88, "CUVIDDECODECAPS is 88 bytes");

static struct codec {
	const char *name;
	int id; /* cudaVideoCodec */
	int code;
	bool supported;
} codecs[] = {
	{ "h264", 4, 0, true },
	{ "hevc", 8, 0, true },
	{ "av1", 11, 0, true },
};

#define NCODECS (sizeof(codecs) / sizeof(codecs[0]))

static bool loaded;

static void take(const char *word, const char *args)
{
	char name[16];
	int code, supported;

	if (strcmp(word, "nvdec") != 0 || sscanf(args, "%15s %d %d", name, &code, &supported) != 3)
		return;
	for (size_t i = 0; i < NCODECS; i++)
		if (strcmp(name, codecs[i].name) == 0) {
			codecs[i].code = code;
			codecs[i].supported = supported != 0;
		}
}

int cuvidGetDecoderCaps(struct decode_caps *caps);
int cuvidGetDecoderCaps(struct decode_caps *caps)
{
	if (!loaded) {
		loaded = true;
		fake_cuda_read(take);
	}
	if (!caps)
		return CUDA_ERROR_INVALID_VALUE;
	caps->supported = 0;
	caps->num_nvdecs = NVDECS;
	for (size_t i = 0; i < NCODECS; i++) {
		if (caps->codec != codecs[i].id)
			continue;
		if (codecs[i].code != 0)
			return codecs[i].code;
		if (!codecs[i].supported || caps->chroma != 1 || caps->bit_depth_minus8 > 2)
			return 0;
		caps->supported = 1;
		caps->output_format_mask = 1; /* NV12 */
		caps->max_width = 8192;
		caps->max_height = 8192;
		caps->max_mb_count = 8192 / 16 * 8192 / 16;
		caps->min_width = 48;
		caps->min_height = 16;
	}
	return 0;
}
