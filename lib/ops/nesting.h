/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/ops/nesting.c. */
#ifndef GP_NESTING_H
#define GP_NESTING_H

#include <stdbool.h>
#include <stddef.h>

#include "config/pveconf.h"
#include "ops/attachopts.h"

struct gp_target;

/*
 * Nesting, which a runtime nested in the container (Podman, Docker) needs: on Proxmox VE
 * "features: nesting=1" (the line's other items kept), on plain LXC LXC's generated
 * AppArmor profile with nesting allowed (lxc.apparmor.profile = generated and
 * lxc.apparmor.allow_nesting = 1, what Proxmox VE's nesting=1 gives). What attach gives is
 * recorded in .applied, so that detach takes out only that; nesting the admin's config
 * has of its own is left alone, and said.
 */
struct gp_nesting {
	/*
	 * The .applied lines for ours this attach keeps, "" none: Proxmox VE's record of the
	 * features item; plain LXC's config lines, the profile line and the allow_nesting
	 * line (each only where the config did not have it of its own).
	 */
	char record[2][160];
	char said[96];		     /* plain LXC: the lines of ours gp_nesting_say names */
	bool adds;		     /* this attach gives it (not there before) */
	bool takes_out;		     /* this attach or detach takes out an earlier one's */
	struct gp_pveconf_item item; /* Proxmox: the features edit, item.key NULL for none */
	char value[32], only_if[32];
};

/*
 * What attach does: o->nesting (1 give it, -1 take ours out, 0 keep what old, the lines
 * of .applied, records), against the config t. 0; -GP_EBADCONF, said (a features part
 * that is not name=value).
 */
int gp_nesting_plan(const struct gp_attach_opts *o, const struct gp_target *t,
		    const char *const *old, size_t nold, struct gp_nesting *n);

/* What detach does: take out what old records of ours. */
void gp_nesting_undo(const struct gp_target *t, const char *const *old, size_t nold,
		     struct gp_nesting *n);

/* The features edit of n for gp_target_edit, or NULL. */
const struct gp_pveconf_item *gp_nesting_item(const struct gp_nesting *n);

/* True for a .applied line that records a features item, not a line of the config. */
bool gp_nesting_is_record(const char *line);

/* Says what n does (or, dry_run, would do) to config; nothing when it does nothing. */
void gp_nesting_say(const struct gp_nesting *n, const char *config, bool dry_run);

#endif
