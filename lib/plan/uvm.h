/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/plan/uvm.c. */
#ifndef GP_UVM_H
#define GP_UVM_H

#include <stdbool.h>

#include "config/ini.h"
#include "host/hmm.h"
#include "host/modules.h"

struct kmod_ctx;

enum gp_mod_verb { GP_MOD_LOAD, GP_MOD_UNLOAD };

struct gp_mod_action {
	enum gp_mod_verb verb;
	char module[32];
	char options[64];
};

enum gp_uvm_status {
	GP_UVM_OK,	 /* nothing to do, or the actions below make it right */
	GP_UVM_CONFLICT, /* nvidia_uvm has the wrong value and cannot be reloaded */
};

/* What the policy asks of the modules, before anything is done. */
struct gp_uvm_plan {
	bool want_disable; /* nvidia_uvm should run with uvm_disable_hmm=1 */
	struct gp_mod_action act[4];
	size_t n;
	enum gp_uvm_status status;
	bool refuse; /* a conflict that must stop the start */
	char why[768];
};

/*
 * Decides, from the policy and the state, which modules to load or reload, never
 * touching a module the policy does not need touched. auto disables HMM wherever it
 * is or would be active with the open module, and where that cannot be known.
 */
void gp_uvm_plan(enum gp_hmm_policy policy, enum gp_conflict on_conflict,
		 const struct gp_modules *mods, const struct gp_hmm *hmm, struct gp_uvm_plan *plan);

/* Says what a conflict means: -GP_EREFUSED when it must stop the start, else a warning and 0. */
int gp_uvm_check_conflict(const struct gp_uvm_plan *plan);

/* One action as the modprobe command an admin would type. */
void gp_mod_action_text(const struct gp_mod_action *a, char *buf, size_t size);

#endif
