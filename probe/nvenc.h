/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Header only: the NVENC ABI of probe/nvenc.c and of its test double
 * (tests/fakedriver/libnvidia-encode.c). The types are nvEncodeAPI.h's as Debian ships it
 * (libffmpeg-nvenc-dev, SDK 11.1); what SDK 12 and 13 added is declared here and held to it
 * at compile time.
 */
#ifndef GP_PROBE_NVENC_H
#define GP_PROBE_NVENC_H

#include <stddef.h>
#include <stdint.h>

#include <ffnvcodec/nvEncodeAPI.h>

/*
 * SDK 13.0's NV_ENCODE_API_FUNCTION_LIST: 11.1's entry points in their places, with more
 * room after them (320 slots, 11.1 has 318). The driver fills it to the version asked.
 */
#define NVENC_SLOTS 320
struct nvenc_function_list {
	uint32_t version, reserved;
	void *f[NVENC_SLOTS];
};

#define NVENC_SLOT(entry)                                                                          \
	((offsetof(NV_ENCODE_API_FUNCTION_LIST, entry) -                                           \
	  offsetof(NV_ENCODE_API_FUNCTION_LIST, nvEncOpenEncodeSession)) /                         \
	 sizeof(void *))

/* The entry points the probe calls, at nvEncodeAPI.h's places. */
enum {
	NVENC_F_GUID_COUNT = NVENC_SLOT(nvEncGetEncodeGUIDCount),
	NVENC_F_GUIDS = NVENC_SLOT(nvEncGetEncodeGUIDs),
	NVENC_F_DESTROY = NVENC_SLOT(nvEncDestroyEncoder),
	NVENC_F_OPEN_EX = NVENC_SLOT(nvEncOpenEncodeSessionEx),
};

_Static_assert(offsetof(struct nvenc_function_list, f) ==
		   offsetof(NV_ENCODE_API_FUNCTION_LIST, nvEncOpenEncodeSession),
	       "the entry points start where nvEncodeAPI.h's do");
_Static_assert(sizeof(struct nvenc_function_list) >= sizeof(NV_ENCODE_API_FUNCTION_LIST),
	       "13.0's list holds 11.1's");
_Static_assert(NVENC_F_OPEN_EX == 29 && NVENC_F_DESTROY == 27 && NVENC_F_GUIDS == 4 &&
		   NVENC_F_GUID_COUNT == 1,
	       "the entry points of every SDK since 9");

/* A struct's version word at run time: api = major | minor << 24, n the struct's version. */
#define NVENC_STRUCT_VERSION(api, n) ((uint32_t)(api) | (uint32_t)(n) << 16 | 0x7u << 28)
#define NVENC_LIST_VERSION 2u /* NV_ENCODE_API_FUNCTION_LIST_VER's */
#define NVENC_OPEN_VERSION 1u /* NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS_VER's */
_Static_assert(NVENC_STRUCT_VERSION(NVENCAPI_VERSION, NVENC_LIST_VERSION) ==
		   NV_ENCODE_API_FUNCTION_LIST_VER,
	       "the function list's version word");
_Static_assert(NVENC_STRUCT_VERSION(NVENCAPI_VERSION, NVENC_OPEN_VERSION) ==
		   NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS_VER,
	       "the open parameters' version word");

/* SDK 12's AV1 codec and last status, which 11.1's header lacks. */
static const GUID NVENC_CODEC_AV1_GUID = {
	0x0a352289, 0x0aa7, 0x4759, { 0x86, 0x2d, 0x5d, 0x15, 0xcd, 0x16, 0xd2, 0x54 }
};
#define NVENC_ERR_NEED_MORE_OUTPUT (NV_ENC_ERR_RESOURCE_NOT_MAPPED + 1)

#endif
