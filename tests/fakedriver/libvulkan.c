/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A test double of the Vulkan loader, libvulkan.so.1, as it is with the driver's ICD: never
 * a real driver, it draws nothing. It gives gpu-probe --deep the loader's version, an
 * instance, the physical devices and each one's device UUID. The physical devices are the
 * "device PCI UUID" lines of the container's /etc/fake-cuda (fake-cuda.h), none without
 * them. Its words there:
 *
 *   vulkan instance CODE        vkCreateInstance returns CODE (-9
 *                               VK_ERROR_INCOMPATIBLE_DRIVER, the loader's answer when it
 *                               finds no ICD)
 *   vulkan no-devices           vkEnumeratePhysicalDevices finds none
 *   vulkan other-uuids          the device UUIDs are not the devices' (each byte inverted)
 *   vulkan loader-message       vkCreateInstance writes to stderr, as the real loader does
 *                               about an ICD it cannot load
 *   vulkan version MAJOR.MINOR  the loader's version (default 1.3); a 1.0 loader has no
 *                               vkEnumerateInstanceVersion
 *
 * As the loader, vkGetInstanceProcAddr gives the global functions for no instance and the
 * others only for an instance it made. The few structures are vulkan_core.h's, declared
 * here with the fields it reads or writes.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../fakecuda/fake-cuda.h"

#define VK_VERSION(major, minor) ((uint32_t)(major) << 22 | (uint32_t)(minor) << 12)
#define MAX_INSTANCES 8

enum {
	VK_SUCCESS = 0,
	VK_INCOMPLETE = 5,
	VK_ERROR_INITIALIZATION_FAILED = -3,
	VK_ERROR_INCOMPATIBLE_DRIVER = -9,
};

enum {
	S_APPLICATION_INFO = 0,
	S_INSTANCE_CREATE_INFO = 1,
	S_PROPERTIES_2 = 1000059001,
	S_ID_PROPERTIES = 1000071004,
};

struct app_info {
	int32_t type;
	const void *next;
	const char *name;
	uint32_t version;
	const char *engine;
	uint32_t engine_version;
	uint32_t api_version;
};

struct instance_info {
	int32_t type;
	const void *next;
	uint32_t flags;
	const struct app_info *app;
};

/* VkBaseOutStructure: how every struct of a pNext chain starts. */
struct base_out {
	int32_t type;
	struct base_out *next;
};

/* VkPhysicalDeviceIDProperties */
struct id_properties {
	int32_t type;
	void *next;
	uint8_t device_uuid[16];
	uint8_t driver_uuid[16];
	uint8_t luid[8];
	uint32_t node_mask;
	uint32_t luid_valid;
};

/* VkPhysicalDeviceProperties2 up to VkPhysicalDeviceProperties' deviceName. */
struct properties2 {
	int32_t type;
	struct base_out *next;
	uint32_t api_version, driver_version, vendor, device, device_type;
	char name[256];
};

/* A VkInstance is the address of its slot; a VkPhysicalDevice that of its fake_device. */
struct instance {
	bool live;
};

typedef void (*void_function)(void);

static bool loaded, no_devices, other_uuids, loader_message;
static int instance_code;
static uint32_t loader_version = VK_VERSION(1, 3);
static int ndev;
static struct fake_device devices[FAKE_MAX_DEVICES];
static struct instance instances[MAX_INSTANCES];

static void take(const char *word, const char *args)
{
	unsigned int major, minor;
	char what[32];
	int code;

	if (fake_cuda_device(word, args, devices, &ndev) || strcmp(word, "vulkan") != 0)
		return;
	if (sscanf(args, " instance %d", &code) == 1)
		instance_code = code;
	else if (sscanf(args, " version %u.%u", &major, &minor) == 2)
		loader_version = VK_VERSION(major, minor);
	else if (sscanf(args, "%31s", what) == 1) {
		no_devices |= strcmp(what, "no-devices") == 0;
		other_uuids |= strcmp(what, "other-uuids") == 0;
		loader_message |= strcmp(what, "loader-message") == 0;
	}
}

static void load(void)
{
	if (loaded)
		return;
	loaded = true;
	fake_cuda_read(take);
	if (no_devices)
		ndev = 0;
}

static struct instance *instance_of(void *handle)
{
	for (int i = 0; i < MAX_INSTANCES; i++)
		if (handle == &instances[i] && instances[i].live)
			return &instances[i];
	return NULL;
}

static const struct fake_device *device_of(void *handle)
{
	for (int i = 0; i < ndev; i++)
		if (handle == &devices[i])
			return &devices[i];
	return NULL;
}

int vkEnumerateInstanceVersion(uint32_t *version);
int vkEnumerateInstanceVersion(uint32_t *version)
{
	load();
	*version = loader_version;
	return VK_SUCCESS;
}

