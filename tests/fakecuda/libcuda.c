/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A test double of the driver's libcuda.so.1, for containers without a GPU. What it
 * does is chosen by /etc/fake-cuda inside the container, one word a line:
 *
 *   result N        cuInit returns N (default 0)
 *   hang            cuInit never returns
 *   crash           cuInit dies of SIGSEGV
 *   exit            cuInit ends the process quietly (exit code 3)
 *   device PCI UUID one line per device cuDeviceGetCount reports
 *
 * It is never a real driver: tests use it to reach every probe finding through a real
 * container, a real attach and a real deadline.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAX_DEVICES 16

static int result;
static int ndev;
static char pci[MAX_DEVICES][64];
static unsigned char uuid[MAX_DEVICES][16];

static void parse_uuid(const char *s, unsigned char *out)
{
	int k = 0;

	for (s += 4; *s && k < 16; s++) {
		unsigned int b;

		if (*s == '-')
			continue;
		if (sscanf(s, "%2x", &b) != 1)
			return;
		out[k++] = (unsigned char)b;
		s++;
	}
}

static void load(void)
{
	FILE *f = fopen("/etc/fake-cuda", "r");
	char line[256], a[64], b[64];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "result %d", &result) == 1)
			continue;
		if (strncmp(line, "hang", 4) == 0)
			for (;;)
				pause();
		if (strncmp(line, "crash", 5) == 0)
			raise(SIGSEGV);
		if (strncmp(line, "exit", 4) == 0)
			_exit(3);
		if (sscanf(line, "device %63s %63s", a, b) == 2 && ndev < MAX_DEVICES) {
			snprintf(pci[ndev], sizeof(pci[0]), "%s", a);
			parse_uuid(b, uuid[ndev]);
			ndev++;
		}
	}
	fclose(f);
}

int cuDriverGetVersion(int *v);
int cuDriverGetVersion(int *v)
{
	*v = 13000;
	return 0;
}

int cuInit(unsigned int flags);
int cuInit(unsigned int flags)
{
	(void)flags;
	load();
	return result;
}

int cuDeviceGetCount(int *n);
int cuDeviceGetCount(int *n)
{
	*n = result == 0 ? ndev : 0;
	return result;
}

int cuDeviceGet(int *dev, int ordinal);
int cuDeviceGet(int *dev, int ordinal)
{
	*dev = ordinal;
	return ordinal < ndev ? 0 : 101;
}

int cuDeviceGetPCIBusId(char *buf, int len, int dev);
int cuDeviceGetPCIBusId(char *buf, int len, int dev)
{
	snprintf(buf, (size_t)len, "%s", pci[dev]);
	return 0;
}

int cuDeviceGetUuid_v2(unsigned char *out, int dev);
int cuDeviceGetUuid_v2(unsigned char *out, int dev)
{
	memcpy(out, uuid[dev], 16);
	return 0;
}

int cuGetErrorName(int code, const char **name);
int cuGetErrorName(int code, const char **name)
{
	static const struct {
		int code;
		const char *name;
	} names[] = {
		{ 0, "CUDA_SUCCESS" },
		{ 3, "CUDA_ERROR_NOT_INITIALIZED" },
		{ 34, "CUDA_ERROR_STUB_LIBRARY" },
		{ 100, "CUDA_ERROR_NO_DEVICE" },
		{ 802, "CUDA_ERROR_SYSTEM_NOT_READY" },
		{ 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" },
		{ 804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE" },
		{ 999, "CUDA_ERROR_UNKNOWN" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].code == code) {
			*name = names[i].name;
			return 0;
		}
	return 1;
}
