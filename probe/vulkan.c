/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-probe --deep, Vulkan, when the container has the loader (libvulkan.so.1): the
 * loader's version (DETAIL: major.minor.patch; 1.1 is needed for device UUIDs), an
 * instance, the physical devices (DETAIL: n), and each one's device UUID (DETAIL:
 * GPU-…, to be matched against CUDA's):
 *
 *   deep vulkan - instance -9 VK_ERROR_INCOMPATIBLE_DRIVER 12.0 -
 *
 * The structures, enums and function types are vulkan_core.h's (libvulkan-dev), without its
 * prototypes: the loader is opened with dlopen, never linked.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan_core.h>

#include "probe.h"

struct vulkan {
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkCreateInstance create;
	PFN_vkDestroyInstance destroy;
	PFN_vkEnumeratePhysicalDevices enumerate;
	PFN_vkGetPhysicalDeviceProperties2 properties;
};

static const char *result_name(VkResult r)
{
	static const char *const errors[] = {
		"VK_SUCCESS",
		"VK_ERROR_OUT_OF_HOST_MEMORY",
		"VK_ERROR_OUT_OF_DEVICE_MEMORY",
		"VK_ERROR_INITIALIZATION_FAILED",
		"VK_ERROR_DEVICE_LOST",
		"VK_ERROR_MEMORY_MAP_FAILED",
		"VK_ERROR_LAYER_NOT_PRESENT",
		"VK_ERROR_EXTENSION_NOT_PRESENT",
		"VK_ERROR_FEATURE_NOT_PRESENT",
		"VK_ERROR_INCOMPATIBLE_DRIVER",
		"VK_ERROR_TOO_MANY_OBJECTS",
	};

	if (r == VK_INCOMPLETE)
		return "VK_INCOMPLETE";
	if (r <= 0 && -r < (int)(sizeof(errors) / sizeof(errors[0])))
		return errors[-r];
	return NULL;
}

/* The loader's version; 1.0 when it is older than vkEnumerateInstanceVersion (1.1). */
static uint32_t loader_version(const struct vulkan *v)
{
	PFN_vkEnumerateInstanceVersion version =
	    (PFN_vkEnumerateInstanceVersion)v->gipa(NULL, "vkEnumerateInstanceVersion");
	uint32_t n = VK_API_VERSION_1_0;

	if (version && version(&n) != VK_SUCCESS)
		n = VK_API_VERSION_1_0;
	return n;
}

static bool version_step(const struct vulkan *v)
{
	double t0 = probe_now_ms();
	uint32_t n = loader_version(v);
	bool enough = VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(n), VK_API_VERSION_MINOR(n), 0) >=
		      VK_API_VERSION_1_1;
	char detail[32];

	snprintf(detail, sizeof(detail), "%u.%u.%u", VK_API_VERSION_MAJOR(n),
		 VK_API_VERSION_MINOR(n), VK_API_VERSION_PATCH(n));
	probe_step("vulkan", -1, "version", !enough, enough ? "VK_SUCCESS" : NULL, t0, detail);
	return enough;
}

static void uuid_text(char *out, size_t size, const uint8_t *u)
{
	snprintf(out, size,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
		 u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		 u[14], u[15]);
}

static void list_devices(const struct vulkan *v, VkInstance instance)
{
	VkPhysicalDevice devices[64];
	uint32_t n = 64;
	double t0 = probe_now_ms();
	char detail[16];
	VkResult r = v->enumerate(instance, &n, devices);
	bool listed = r == VK_SUCCESS || r == VK_INCOMPLETE;

	snprintf(detail, sizeof(detail), "%u", listed ? n : 0);
	probe_step("vulkan", -1, "devices", r, result_name(r), t0, detail);
	for (uint32_t i = 0; listed && i < n && i < 64; i++) {
		VkPhysicalDeviceIDProperties id = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES
		};
		VkPhysicalDeviceProperties2 p = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id
		};
		char uuid[64];

		t0 = probe_now_ms();
		v->properties(devices[i], &p);
		uuid_text(uuid, sizeof(uuid), id.deviceUUID);
		probe_step("vulkan", -1, "device", 0, "VK_SUCCESS", t0, uuid);
	}
}

static bool instance_functions(struct vulkan *v, VkInstance instance)
{
	v->destroy = (PFN_vkDestroyInstance)v->gipa(instance, "vkDestroyInstance");
	v->enumerate =
	    (PFN_vkEnumeratePhysicalDevices)v->gipa(instance, "vkEnumeratePhysicalDevices");
	v->properties =
	    (PFN_vkGetPhysicalDeviceProperties2)v->gipa(instance, "vkGetPhysicalDeviceProperties2");
	if (v->destroy && v->enumerate && v->properties)
		return true;
	probe_step("vulkan", -1, "symbols", 1, NULL, probe_now_ms(),
		   v->properties ? "vkEnumeratePhysicalDevices" : "vkGetPhysicalDeviceProperties2");
	return false;
}

void probe_vulkan(void)
{
	static const char *const names[] = { "vkGetInstanceProcAddr" };
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
				  .pApplicationName = "gpu-probe",
				  .applicationVersion = 1,
				  .apiVersion = VK_API_VERSION_1_1 };
	VkInstanceCreateInfo info = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
				      .pApplicationInfo = &app };
	void *lib = probe_library("vulkan", "libvulkan.so.1"), *f;
	VkInstance instance = NULL;
	struct vulkan v = { 0 };
	double t0;
	VkResult r;

	if (!lib || !probe_symbols("vulkan", lib, names, &f, 1))
		return;
	*(void **)&v.gipa = f;
	v.create = (PFN_vkCreateInstance)v.gipa(NULL, "vkCreateInstance");
	if (!v.create) {
		probe_step("vulkan", -1, "symbols", 1, NULL, probe_now_ms(), "vkCreateInstance");
		return;
	}
	if (!version_step(&v))
		return;
	t0 = probe_now_ms();
	r = v.create(&info, NULL, &instance);
	probe_step("vulkan", -1, "instance", r, result_name(r), t0, NULL);
	if (r != VK_SUCCESS)
		return;
	if (instance_functions(&v, instance))
		list_devices(&v, instance);
	if (v.destroy)
		v.destroy(instance, NULL);
}
