/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The interface of a device vendor; each vendor in its own file: gp_vendor_nvidia in
 * lib/plan/nvidia.c. */
#ifndef GP_VENDOR_H
#define GP_VENDOR_H

#include <stdbool.h>
#include <stddef.h>

#include "host/host.h"
#include "plan/plan.h"

/*
 * One device vendor: what turns the host into the device part of a plan (which nodes,
 * which majors, what a selector means, which node names are valid). The plan (plan.h)
 * and its users know no vendor; they ask this table. Every refusal is said once, after
 * where (as gp_error_at does; NULL for none).
 */
struct gp_vendor {
	const char *name;
	/*
	 * Resolves a selector list against host->gpus: chosen[i] for host->gpus[i]. 0,
	 * -GP_EBADCONF. A portable selection (alloc.h: any:N, model:TEXT:N) chooses every GPU it
	 * may take, when there are enough: alloc.c takes N free ones of them at each start.
	 */
	int (*select)(const char *spec, const struct gp_host *host, const char *where,
		      bool chosen[GP_MAX_GPUS]);
	/*
	 * The plan of a start: the chosen GPUs' nodes, the ones they need besides, and those
	 * caps names (root is read for their modes). 0, -GP_EBADCONF, -E2BIG.
	 */
	int (*plan)(const char *root, const struct gp_host *host, const bool chosen[GP_MAX_GPUS],
		    const char *caps, const char *where, struct gp_plan *plan);
	/*
	 * The nodes a container given the graphics or display capability needs besides
	 * (NVIDIA: nvidia-modeset). 0, -GP_EBADCONF (said after where: the driver part is
	 * missing), -E2BIG.
	 */
	int (*plan_display)(const char *root, const struct gp_host *host, const char *where,
			    struct gp_plan *plan);
	/* Every node the host should have for containers. Says nothing but -E2BIG. */
	int (*plan_all)(const char *root, const struct gp_host *host, struct gp_plan *plan);
	/* True for a name under /dev that this vendor's plans hold, exactly as it writes it. */
	bool (*node_name_is_valid)(const char *name);
};

extern const struct gp_vendor gp_vendor_nvidia;

#endif
