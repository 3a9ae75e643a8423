/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-probe --deep, NVDEC: cuvidGetDecoderCaps for H.264, HEVC and AV1 (8-bit 4:2:0) on
 * each device, in its primary context, through libnvcuvid.so.1. The step is the codec;
 * DETAIL the decoders the GPU has for it, or "unsupported" when it has none:
 *
 *   deep nvdec 0 av1 0 CUDA_SUCCESS 0.2 unsupported
 *
 * The decoder caps and the codec numbers are dynlink_cuviddec.h's (libffmpeg-nvenc-dev); the
 * library is opened with dlopen.
 */
#include <dlfcn.h>
#include <stdio.h>

#include <ffnvcodec/dynlink_cuda.h>
#include <ffnvcodec/dynlink_cuviddec.h>

#include "probe.h"

static void device_decode(const struct probe_cuda_ctx *c, tcuvidGetDecoderCaps *caps, int index)
{
	static const struct {
		cudaVideoCodec id;
		const char *name;
	} codecs[] = { { cudaVideoCodec_H264, "h264" },
		       { cudaVideoCodec_HEVC, "hevc" },
		       { cudaVideoCodec_AV1, "av1" } };
	double t0 = probe_now_ms();
	CUcontext ctx = NULL;
	int dev, r;

	probe_stage("nvdec", index);
	r = c->get(&dev, index);
	if (r == 0)
		r = c->retain(&ctx, dev);
	if (r != 0) {
		probe_step("nvdec", index, "context", r, probe_cuda_error(c, r), t0, NULL);
		return;
	}
	c->set_current(ctx);
	for (size_t k = 0; k < sizeof(codecs) / sizeof(codecs[0]); k++) {
		CUVIDDECODECAPS d = { .eCodecType = codecs[k].id,
				      .eChromaFormat = cudaVideoChromaFormat_420 };
		char detail[16] = "unsupported";

		t0 = probe_now_ms();
		r = caps(&d);
		if (r == 0 && d.bIsSupported)
			snprintf(detail, sizeof(detail), "%u", d.nNumNVDECs);
		probe_step("nvdec", index, codecs[k].name, r, probe_cuda_error(c, r), t0,
			   r == 0 ? detail : NULL);
	}
	c->set_current(NULL);
	c->release(dev);
}

void probe_nvdec(void *cuda, int count)
{
	static const char *const names[] = { "cuvidGetDecoderCaps" };
	void *lib = probe_library("nvdec", "libnvcuvid.so.1"), *f;
	tcuvidGetDecoderCaps *caps;
	struct probe_cuda_ctx c;

	if (!lib || !probe_symbols("nvdec", lib, names, &f, 1) ||
	    !probe_cuda_ctx_load(cuda, "nvdec", &c))
		return;
	*(void **)&caps = f;
	for (int i = 0; i < count && i < 64; i++)
		device_decode(&c, caps, i);
}
