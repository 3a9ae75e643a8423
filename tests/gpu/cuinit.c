/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cuinit: what a CUDA program sees, for the GPU host run. Loads libcuda.so.1 (never the
 * toolkit's libcuda.so stub), prints the driver version, cuInit's code and name and
 * time, and each device's PCI bus id and UUID.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

typedef int (*fn_int)(int *);
typedef int (*fn_init)(unsigned int);
typedef int (*fn_get)(int *, int);
typedef int (*fn_name)(int, const char **);
typedef int (*fn_pci)(char *, int, int);
typedef int (*fn_uuid)(unsigned char *, int);

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	fn_int version, count;
	fn_init init;
	fn_name name;
	fn_get get;
	fn_pci pci;
	fn_uuid uuid;
	const char *err = "?";
	int v = 0, n = 0, r;
	double t0;

	if (!h) {
		printf("dlopen libcuda.so.1: %s\n", dlerror());
		return 2;
	}
	version = (fn_int)dlsym(h, "cuDriverGetVersion");
	init = (fn_init)dlsym(h, "cuInit");
	count = (fn_int)dlsym(h, "cuDeviceGetCount");
	name = (fn_name)dlsym(h, "cuGetErrorName");
	get = (fn_get)dlsym(h, "cuDeviceGet");
	pci = (fn_pci)dlsym(h, "cuDeviceGetPCIBusId");
	uuid = (fn_uuid)dlsym(h, "cuDeviceGetUuid_v2");
	if (!version || !init || !count || !name || !get || !pci || !uuid) {
		printf("libcuda.so.1 lacks a symbol\n");
		return 2;
	}
	{
		Dl_info info;

		if (dladdr((void *)version, &info) && info.dli_fname)
			printf("libcuda %s\n", info.dli_fname);
	}
	version(&v);
	t0 = now_ms();
	r = init(0);
	printf("cuDriverGetVersion %d\ncuInit %d", v, r);
	name(r, &err);
	printf(" %s in %.1f ms\n", err, now_ms() - t0);
	if (r != 0)
		return 1;
	count(&n);
	printf("devices %d\n", n);
	for (int i = 0; i < n; i++) {
		unsigned char u[16];
		char bus[32] = "";
		int dev;

		get(&dev, i);
		pci(bus, sizeof(bus), dev);
		uuid(u, dev);
		printf("device %d %s GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n",
		       i, bus, u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
		       u[11], u[12], u[13], u[14], u[15]);
	}
	return 0;
}
