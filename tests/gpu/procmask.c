/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * procmask PCI...: the mask of /proc/driver/nvidia/gpus (lib/start/procgpus.c) on this
 * machine's own procfs, rootfs /, as given the GPUs at these PCI addresses; prints what
 * gp_procgpus_mask returned. Run it in a mount namespace of its own (unshare -m): on the
 * GPU host, where the driver's directory is real (tests/gpu/run-procgpus.sh).
 */
#include <stdio.h>

#include "plan/plan.h"
#include "start/procgpus.h"

int main(int argc, char **argv)
{
	static struct gp_plan plan;

	for (int i = 1; i < argc && plan.ngpus < GP_MAX_GPUS; i++, plan.ngpus++) {
		plan.gpus[plan.ngpus].index = (unsigned int)plan.ngpus;
		snprintf(plan.gpus[plan.ngpus].pci, sizeof(plan.gpus[0].pci), "%s", argv[i]);
	}
	printf("gp_procgpus_mask: %d\n", gp_procgpus_mask("/", &plan));
	return 0;
}
