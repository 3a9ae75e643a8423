/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/plan/planfile.c. */
#ifndef GP_PLANFILE_H
#define GP_PLANFILE_H

#include "plan/plan.h"

/*
 * Serialises a plan as text (malloc'd) and parses it back strictly: -GP_EBADCONF on any doubt.
 * Version 1 holds node lines; version 2 adds "owner PID START" and "gpu INDEX UUID PCI" before
 * them. A plan without owner or GPUs is written as version 1, as before; both are read.
 */
char *gp_plan_format(const struct gp_plan *plan);
int gp_plan_parse(const char *buf, struct gp_plan *plan);

/* The most a plan's file holds: GP_PLAN_MAX_NODES node lines and GP_MAX_GPUS gpu lines fit. */
#define GP_PLAN_FILE_MAX (64 * 1024)

/* Writes plan to path (gp_write_run_file): 0 or -errno, said. */
int gp_plan_write(const char *path, const struct gp_plan *plan);

/* Reads the plan at path: 0; the read's -errno, or -GP_EBADCONF for a damaged plan; says nothing.
 */
int gp_plan_read(const char *path, struct gp_plan *plan);

#endif
