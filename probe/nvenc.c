/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-probe --deep, NVENC: an encode session opened on each device's CUDA context and the
 * codecs it lists. The steps: instance (DETAIL: the API version asked for), then on each
 * device open (codes 1 and 2, no or an unsupported encode device: not on this GPU) and
 * codecs (DETAIL: h264,hevc,av1 as listed; "other" for a GUID not known here):
 *
 *   deep nvenc 0 open 2 NV_ENC_ERR_UNSUPPORTED_DEVICE 3.4 -
 *
 * The API version is the lower of the driver's largest (NvEncodeAPIGetMaxSupportedVersion)
 * and 13.0, whose function list probe/nvenc.h holds to nvEncodeAPI.h's.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvenc.h"
#include "probe.h"

/* NVENCSTATUS's names, at nvEncodeAPI.h's values. */
static const char *const status_names[] = {
	[NV_ENC_SUCCESS] = "NV_ENC_SUCCESS",
	[NV_ENC_ERR_NO_ENCODE_DEVICE] = "NV_ENC_ERR_NO_ENCODE_DEVICE",
	[NV_ENC_ERR_UNSUPPORTED_DEVICE] = "NV_ENC_ERR_UNSUPPORTED_DEVICE",
	[NV_ENC_ERR_INVALID_ENCODERDEVICE] = "NV_ENC_ERR_INVALID_ENCODERDEVICE",
	[NV_ENC_ERR_INVALID_DEVICE] = "NV_ENC_ERR_INVALID_DEVICE",
	[NV_ENC_ERR_DEVICE_NOT_EXIST] = "NV_ENC_ERR_DEVICE_NOT_EXIST",
	[NV_ENC_ERR_INVALID_PTR] = "NV_ENC_ERR_INVALID_PTR",
	[NV_ENC_ERR_INVALID_EVENT] = "NV_ENC_ERR_INVALID_EVENT",
	[NV_ENC_ERR_INVALID_PARAM] = "NV_ENC_ERR_INVALID_PARAM",
	[NV_ENC_ERR_INVALID_CALL] = "NV_ENC_ERR_INVALID_CALL",
	[NV_ENC_ERR_OUT_OF_MEMORY] = "NV_ENC_ERR_OUT_OF_MEMORY",
	[NV_ENC_ERR_ENCODER_NOT_INITIALIZED] = "NV_ENC_ERR_ENCODER_NOT_INITIALIZED",
	[NV_ENC_ERR_UNSUPPORTED_PARAM] = "NV_ENC_ERR_UNSUPPORTED_PARAM",
	[NV_ENC_ERR_LOCK_BUSY] = "NV_ENC_ERR_LOCK_BUSY",
	[NV_ENC_ERR_NOT_ENOUGH_BUFFER] = "NV_ENC_ERR_NOT_ENOUGH_BUFFER",
	[NV_ENC_ERR_INVALID_VERSION] = "NV_ENC_ERR_INVALID_VERSION",
	[NV_ENC_ERR_MAP_FAILED] = "NV_ENC_ERR_MAP_FAILED",
	[NV_ENC_ERR_NEED_MORE_INPUT] = "NV_ENC_ERR_NEED_MORE_INPUT",
	[NV_ENC_ERR_ENCODER_BUSY] = "NV_ENC_ERR_ENCODER_BUSY",
	[NV_ENC_ERR_EVENT_NOT_REGISTERD] = "NV_ENC_ERR_EVENT_NOT_REGISTERD",
	[NV_ENC_ERR_GENERIC] = "NV_ENC_ERR_GENERIC",
	[NV_ENC_ERR_INCOMPATIBLE_CLIENT_KEY] = "NV_ENC_ERR_INCOMPATIBLE_CLIENT_KEY",
	[NV_ENC_ERR_UNIMPLEMENTED] = "NV_ENC_ERR_UNIMPLEMENTED",
	[NV_ENC_ERR_RESOURCE_REGISTER_FAILED] = "NV_ENC_ERR_RESOURCE_REGISTER_FAILED",
	[NV_ENC_ERR_RESOURCE_NOT_REGISTERED] = "NV_ENC_ERR_RESOURCE_NOT_REGISTERED",
	[NV_ENC_ERR_RESOURCE_NOT_MAPPED] = "NV_ENC_ERR_RESOURCE_NOT_MAPPED",
	[NVENC_ERR_NEED_MORE_OUTPUT] = "NV_ENC_ERR_NEED_MORE_OUTPUT",
};

static const char *status_name(int r)
{
	return r >= 0 && (size_t)r < sizeof(status_names) / sizeof(status_names[0])
		   ? status_names[r]
		   : "-";
}

static const struct {
	const GUID *g;
	const char *name;
} codecs[] = {
	{ &NV_ENC_CODEC_H264_GUID, "h264" },
	{ &NV_ENC_CODEC_HEVC_GUID, "hevc" },
	{ &NVENC_CODEC_AV1_GUID, "av1" },
};

