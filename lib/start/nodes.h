/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/start/nodes.c. */
#ifndef GP_NODES_H
#define GP_NODES_H

#include <stdbool.h>

#include "plan/plan.h"

/*
 * Makes every node of the plan exist on the host, under <root>/dev, with its planned
 * number, owner and mode, as nvidia-modprobe does: a missing node is created, a
 * character device with another number is replaced, anything else in its place is
 * refused. With modify false (the driver's ModifyDeviceFiles=0) nothing is created
 * and a missing node is an error. With dry_run the actions are printed, not done.
 * Returns 0, or -errno after saying what failed and what to do.
 */
int gp_nodes_ensure(const char *root, const struct gp_plan *plan, bool modify, bool dry_run);

#endif
