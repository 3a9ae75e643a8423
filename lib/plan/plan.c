/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plan of one start: exactly which nodes, with which numbers, and which GPUs. What
 * makes one is lib/plan/planner.c's; its text lib/plan/planfile.c's.
 */
#include <errno.h>
#include <string.h>

#include "base/log.h"
#include "plan/plan.h"

int gp_plan_add(struct gp_plan *plan, const struct gp_devnode *node, const char *where)
{
	for (size_t i = 0; i < plan->n; i++)
		if (strcmp(plan->nodes[i].name, node->name) == 0)
			return 0;
	if (plan->n == GP_PLAN_MAX_NODES)
		return gp_error_at(-E2BIG, where, "more than %d nodes planned", GP_PLAN_MAX_NODES);
	plan->nodes[plan->n] = *node;
	plan->nodes[plan->n].mode &= 07777;
	plan->n++;
	return 0;
}