static uint32_t api_version(void *lib)
{
	NVENCSTATUS (*max)(uint32_t *) = NULL;
	uint32_t v = 0, major, minor;

	*(void **)&max = dlsym(lib, "NvEncodeAPIGetMaxSupportedVersion");
	if (!max || max(&v) != NV_ENC_SUCCESS)
		return 0;
	major = v >> 4;
	minor = v & 0xf;
	if (major > 13) {
		major = 13;
		minor = 0;
	}
	return major | minor << 24;
}

static void list_codecs(const struct nvenc_function_list *fl, int index, void *encoder)
{
	PNVENCGETENCODEGUIDCOUNT count = NULL;
	PNVENCGETENCODEGUIDS guids = NULL;
	double t0 = probe_now_ms();
	char list[64] = "";
	GUID g[16];
	uint32_t n = 0, got = 0;
	NVENCSTATUS r;

	*(void **)&count = fl->f[NVENC_F_GUID_COUNT];
	*(void **)&guids = fl->f[NVENC_F_GUIDS];
	r = count(encoder, &n);
	if (r == 0)
		r = guids(encoder, g, 16, &got);
	for (uint32_t i = 0; r == 0 && i < got && i < 16; i++) {
		const char *name = "other";

		for (size_t k = 0; k < sizeof(codecs) / sizeof(codecs[0]); k++)
			if (memcmp(&g[i], codecs[k].g, sizeof(g[i])) == 0)
				name = codecs[k].name;
		if (strlen(list) + strlen(name) + 2 < sizeof(list))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 list[0] ? "," : "", name);
	}
	probe_step("nvenc", index, "codecs", r, status_name(r), t0, list);
}

static void device_encode(const struct probe_cuda_ctx *c, const struct nvenc_function_list *fl,
			  uint32_t api, int index)
{
	PNVENCOPENENCODESESSIONEX open = NULL;
	PNVENCDESTROYENCODER destroy = NULL;
	NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS *p = calloc(1, sizeof(*p));
	CUcontext ctx = NULL;
	void *encoder = NULL;
	double t0 = probe_now_ms();
	int dev, r;

	probe_stage("nvenc", index);
	*(void **)&open = fl->f[NVENC_F_OPEN_EX];
	*(void **)&destroy = fl->f[NVENC_F_DESTROY];
	r = p ? c->get(&dev, index) : 2;
	if (r == 0)
		r = c->retain(&ctx, dev);
	if (r != 0) {
		probe_step("nvenc", index, "context", r, probe_cuda_error(c, r), t0, NULL);
		free(p);
		return;
	}
	p->version = NVENC_STRUCT_VERSION(api, NVENC_OPEN_VERSION);
	p->deviceType = NV_ENC_DEVICE_TYPE_CUDA;
	p->device = ctx;
	p->apiVersion = api;
	t0 = probe_now_ms();
	r = open(p, &encoder);
	probe_step("nvenc", index, "open", r, status_name(r), t0, NULL);
	if (r == 0) {
		list_codecs(fl, index, encoder);
		destroy(encoder);
	}
	c->release(dev);
	free(p);
}

/* The function list's entries the probe calls, all given by the library, or false. */
static bool entries_given(const struct nvenc_function_list *fl)
{
	return fl->f[NVENC_F_GUID_COUNT] && fl->f[NVENC_F_GUIDS] && fl->f[NVENC_F_DESTROY] &&
	       fl->f[NVENC_F_OPEN_EX];
}

void probe_nvenc(void *cuda, int count)
{
	static const char *const names[] = { "NvEncodeAPICreateInstance" };
	void *lib = probe_library("nvenc", "libnvidia-encode.so.1"), *f;
	NVENCSTATUS (*create)(struct nvenc_function_list *);
	struct nvenc_function_list *fl = NULL;
	struct probe_cuda_ctx c;
	char detail[16];
	uint32_t api;
	double t0;
	int r;

	if (!lib || !probe_symbols("nvenc", lib, names, &f, 1) ||
	    !probe_cuda_ctx_load(cuda, "nvenc", &c))
		return;
	*(void **)&create = f;
	t0 = probe_now_ms();
	api = api_version(lib);
	fl = calloc(1, sizeof(*fl));
	if (!api || !fl) {
		probe_step("nvenc", -1, "instance", 1, NULL, t0, "no-version");
		free(fl);
		return;
	}
	fl->version = NVENC_STRUCT_VERSION(api, NVENC_LIST_VERSION);
	r = create(fl);
	if (r == NV_ENC_SUCCESS && !entries_given(fl))
		r = NV_ENC_ERR_UNIMPLEMENTED;
	snprintf(detail, sizeof(detail), "%u.%u", api & 0xff, api >> 24);
	probe_step("nvenc", -1, "instance", r, status_name(r), t0, detail);
	for (int i = 0; r == 0 && i < count && i < 64; i++)
		device_encode(&c, fl, api, i);
	free(fl);
}
