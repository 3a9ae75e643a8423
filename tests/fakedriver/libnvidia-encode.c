/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A test double of the driver's libnvidia-encode.so.1 (NVENC), never a real driver: it
 * encodes nothing. It gives gpu-probe --deep the API's largest version (13.0), a function
 * list, and encode sessions on a CUDA context that list the H.264, HEVC and AV1 codecs.
 * Its words in the container's /etc/fake-cuda (fake-cuda.h):
 *
 *   nvenc open CODE                nvEncOpenEncodeSessionEx returns CODE (2
 *                                  NV_ENC_ERR_UNSUPPORTED_DEVICE, as on a GPU without
 *                                  NVENC like the H200; 10 NV_ENC_ERR_OUT_OF_MEMORY)
 *   nvenc instance CODE            NvEncodeAPICreateInstance returns CODE
 *   nvenc max-version MAJOR.MINOR  the largest API version it says it has
 *
 * As the driver, it refuses with NV_ENC_ERR_INVALID_VERSION a struct whose version word
 * (api | N << 16 | 7 << 28, api = major | minor << 24) is not its struct's N or asks for
 * an API above the largest. Of the function list it fills the entries the probe calls.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../fakecuda/fake-cuda.h"

enum {
	NV_ENC_ERR_INVALID_ENCODERDEVICE = 3,
	NV_ENC_ERR_INVALID_DEVICE = 4,
	NV_ENC_ERR_INVALID_PTR = 6,
	NV_ENC_ERR_OUT_OF_MEMORY = 10,
	NV_ENC_ERR_INVALID_VERSION = 15,
};

struct guid {
	uint32_t a;
	uint16_t b, c;
	uint8_t d[8];
};

/* NV_ENC_CODEC_H264_GUID, NV_ENC_CODEC_HEVC_GUID, NV_ENC_CODEC_AV1_GUID */
static const struct guid codecs[] = {
	{ 0x6bc82762, 0x4e63, 0x4ca4, { 0xaa, 0x85, 0x1e, 0x50, 0xf3, 0x21, 0xf6, 0xbf } },
	{ 0x790cdc88, 0x4522, 0x4d7b, { 0x94, 0x25, 0xbd, 0xa9, 0x97, 0x5f, 0x76, 0x03 } },
	{ 0x0a352289, 0x0aa7, 0x4759, { 0x86, 0x2d, 0x5d, 0x15, 0xcd, 0x16, 0xd2, 0x54 } },
};

#define NCODECS (sizeof(codecs) / sizeof(codecs[0]))

/* NV_ENCODE_API_FUNCTION_LIST: version, reserved, then the entry points in this order. */
enum { F_GUID_COUNT = 1, F_GUIDS = 4, F_DESTROY = 27, F_OPEN_EX = 29, F_SLOTS = 320 };
struct function_list {
	uint32_t version, reserved;
	void *f[F_SLOTS];
};

/* NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS */
struct open_params {
	uint32_t version;
	uint32_t device_type; /* NV_ENC_DEVICE_TYPE_CUDA: 1 */
	void *device;
	void *reserved;
	uint32_t api_version;
};

#define LIST_VERSION 2u
#define OPEN_VERSION 1u
#define MAX_SESSIONS 16

static bool loaded;
static int open_code, instance_code;
static unsigned int max_major = 13, max_minor;
static bool sessions[MAX_SESSIONS]; /* an encoder is the address of its slot */

static void take(const char *word, const char *args)
{
	unsigned int major, minor;
	int code;

	if (strcmp(word, "nvenc") != 0)
		return;
	if (sscanf(args, " open %d", &code) == 1)
		open_code = code;
	else if (sscanf(args, " instance %d", &code) == 1)
		instance_code = code;
	else if (sscanf(args, " max-version %u.%u", &major, &minor) == 2) {
		max_major = major;
		max_minor = minor;
	}
}

static void load(void)
{
	if (loaded)
		return;
	loaded = true;
	fake_cuda_read(take);
}

/* The API version a struct version word carries (NVENCAPI_VERSION). */
static uint32_t api_of(uint32_t version)
{
	return version & 0x0f00ffffu;
}

/* A version word of struct version n at an API no newer than the largest. */
static bool version_ok(uint32_t version, uint32_t n)
{
	uint32_t major = version & 0xffffu, minor = version >> 24 & 0xfu;

	return version >> 28 == 7 && (version >> 16 & 0xffu) == n && major > 0 &&
	       (major << 4 | minor) <= (max_major << 4 | max_minor);
}

/* The session an encoder handle stands for, or NULL for one not open. */
static bool *session_of(void *encoder)
{
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (encoder == &sessions[i] && sessions[i])
			return &sessions[i];
	return NULL;
}

static int guid_count(void *encoder, uint32_t *n)
{
	if (!n)
		return NV_ENC_ERR_INVALID_PTR;
	if (!session_of(encoder))
		return NV_ENC_ERR_INVALID_ENCODERDEVICE;
	*n = NCODECS;
	return 0;
}

static int guids(void *encoder, struct guid *out, uint32_t size, uint32_t *got)
{
	uint32_t n = size < NCODECS ? size : NCODECS;

	if (!out || !got)
		return NV_ENC_ERR_INVALID_PTR;
	if (!session_of(encoder))
		return NV_ENC_ERR_INVALID_ENCODERDEVICE;
	memcpy(out, codecs, n * sizeof(*out));
	*got = n;
	return 0;
}

static int destroy(void *encoder)
{
	bool *s = session_of(encoder);

	if (!s)
		return NV_ENC_ERR_INVALID_ENCODERDEVICE;
	*s = false;
	return 0;
}

static int open_ex(struct open_params *p, void **encoder)
{
	if (!p || !encoder)
		return NV_ENC_ERR_INVALID_PTR;
	if (!version_ok(p->version, OPEN_VERSION) || p->api_version != api_of(p->version))
		return NV_ENC_ERR_INVALID_VERSION;
	if (open_code != 0)
		return open_code;
	if (p->device_type != 1 || !p->device)
		return NV_ENC_ERR_INVALID_DEVICE;
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (!sessions[i]) {
			sessions[i] = true;
			*encoder = &sessions[i];
			return 0;
		}
	return NV_ENC_ERR_OUT_OF_MEMORY;
}

int NvEncodeAPIGetMaxSupportedVersion(uint32_t *version);
int NvEncodeAPIGetMaxSupportedVersion(uint32_t *version)
{
	load();
	if (!version)
		return NV_ENC_ERR_INVALID_PTR;
	*version = max_major << 4 | max_minor;
	return 0;
}

int NvEncodeAPICreateInstance(struct function_list *list);
int NvEncodeAPICreateInstance(struct function_list *list)
{
	load();
	if (!list)
		return NV_ENC_ERR_INVALID_PTR;
	if (!version_ok(list->version, LIST_VERSION))
		return NV_ENC_ERR_INVALID_VERSION;
	if (instance_code != 0)
		return instance_code;
	list->f[F_GUID_COUNT] = (void *)guid_count;
	list->f[F_GUIDS] = (void *)guids;
	list->f[F_DESTROY] = (void *)destroy;
	list->f[F_OPEN_EX] = (void *)open_ex;
	return 0;
}
