/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test double of nvidia-smi, for the injection tests: it loads libnvidia-ml.so.1 by its
 * soname, as the real one does, and says which file the loader gave it and what NVML
 * answered. Like gpu-probe (and the real one), it runs on a glibc as old as 2.28: its
 * own _start instead of __libc_start_main@GLIBC_2.34, the dl functions at their first
 * versions.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver dlerror,dlerror@GLIBC_2.2.5");
__asm__(".symver dladdr,dladdr@GLIBC_2.2.5");

static int smi_main(void)
{
	void *nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW);
	int (*init)(void), (*count)(unsigned int *);
	unsigned int n = 0;
	char *real;
	Dl_info info;

	if (!nvml) {
		fprintf(stderr, "nvidia-smi (test double): %s\n", dlerror());
		return 9;
	}
	init = (int (*)(void))dlsym(nvml, "nvmlInit_v2");
	count = (int (*)(unsigned int *))dlsym(nvml, "nvmlDeviceGetCount_v2");
	if (!init || !count || !dladdr((void *)init, &info))
		return 9;
	real = realpath(info.dli_fname, NULL);
	printf("nvidia-smi (test double): libnvidia-ml.so.1 is %s (%s), nvmlInit_v2 %d",
	       info.dli_fname, real ? real : "?", init());
	printf(", %u GPU\n", count(&n) == 0 ? n : 0);
	free(real);
	return 0;
}

void smi_entry(void) __attribute__((used, noreturn));
void smi_entry(void)
{
	exit(smi_main());
}

/* The process entry: align the stack and call C. */
__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	and $-16, %rsp\n"
	"	call smi_entry\n"
	"	hlt\n");
