/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A test double of the driver's libnvidia-ml.so.1 (NVML), never a real driver: it touches
 * no GPU. The injection tests load it as a host's driver file (and, built again, as
 * libGLX_nvidia.so.0); gpu-probe --deep asks it for the devices and their UUIDs. The
 * devices are the "device PCI UUID" lines of the container's /etc/fake-cuda (fake-cuda.h),
 * or one, GPU-00000000-0000-0000-0000-000000000000, when there are none. Its words there:
 *
 *   nvml init CODE    nvmlInit_v2 returns CODE (18 NVML_ERROR_LIB_RM_VERSION_MISMATCH,
 *                     9 NVML_ERROR_DRIVER_NOT_LOADED)
 *   nvml uuid CODE    nvmlDeviceGetUUID returns CODE
 *   nvml other-uuids  the UUIDs are not the devices' (each byte inverted)
 *
 * Without the file: nvmlInit_v2 0 and one device.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../fakecuda/fake-cuda.h"

enum {
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
};

#define UUID_TEXT_SIZE 41 /* GPU- and 36 characters */

static bool loaded, other_uuids;
static int init_code, uuid_code, inits;
static int ndev;
static struct fake_device devices[FAKE_MAX_DEVICES];

static void take(const char *word, const char *args)
{
	char what[32];
	int code;

	if (fake_cuda_device(word, args, devices, &ndev) || strcmp(word, "nvml") != 0)
		return;
	if (sscanf(args, " init %d", &code) == 1)
		init_code = code;
	else if (sscanf(args, " uuid %d", &code) == 1)
		uuid_code = code;
	else if (sscanf(args, "%31s", what) == 1)
		other_uuids |= strcmp(what, "other-uuids") == 0;
}

static void load(void)
{
	if (loaded)
		return;
	loaded = true;
	fake_cuda_read(take);
	if (ndev == 0)
		ndev = 1; /* its UUID all zeros */
}

int nvmlInit_v2(void);
int nvmlInit_v2(void)
{
	load();
	if (init_code != 0)
		return init_code;
	inits++;
	return 0;
}

int nvmlShutdown(void);
int nvmlShutdown(void)
{
	if (inits == 0)
		return NVML_ERROR_UNINITIALIZED;
	inits--;
	return 0;
}

int nvmlDeviceGetCount_v2(unsigned int *count);
int nvmlDeviceGetCount_v2(unsigned int *count)
{
	if (inits == 0)
		return NVML_ERROR_UNINITIALIZED;
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	*count = (unsigned int)ndev;
	return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device);
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device)
{
	if (inits == 0)
		return NVML_ERROR_UNINITIALIZED;
	if (!device || index >= (unsigned int)ndev)
		return NVML_ERROR_INVALID_ARGUMENT;
	*device = &devices[index];
	return 0;
}

/* The device a handle stands for, or NULL for a handle not given out here. */
static const struct fake_device *device_of(const void *handle)
{
	for (int i = 0; i < ndev; i++)
		if (handle == &devices[i])
			return &devices[i];
	return NULL;
}

int nvmlDeviceGetUUID(void *device, char *uuid, unsigned int length);
int nvmlDeviceGetUUID(void *device, char *uuid, unsigned int length)
{
	const struct fake_device *d = device_of(device);
	unsigned char u[16];

	if (inits == 0)
		return NVML_ERROR_UNINITIALIZED;
	if (uuid_code != 0)
		return uuid_code;
	if (!d || !uuid)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (length < UUID_TEXT_SIZE)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	for (int k = 0; k < 16; k++)
		u[k] = other_uuids ? (unsigned char)~d->uuid[k] : d->uuid[k];
	snprintf(uuid, length,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
		 u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		 u[14], u[15]);
	return 0;
}
