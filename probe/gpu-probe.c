/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-probe: runs inside a container, through the container's own dynamic loader and
 * C library, and says what a CUDA program there would meet:
 *
 *   gpu-probe [--deep] NAME:MAJOR:MINOR...
 *
 * prints, one fact a line, the lines of probe/protocol.h (parsed strictly by gpu-provision
 * probe, lib/diagnose/proberun.c), for instance:
 *
 *   gpu-probe 1
 *   glibc 2.36
 *   node nvidia0 1 1 195 0 6         exists, is a char device, major, minor, open errno
 *   libcuda 1 /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04 580.159.04
 *   driver 13000
 *   stage cuinit                     printed before cuInit, so a hang there is known
 *   cuinit 0 CUDA_SUCCESS
 *   devices 1
 *   device 0 0000:00:06.0 GPU-...
 *   end
 *
 * With --deep, after a cuInit that succeeded and before "end", the lines of probe/deep.c:
 * each capability proven on each device (compute, nvdec, nvenc), then NVML and Vulkan.
 *
 * Containers may have a C library as old as glibc 2.28, so the binary asks for no symbol
 * version newer than that: its own _start instead of __libc_start_main@GLIBC_2.34, the
 * dl functions at their first versions, and stat through the raw system call.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "probe.h"
#include "protocol.h"

/*
 * CUDA's entry points as dynlink_cuda.h types them (libffmpeg-nvenc-dev); those it lacks as
 * cuda.h declares them: cuDriverGetVersion, cuDeviceGetPCIBusId, and cuDeviceGetUuid_v2
 * (CUuuid's 16 bytes, read as unsigned).
 */
typedef CUresult (*cu_version)(int *);
typedef CUresult (*cu_pci)(char *, int, CUdevice);
typedef CUresult (*cu_uuid)(unsigned char *, CUdevice);

static void probe_node(const char *spec)
{
	char name[64], path[80];
	unsigned int major, minor;
	struct stat st;
	int exists, fd, open_errno = 0;

	if (sscanf(spec, "%63[^:]:%u:%u", name, &major, &minor) != 3)
		return;
	snprintf(path, sizeof(path), "/dev/%s", name);
	exists = syscall(SYS_newfstatat, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		open_errno = errno;
	else
		close(fd);
	printf(GP_PROBE_NODE " %s %d %d %u %u %d\n", probe_word(name), exists,
	       exists && S_ISCHR(st.st_mode), exists ? major(st.st_rdev) : 0,
	       exists ? minor(st.st_rdev) : 0, open_errno);
}

/* The file the loader picked, and the version in its name (libcuda.so.580.159.04). */
static void report_libcuda(void *sym)
{
	char real[PATH_MAX] = "";
	const char *suffix;
	Dl_info info;

	if (dladdr(sym, &info) && info.dli_fname && !realpath(info.dli_fname, real))
		snprintf(real, sizeof(real), "%s", info.dli_fname);
	suffix = strstr(real, ".so.");
	printf(GP_PROBE_LIBCUDA " 1 %s %s\n", probe_word(real),
	       probe_word(suffix ? suffix + 4 : NULL));
}

static void report_devices(void *lib, int count)
{
	tcuDeviceGet *get = (tcuDeviceGet *)dlsym(lib, "cuDeviceGet");
	cu_pci pci = (cu_pci)dlsym(lib, "cuDeviceGetPCIBusId");
	cu_uuid uuid = (cu_uuid)dlsym(lib, "cuDeviceGetUuid_v2");

	if (!uuid)
		uuid = (cu_uuid)dlsym(lib, "cuDeviceGetUuid");
	printf(GP_PROBE_DEVICES " %d\n", count);
	for (int i = 0; i < count && i < GP_PROBE_MAX_DEVICES && get && pci && uuid; i++) {
		unsigned char u[16] = { 0 };
		char bus[32] = "";
		int dev;

		if (get(&dev, i) != 0)
			continue;
		pci(bus, sizeof(bus), dev);
		uuid(u, dev);
		for (char *c = bus; *c; c++)
			*c = *c >= 'A' && *c <= 'F' ? (char)(*c - 'A' + 'a') : *c;
		printf(GP_PROBE_DEVICE
		       " %d %s "
		       "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x"
		       "%02x\n",
		       i, probe_word(bus), u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8],
		       u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	}
}

static void probe_cuda(bool deep)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	cu_version version;
	tcuDeviceGetCount *count;
	tcuInit *init;
	tcuGetErrorName *name;
	const char *err = NULL;
	int v = 0, r, n = 0;

	if (!lib) {
		printf(GP_PROBE_LIBCUDA " 0 - -\n");
		return;
	}
	version = (cu_version)dlsym(lib, "cuDriverGetVersion");
	init = (tcuInit *)dlsym(lib, "cuInit");
	count = (tcuDeviceGetCount *)dlsym(lib, "cuDeviceGetCount");
	name = (tcuGetErrorName *)dlsym(lib, "cuGetErrorName");
	report_libcuda(version ? (void *)version : (void *)init);
	if (!version || !init || !count) {
		printf(GP_PROBE_SYMBOLS " 0\n");
		return;
	}
	r = version(&v);
	printf(GP_PROBE_DRIVER " %d\n", r == 0 ? v : -1);
	printf(GP_PROBE_STAGE " cuinit\n");
	fflush(stdout);
	r = init(0);
	if (!name || name(r, &err) != 0)
		err = NULL;
	printf(GP_PROBE_CUINIT " %d %s\n", r, probe_word(err));
	if (r == 0 && count(&n) == 0)
		report_devices(lib, n);
	if (r == 0 && deep) {
		probe_compute(lib, n);
		probe_nvdec(lib, n);
		probe_nvenc(lib, n);
		probe_compute_release();
		probe_nvml();
		probe_vulkan();
	}
}

/*
 * Libraries write to stderr unasked (the Vulkan loader about an ICD it cannot load, Mesa's
 * warnings), and the host reads stderr and the report from one pipe: stderr goes to the
 * container's /dev/null once this runs. Only a character device is taken, opened without
 * blocking; where there is none, stderr stays as it was.
 */
static void quiet_stderr(void)
{
	int fd = open("/dev/null", O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return;
	if (syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH) == 0 && S_ISCHR(st.st_mode))
		dup2(fd, STDERR_FILENO);
	close(fd);
}

static int probe_main(int argc, char **argv)
{
	bool deep = false;

	quiet_stderr();
	printf(GP_PROBE_HELLO GP_PROBE_GLIBC " %s\n", probe_word(gnu_get_libc_version()));
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--deep") == 0)
			deep = true;
		else
			probe_node(argv[i]);
	}
	fflush(stdout);
	probe_cuda(deep);
	printf(GP_PROBE_END "\n");
	return fflush(stdout) == 0 ? 0 : 1;
}

void probe_entry(long *stack) __attribute__((used, noreturn));
void probe_entry(long *stack)
{
	exit(probe_main((int)stack[0], (char **)(stack + 1)));
}

/* The process entry: the kernel's stack holds argc then argv; align and call C. */
__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call probe_entry\n"
	"	hlt\n");
