/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test double of nvidia-smi, for the injection tests: it loads libnvidia-ml.so.1 by its
 * soname, as the real one does, and says which file the loader gave it and what NVML
 * answered.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
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
