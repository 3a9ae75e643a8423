/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-probe --deep, NVML (what nvidia-smi and most monitoring use): nvmlInit_v2, the
 * device count (DETAIL: n) and each device's UUID (DETAIL), the codes by their names:
 *
 *   deep nvml - init 18 NVML_ERROR_LIB_RM_VERSION_MISMATCH 3.1 -
 *
 * Prototypes and codes from nvml.h's documented ABI, declared here.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "probe.h"

static const char *const nvml_names[] = {
	"NVML_SUCCESS",
	"NVML_ERROR_UNINITIALIZED",
	"NVML_ERROR_INVALID_ARGUMENT",
	"NVML_ERROR_NOT_SUPPORTED",
	"NVML_ERROR_NO_PERMISSION",
	"NVML_ERROR_ALREADY_INITIALIZED",
	"NVML_ERROR_NOT_FOUND",
	"NVML_ERROR_INSUFFICIENT_SIZE",
	"NVML_ERROR_INSUFFICIENT_POWER",
	"NVML_ERROR_DRIVER_NOT_LOADED",
	"NVML_ERROR_TIMEOUT",
	"NVML_ERROR_IRQ_ISSUE",
	"NVML_ERROR_LIBRARY_NOT_FOUND",
	"NVML_ERROR_FUNCTION_NOT_FOUND",
	"NVML_ERROR_CORRUPTED_INFOROM",
	"NVML_ERROR_GPU_IS_LOST",
	"NVML_ERROR_RESET_REQUIRED",
	"NVML_ERROR_OPERATING_SYSTEM",
	"NVML_ERROR_LIB_RM_VERSION_MISMATCH",
	"NVML_ERROR_IN_USE",
	"NVML_ERROR_MEMORY",
	"NVML_ERROR_NO_DATA",
};

static const char *nvml_name(int r)
{
	if (r >= 0 && (size_t)r < sizeof(nvml_names) / sizeof(nvml_names[0]))
		return nvml_names[r];
	return r == 999 ? "NVML_ERROR_UNKNOWN" : "-";
}

struct nvml {
	int (*init)(void);
	int (*count)(unsigned int *);
	int (*handle)(unsigned int, void **);
	int (*uuid)(void *, char *, unsigned int);
	int (*shutdown)(void);
};

static bool load_symbols(void *lib, struct nvml *m)
{
	static const char *const names[] = { "nvmlInit_v2", "nvmlDeviceGetCount_v2",
					     "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetUUID",
					     "nvmlShutdown" };
	void *f[5];

	if (!probe_symbols("nvml", lib, names, f, 5))
		return false;
	*(void **)&m->init = f[0];
	*(void **)&m->count = f[1];
	*(void **)&m->handle = f[2];
	*(void **)&m->uuid = f[3];
	*(void **)&m->shutdown = f[4];
	return true;
}

static void list_uuids(const struct nvml *m, unsigned int n)
{
	for (unsigned int i = 0; i < n && i < 64; i++) {
		double t0 = probe_now_ms();
		char id[96] = "";
		void *h = NULL;
		int r = m->handle(i, &h);

		if (r == 0)
			r = m->uuid(h, id, sizeof(id));
		probe_step("nvml", -1, "uuid", r, nvml_name(r), t0, r == 0 ? id : NULL);
	}
}

void probe_nvml(void)
{
	void *lib = probe_library("nvml", "libnvidia-ml.so.1");
	unsigned int n = 0;
	struct nvml m;
	char detail[16];
	double t0;
	int r;

	if (!lib || !load_symbols(lib, &m))
		return;
	t0 = probe_now_ms();
	r = m.init();
	probe_step("nvml", -1, "init", r, nvml_name(r), t0, NULL);
	if (r != 0)
		return;
	t0 = probe_now_ms();
	r = m.count(&n);
	snprintf(detail, sizeof(detail), "%u", r == 0 ? n : 0);
	probe_step("nvml", -1, "count", r, nvml_name(r), t0, detail);
	if (r == 0)
		list_uuids(&m, n);
	m.shutdown();
}
