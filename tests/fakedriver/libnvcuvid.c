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

#include <ffnvcodec/dynlink_cuda.h>
#include <ffnvcodec/dynlink_cuviddec.h>

#define NVDECS 2
/* CUDA_ERROR_INVALID_VALUE, a CUresult dynlink_cuda.h leaves out. */
#define INVALID_VALUE ((CUresult)1)

_Static_assert(sizeof(CUVIDDECODECAPS) == 88, "CUVIDDECODECAPS is 88 bytes");

static struct codec {
	const char *name;
	cudaVideoCodec id;
	int code;
	bool supported;
} codecs[] = {
	{ "h264", cudaVideoCodec_H264, 0, true },
	{ "hevc", cudaVideoCodec_HEVC, 0, true },
	{ "av1", cudaVideoCodec_AV1, 0, true },
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

tcuvidGetDecoderCaps cuvidGetDecoderCaps;
CUresult cuvidGetDecoderCaps(CUVIDDECODECAPS *caps)
{
	if (!loaded) {
		loaded = true;
		fake_cuda_read(take);
	}
	if (!caps)
		return INVALID_VALUE;
	caps->bIsSupported = 0;
	caps->nNumNVDECs = NVDECS;
	for (size_t i = 0; i < NCODECS; i++) {
		if (caps->eCodecType != codecs[i].id)
			continue;
		if (codecs[i].code != 0)
			return (CUresult)codecs[i].code;
		if (!codecs[i].supported || caps->eChromaFormat != cudaVideoChromaFormat_420 ||
		    caps->nBitDepthMinus8 > 2)
			return CUDA_SUCCESS;
		caps->bIsSupported = 1;
		caps->nOutputFormatMask = 1 << cudaVideoSurfaceFormat_NV12;
		caps->nMaxWidth = 8192;
		caps->nMaxHeight = 8192;
		caps->nMaxMBCount = 8192 / 16 * 8192 / 16;
		caps->nMinWidth = 48;
		caps->nMinHeight = 16;
	}
	return CUDA_SUCCESS;
}
