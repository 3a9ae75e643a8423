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
 * Its types and prototypes are nvEncodeAPI.h's, through probe/nvenc.h, as the probe's are.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../probe/nvenc.h"
#include "../fakecuda/fake-cuda.h"

static const GUID *const codecs[] = { &NV_ENC_CODEC_H264_GUID, &NV_ENC_CODEC_HEVC_GUID,
				      &NVENC_CODEC_AV1_GUID };

#define NCODECS (sizeof(codecs) / sizeof(codecs[0]))
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

static NVENCSTATUS NVENCAPI guid_count(void *encoder, uint32_t *n)
{
	if (!n)
		return NV_ENC_ERR_INVALID_PTR;
	if (!session_of(encoder))
		return NV_ENC_ERR_INVALID_ENCODERDEVICE;
	*n = NCODECS;
	return NV_ENC_SUCCESS;
}

static NVENCSTATUS NVENCAPI guids(void *encoder, GUID *out, uint32_t size, uint32_t *got)
{
	uint32_t n = size < NCODECS ? size : NCODECS;

	if (!out || !got)
		return NV_ENC_ERR_INVALID_PTR;
	if (!session_of(encoder))
		return NV_ENC_ERR_INVALID_ENCODERDEVICE;
	for (uint32_t i = 0; i < n; i++)
		out[i] = *codecs[i];
	*got = n;
	return NV_ENC_SUCCESS;
}

static NVENCSTATUS NVENCAPI destroy(void *encoder)
{
	bool *s = session_of(encoder);

	if (!s)
		return NV_ENC_ERR_INVALID_ENCODERDEVICE;
	*s = false;
	return NV_ENC_SUCCESS;
}

static NVENCSTATUS NVENCAPI open_ex(NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS *p, void **encoder)
{
	if (!p || !encoder)
		return NV_ENC_ERR_INVALID_PTR;
	if (!version_ok(p->version, NVENC_OPEN_VERSION) || p->apiVersion != api_of(p->version))
		return NV_ENC_ERR_INVALID_VERSION;
	if (open_code != 0)
		return (NVENCSTATUS)open_code;
	if (p->deviceType != NV_ENC_DEVICE_TYPE_CUDA || !p->device)
		return NV_ENC_ERR_INVALID_DEVICE;
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (!sessions[i]) {
			sessions[i] = true;
			*encoder = &sessions[i];
			return NV_ENC_SUCCESS;
		}
	return NV_ENC_ERR_OUT_OF_MEMORY;
}

NVENCSTATUS NVENCAPI NvEncodeAPIGetMaxSupportedVersion(uint32_t *version)
{
	load();
	if (!version)
		return NV_ENC_ERR_INVALID_PTR;
	*version = max_major << 4 | max_minor;
	return NV_ENC_SUCCESS;
}

/* The caller's list is 13.0's (probe/nvenc.h): 11.1's entries are at the same places. */
NVENCSTATUS NVENCAPI NvEncodeAPICreateInstance(NV_ENCODE_API_FUNCTION_LIST *list)
{
	load();
	if (!list)
		return NV_ENC_ERR_INVALID_PTR;
	if (!version_ok(list->version, NVENC_LIST_VERSION))
		return NV_ENC_ERR_INVALID_VERSION;
	if (instance_code != 0)
		return (NVENCSTATUS)instance_code;
	list->nvEncGetEncodeGUIDCount = guid_count;
	list->nvEncGetEncodeGUIDs = guids;
	list->nvEncDestroyEncoder = destroy;
	list->nvEncOpenEncodeSessionEx = open_ex;
	return NV_ENC_SUCCESS;
}