/* A 1.0 loader refuses an application that asks for more (the 1.0 spec's rule). */
static bool app_too_new(const struct app_info *app)
{
	return loader_version < VK_VERSION(1, 1) && app &&
	       (app->api_version & ~0xfffu) > VK_VERSION(1, 0);
}

int vkCreateInstance(const struct instance_info *info, const void *allocator, void **out);
int vkCreateInstance(const struct instance_info *info, const void *allocator, void **out)
{
	(void)allocator;
	load();
	if (!info || info->type != S_INSTANCE_CREATE_INFO || !out ||
	    (info->app && info->app->type != S_APPLICATION_INFO))
		return VK_ERROR_INITIALIZATION_FAILED;
	if (loader_message)
		fprintf(stderr, "ERROR: [Loader Message] Code 0 : loader_scanned_icd_add: Could "
				"not get 'vkCreateInstance' via 'vk_icdGetInstanceProcAddr' for ICD "
				"libGLX_nvidia.so.0\n");
	if (instance_code != 0)
		return instance_code;
	if (app_too_new(info->app))
		return VK_ERROR_INCOMPATIBLE_DRIVER;
	for (int i = 0; i < MAX_INSTANCES; i++)
		if (!instances[i].live) {
			instances[i].live = true;
			*out = &instances[i];
			return VK_SUCCESS;
		}
	return VK_ERROR_INITIALIZATION_FAILED;
}

void vkDestroyInstance(void *instance, const void *allocator);
void vkDestroyInstance(void *instance, const void *allocator)
{
	struct instance *in = instance_of(instance);

	(void)allocator;
	if (in)
		in->live = false;
}

int vkEnumeratePhysicalDevices(void *instance, uint32_t *count, void **out);
int vkEnumeratePhysicalDevices(void *instance, uint32_t *count, void **out)
{
	uint32_t n = 0;

	if (!instance_of(instance) || !count)
		return VK_ERROR_INITIALIZATION_FAILED;
	if (!out) {
		*count = (uint32_t)ndev;
		return VK_SUCCESS;
	}
	for (; n < *count && n < (uint32_t)ndev; n++)
		out[n] = &devices[n];
	*count = n;
	return n < (uint32_t)ndev ? VK_INCOMPLETE : VK_SUCCESS;
}

static void fill_id(struct id_properties *id, const struct fake_device *d)
{
	for (int k = 0; k < 16; k++) {
		id->device_uuid[k] = other_uuids ? (uint8_t)~d->uuid[k] : d->uuid[k];
		id->driver_uuid[k] = (uint8_t)(0xd0 + k);
	}
	memset(id->luid, 0, sizeof(id->luid));
	id->node_mask = 0;
	id->luid_valid = 0;
}

void vkGetPhysicalDeviceProperties2(void *physical, struct properties2 *p);
void vkGetPhysicalDeviceProperties2(void *physical, struct properties2 *p)
{
	const struct fake_device *d = device_of(physical);

	if (!d || !p || p->type != S_PROPERTIES_2)
		return;
	p->api_version = VK_VERSION(1, 3);
	p->driver_version = 580u << 22 | 159u << 14 | 4u << 6; /* NVIDIA's packing: 580.159.04 */
	p->vendor = 0x10de;
	p->device = 0x2335;
	p->device_type = 2; /* VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU */
	snprintf(p->name, sizeof(p->name), "Test double of an NVIDIA GPU at %s", d->pci);
	for (struct base_out *s = p->next; s; s = s->next)
		if (s->type == S_ID_PROPERTIES)
			fill_id((struct id_properties *)s, d);
}

void_function vkGetInstanceProcAddr(void *instance, const char *name);
void_function vkGetInstanceProcAddr(void *instance, const char *name)
{
	static const struct {
		const char *name;
		void_function f;
		bool global; /* given for no instance */
	} table[] = {
		{ "vkGetInstanceProcAddr", (void_function)vkGetInstanceProcAddr, true },
		{ "vkEnumerateInstanceVersion", (void_function)vkEnumerateInstanceVersion, true },
		{ "vkCreateInstance", (void_function)vkCreateInstance, true },
		{ "vkDestroyInstance", (void_function)vkDestroyInstance, false },
		{ "vkEnumeratePhysicalDevices", (void_function)vkEnumeratePhysicalDevices, false },
		{ "vkGetPhysicalDeviceProperties2", (void_function)vkGetPhysicalDeviceProperties2,
		  false },
	};

	load();
	if (!name)
		return NULL;
	if (strcmp(name, "vkEnumerateInstanceVersion") == 0 && loader_version < VK_VERSION(1, 1))
		return NULL;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(name, table[i].name) == 0)
			return table[i].global || instance_of(instance) ? table[i].f : NULL;
	return NULL;
}
