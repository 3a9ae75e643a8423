/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test double of the driver's libnvidia-ml.so.1 (NVML), for the injection tests: it
 * answers nvmlInit_v2 and a device count, and touches no GPU.
 */
int nvmlInit_v2(void);
int nvmlDeviceGetCount_v2(unsigned int *count);
int nvmlShutdown(void);

int nvmlInit_v2(void)
{
	return 0;
}

int nvmlDeviceGetCount_v2(unsigned int *count)
{
	*count = 1;
	return 0;
}

int nvmlShutdown(void)
{
	return 0;
}
