/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-probe --deep, NVDEC: cuvidGetDecoderCaps for H.264, HEVC and AV1 (8-bit 4:2:0) on
 * each device, in its primary context, through libnvcuvid.so.1. The step is the codec;
 * DETAIL the decoders the GPU has for it, or "unsupported" when it has none:
 *
 *   deep nvdec 0 av1 0 CUDA_SUCCESS 0.2 unsupported
 *
 * The decoder-caps layout is cuviddec.h's documented ABI, declared here.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "probe.h"

/* cuviddec.h: CUVIDDECODECAPS as laid out since SDK 8, 88 bytes with its reserved tail. */
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

static void device_decode(const struct probe_cuda_ctx *c, int (*caps)(struct decode_caps *),
			  int index)
{
	static const struct {
		int id;
		const char *name;
	} codecs[] = { { 4, "h264" }, { 8, "hevc" }, { 11, "av1" } };
	double t0 = probe_now_ms();
	void *ctx = NULL;
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
		struct decode_caps d = { .codec = codecs[k].id, .chroma = 1 };
		char detail[16] = "unsupported";

		t0 = probe_now_ms();
		r = caps(&d);
		if (r == 0 && d.supported)
			snprintf(detail, sizeof(detail), "%u", d.num_nvdecs);
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
	int (*caps)(struct decode_caps *);
	struct probe_cuda_ctx c;

	if (!lib || !probe_symbols("nvdec", lib, names, &f, 1) ||
	    !probe_cuda_ctx_load(cuda, "nvdec", &c))
		return;
	*(void **)&caps = f;
	for (int i = 0; i < count && i < 64; i++)
		device_decode(&c, caps, i);
}
