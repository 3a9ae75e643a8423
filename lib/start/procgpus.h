/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/start/procgpus.c. */
#ifndef GP_PROCGPUS_H
#define GP_PROCGPUS_H

#include "plan/plan.h"

/*
 * Shows in the container's /proc/driver/nvidia/gpus only the GPUs the plan was given, as
 * libnvidia-container does: a read-only tmpfs over it holding a read-only bind of each
 * given GPU's directory. Only where <rootfs>/proc is a procfs reached with no link
 * followed and its GPU directory is a plain one; nothing where every GPU listed there was
 * given, or where the plan names none. Cosmetic: a failure is said and undone, never a
 * refused start. 1 when masked, 0 when nothing was to do, -errno on failure.
 */
int gp_procgpus_mask(const char *rootfs, const struct gp_plan *plan);

/*
 * The same on the directory name in parentfd, whatever its filesystem (the plan's PCI
 * addresses the names to keep), and silent: 1 when masked, 0 when nothing was to do,
 * -errno with nothing left mounted.
 */
int gp_procgpus_mask_dir(int parentfd, const char *name, const struct gp_plan *plan);

#endif
