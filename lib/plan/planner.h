/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/plan/planner.c. */
#ifndef GP_PLANNER_H
#define GP_PLANNER_H

#include <stdbool.h>

#include "host/host.h"
#include "plan/plan.h"

struct gp_ini;

/* Where gp_plan_for_conf's refusals point: the caller's choice, as each said it before. */
enum gp_conf_where {
	GP_WHERE_NONE, /* nothing: the selection may not be the ini's (attach --gpus) */
	GP_WHERE_LINE, /* "path:devices_line: " for the selectors, "path: " for the rest */
};

/*
 * An ini's selection (conf->devices, conf->caps) against the host, through the host's
 * vendor (vendor.h): chosen[i] for host->gpus[i] (chosen may be NULL) and the plan of
 * a start. root is read for the nodes' modes. A refusal is said once: -GP_EBADCONF, or
 * -E2BIG for more than GP_PLAN_MAX_NODES nodes.
 */
int gp_plan_for_conf(const char *root, const struct gp_host *host, const struct gp_ini *conf,
		     enum gp_conf_where where, bool chosen[GP_MAX_GPUS], struct gp_plan *plan);

/*
 * The same for GPUs already chosen (host->gpus[i] where chosen[i]; a portable selection's
 * at a start, lib/plan/alloc.c), with conf's caps and display nodes. 0, -GP_EBADCONF, -E2BIG, said.
 */
int gp_plan_for_chosen(const char *root, const struct gp_host *host, const struct gp_ini *conf,
		       enum gp_conf_where where, const bool chosen[GP_MAX_GPUS],
		       struct gp_plan *plan);

/*
 * Every node the host should have for containers, as its vendor says (for NVIDIA:
 * nvidiactl, each GPU, nvidia-uvm(-tools), the MIG caps that exist). Says nothing but
 * a full plan (-E2BIG); a host without the driver gives no nodes.
 */
int gp_plan_all(const char *root, const struct gp_host *host, struct gp_plan *plan);

#endif
