/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/driver/uvmapply.c. */
#ifndef GP_UVMAPPLY_H
#define GP_UVMAPPLY_H

#include "plan/uvm.h"

struct kmod_ctx;

/*
 * Carries the plan out through the insertion seam, or prints it ("modprobe ..." lines)
 * with dry_run; then reads uvm_disable_hmm back and fails loudly if it did not take.
 * Returns 0, -GP_EREFUSED for a refused conflict, or -errno of a failed action.
 */
int gp_uvm_apply(const char *root, struct kmod_ctx *ctx, const struct gp_uvm_plan *plan,
		 bool dry_run);

#endif
