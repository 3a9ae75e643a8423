/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/ops/takeover.c. */
#ifndef GP_TAKEOVER_H
#define GP_TAKEOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "check/recipe.h"

/*
 * The recipe lines of the config attach is about to edit: attach refuses a config that
 * gives NVIDIA nodes itself (gpu-hook's start would clash with them); adopt takes out
 * those it recognises with certainty and attaches the GPUs they gave.
 */
struct gp_takeover {
	struct gp_recipe *rec;
	char *remove[GP_RECIPE_MAX]; /* the lines adopt takes out, in the config's syntax */
	size_t nremove;
	char gpus[256];	       /* adopt: the selection the recipe gave */
	char capabilities[64]; /* adopt: with display when it gave /dev/nvidia-modeset */
	bool mig;	       /* adopt: it gave /dev/nvidia-caps, whose caps it cannot tell */
	bool inject;	       /* adopt: another GPU tool's hook gave the driver's user space */
	char mapping[1024];    /* adopt: "  /dev/nvidiaN is GPU I (PCI, UUID)" lines */
};

struct gp_attach_opts;

/*
 * Reads the config (pve: Proxmox's) with applied (the lines attach wrote, or NULL) and,
 * for adopt, chooses the lines and the selection. Refuses (-GP_EBADCONF, each line named) a
 * config attach would break, or one adopt cannot take over. 0 or -errno.
 */
int gp_takeover_read(const struct gp_attach_opts *o, const char *config, bool pve,
		     const char *applied, struct gp_takeover *t);
void gp_takeover_free(struct gp_takeover *t);

/* adopt: the lines it leaves alone, "left alone: file:line: text (why)", to out. */
void gp_takeover_print_left(const struct gp_takeover *t, FILE *out);

#endif
