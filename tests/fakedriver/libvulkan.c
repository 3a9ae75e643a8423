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
 * others only for an instance it made. Its structures and prototypes are vulkan_core.h's
 * (libvulkan-dev), as the probe's are.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../fakecuda/fake-cuda.h"

#include <vulkan/vulkan_core.h>

#define VK_VERSION(major, minor) VK_MAKE_API_VERSION(0, major, minor, 0)
#define MAX_INSTANCES 8

/* A VkInstance is the address of its slot; a VkPhysicalDevice that of its fake_device. */
struct instance {
	bool live;
};

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

static struct instance *instance_of(VkInstance handle)
{
	for (int i = 0; i < MAX_INSTANCES; i++)
		if ((void *)handle == &instances[i] && instances[i].live)
			return &instances[i];
	return NULL;
}

static const struct fake_device *device_of(VkPhysicalDevice handle)
{
	for (int i = 0; i < ndev; i++)
		if ((void *)handle == &devices[i])
			return &devices[i];
	return NULL;
}

VkResult vkEnumerateInstanceVersion(uint32_t *version)
{
	load();
	*version = loader_version;
	return VK_SUCCESS;
}

/* A 1.0 loader refuses an application that asks for more (the 1.0 spec's rule). */
static bool app_too_new(const VkApplicationInfo *app)
{
	return loader_version < VK_VERSION(1, 1) && app &&
	       (app->apiVersion & ~0xfffu) > VK_VERSION(1, 0);
}

VkResult vkCreateInstance(const VkInstanceCreateInfo *info, const VkAllocationCallbacks *allocator,
			  VkInstance *out)
{
	(void)allocator;
	load();
	if (!info || info->sType != VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO || !out ||
	    (info->pApplicationInfo &&
	     info->pApplicationInfo->sType != VK_STRUCTURE_TYPE_APPLICATION_INFO))
		return VK_ERROR_INITIALIZATION_FAILED;
	if (loader_message)
		fprintf(stderr,
			"ERROR: [Loader Message] Code 0 : loader_scanned_icd_add: Could "
			"not get 'vkCreateInstance' via 'vk_icdGetInstanceProcAddr' for ICD "
			"libGLX_nvidia.so.0\n");
	if (instance_code != 0)
		return (VkResult)instance_code;
	if (app_too_new(info->pApplicationInfo))
		return VK_ERROR_INCOMPATIBLE_DRIVER;
	for (int i = 0; i < MAX_INSTANCES; i++)
		if (!instances[i].live) {
			instances[i].live = true;
			*out = (VkInstance)(void *)&instances[i];
			return VK_SUCCESS;
		}
	return VK_ERROR_INITIALIZATION_FAILED;
}

void vkDestroyInstance(VkInstance instance, const VkAllocationCallbacks *allocator)
{
	struct instance *in = instance_of(instance);

	(void)allocator;
	if (in)
		in->live = false;
}

VkResult vkEnumeratePhysicalDevices(VkInstance instance, uint32_t *count, VkPhysicalDevice *out)
{
	uint32_t n = 0;

	if (!instance_of(instance) || !count)
		return VK_ERROR_INITIALIZATION_FAILED;
	if (!out) {
		*count = (uint32_t)ndev;
		return VK_SUCCESS;
	}
	for (; n < *count && n < (uint32_t)ndev; n++)
		out[n] = (VkPhysicalDevice)(void *)&devices[n];
	*count = n;
	return n < (uint32_t)ndev ? VK_INCOMPLETE : VK_SUCCESS;
}

static void fill_id(VkPhysicalDeviceIDProperties *id, const struct fake_device *d)
{
	for (int k = 0; k < 16; k++) {
		id->deviceUUID[k] = other_uuids ? (uint8_t)~d->uuid[k] : d->uuid[k];
		id->driverUUID[k] = (uint8_t)(0xd0 + k);
	}
	memset(id->deviceLUID, 0, sizeof(id->deviceLUID));
	id->deviceNodeMask = 0;
	id->deviceLUIDValid = VK_FALSE;
}

void vkGetPhysicalDeviceProperties2(VkPhysicalDevice physical, VkPhysicalDeviceProperties2 *p)
{
	const struct fake_device *d = device_of(physical);

	if (!d || !p || p->sType != VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2)
		return;
	p->properties.apiVersion = VK_VERSION(1, 3);
	/* NVIDIA's packing: 580.159.04 */
	p->properties.driverVersion = 580u << 22 | 159u << 14 | 4u << 6;
	p->properties.vendorID = 0x10de;
	p->properties.deviceID = 0x2335;
	p->properties.deviceType = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
	snprintf(p->properties.deviceName, sizeof(p->properties.deviceName),
		 "Test double of an NVIDIA GPU at %s", d->pci);
	for (VkBaseOutStructure *s = p->pNext; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES)
			fill_id((VkPhysicalDeviceIDProperties *)s, d);
}

PFN_vkVoidFunction vkGetInstanceProcAddr(VkInstance instance, const char *name)
{
	static const struct {
		const char *name;
		PFN_vkVoidFunction f;
		bool global; /* given for no instance */
	} table[] = {
		{ "vkGetInstanceProcAddr", (PFN_vkVoidFunction)vkGetInstanceProcAddr, true },
		{ "vkEnumerateInstanceVersion", (PFN_vkVoidFunction)vkEnumerateInstanceVersion,
		  true },
		{ "vkCreateInstance", (PFN_vkVoidFunction)vkCreateInstance, true },
		{ "vkDestroyInstance", (PFN_vkVoidFunction)vkDestroyInstance, false },
		{ "vkEnumeratePhysicalDevices", (PFN_vkVoidFunction)vkEnumeratePhysicalDevices,
		  false },
		{ "vkGetPhysicalDeviceProperties2",
		  (PFN_vkVoidFunction)vkGetPhysicalDeviceProperties2, false },
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
