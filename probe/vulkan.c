/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-probe --deep, Vulkan, when the container has the loader (libvulkan.so.1): the
 * loader's version (DETAIL: major.minor.patch; 1.1 is needed for device UUIDs), an
 * instance, the physical devices (DETAIL: n), and each one's device UUID (DETAIL:
 * GPU-…, to be matched against CUDA's):
 *
 *   deep vulkan - instance -9 VK_ERROR_INCOMPATIBLE_DRIVER 12.0 -
 *
 * The few structures, enums and prototypes are vulkan_core.h's documented ABI, declared
 * here: no link-time dependency, no header.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "probe.h"

#define VK_API_1_1 (1u << 22 | 1u << 12)
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
	uint32_t nlayers;
	const char *const *layers;
	uint32_t nextensions;
	const char *const *extensions;
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

/* VkPhysicalDeviceProperties2: the leading fields, and room for the rest (824 bytes). */
struct properties2 {
	int32_t type;
	void *next;
	struct {
		uint32_t api_version, driver_version, vendor, device, device_type;
		char name[256];
		uint8_t cache_uuid[16];
		uint64_t rest[192];
	} p;
};

typedef void *(*get_proc)(void *, const char *);

struct vulkan {
	get_proc gipa;
	int (*create)(const struct instance_info *, const void *, void **);
	void (*destroy)(void *, const void *);
	int (*enumerate)(void *, uint32_t *, void **);
	void (*properties)(void *, struct properties2 *);
};

static const char *result_name(int r)
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

	if (r == 5)
		return "VK_INCOMPLETE";
	if (r <= 0 && -r < (int)(sizeof(errors) / sizeof(errors[0])))
		return errors[-r];
	return NULL;
}

/* The loader's version; 1.0 when it is older than vkEnumerateInstanceVersion (1.1). */
static uint32_t loader_version(const struct vulkan *v)
{
	int (*version)(uint32_t *) = NULL;
	uint32_t n = 1u << 22;

	*(void **)&version = v->gipa(NULL, "vkEnumerateInstanceVersion");
	if (version && version(&n) != 0)
		n = 1u << 22;
	return n;
}

static bool version_step(const struct vulkan *v)
{
	double t0 = probe_now_ms();
	uint32_t n = loader_version(v);
	bool enough = (n & ~0xfffu) >= VK_API_1_1;
	char detail[32];

	snprintf(detail, sizeof(detail), "%u.%u.%u", n >> 22 & 0x7f, n >> 12 & 0x3ff, n & 0xfff);
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

static void list_devices(const struct vulkan *v, void *instance)
{
	void *devices[64];
	uint32_t n = 64;
	double t0 = probe_now_ms();
	char detail[16];
	int r = v->enumerate(instance, &n, devices);

	snprintf(detail, sizeof(detail), "%u", r == 0 || r == 5 ? n : 0);
	probe_step("vulkan", -1, "devices", r, result_name(r), t0, detail);
	for (uint32_t i = 0; (r == 0 || r == 5) && i < n && i < 64; i++) {
		struct id_properties id = { .type = S_ID_PROPERTIES };
		struct properties2 p = { .type = S_PROPERTIES_2, .next = &id };
		char uuid[64];

		t0 = probe_now_ms();
		v->properties(devices[i], &p);
		uuid_text(uuid, sizeof(uuid), id.device_uuid);
		probe_step("vulkan", -1, "device", 0, "VK_SUCCESS", t0, uuid);
	}
}

static bool instance_functions(struct vulkan *v, void *instance)
{
	*(void **)&v->destroy = v->gipa(instance, "vkDestroyInstance");
	*(void **)&v->enumerate = v->gipa(instance, "vkEnumeratePhysicalDevices");
	*(void **)&v->properties = v->gipa(instance, "vkGetPhysicalDeviceProperties2");
	if (v->destroy && v->enumerate && v->properties)
		return true;
	probe_step("vulkan", -1, "symbols", 1, NULL, probe_now_ms(),
		   v->properties ? "vkEnumeratePhysicalDevices" : "vkGetPhysicalDeviceProperties2");
	return false;
}

void probe_vulkan(void)
{
	static const char *const names[] = { "vkGetInstanceProcAddr" };
	struct app_info app = { S_APPLICATION_INFO, NULL, "gpu-probe", 1, NULL, 0, VK_API_1_1 };
	struct instance_info info = { .type = S_INSTANCE_CREATE_INFO, .app = &app };
	void *lib = probe_library("vulkan", "libvulkan.so.1"), *f, *instance = NULL;
	struct vulkan v = { 0 };
	double t0;
	int r;

	if (!lib || !probe_symbols("vulkan", lib, names, &f, 1))
		return;
	*(void **)&v.gipa = f;
	*(void **)&v.create = v.gipa(NULL, "vkCreateInstance");
	if (!v.create) {
		probe_step("vulkan", -1, "symbols", 1, NULL, probe_now_ms(), "vkCreateInstance");
		return;
	}
	if (!version_step(&v))
		return;
	t0 = probe_now_ms();
	r = v.create(&info, NULL, &instance);
	probe_step("vulkan", -1, "instance", r, result_name(r), t0, NULL);
	if (r != 0)
		return;
	if (instance_functions(&v, instance))
		list_devices(&v, instance);
	if (v.destroy)
		v.destroy(instance, NULL);
}
