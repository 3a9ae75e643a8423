/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/ops/prepare.c. */
#ifndef GP_PREPARE_H
#define GP_PREPARE_H

#include <stdbool.h>

struct gp_ctx;

struct gp_prepare_opts {
	const struct gp_ctx *ctx; /* where: root (NULL: the real host), confdir, the node */
	const char *container;	  /* policy from this container's ini, else the host's */
	bool dry_run;		  /* print every action; under a root, module actions always are */
	bool persist;		  /* also write the modprobe.d option */
	bool modules_only;	  /* no device nodes (the pre-start hook makes its own) */
	bool nvml;		  /* ask NVML for the addressing mode (real host only) */
};

/*
 * gpu-provision prepare: modules loaded as the HMM policy wants, through libkmod, with
 * the parameter read back; every host node made; the option persisted on request.
 * Returns 0; -GP_EREFUSED when a conflict stops it; -GP_EBADCONF for bad configuration; another
 * -errno when an action failed. Each failure is explained where it happens.
 */
int gp_prepare(const struct gp_prepare_opts *o);

#endif
