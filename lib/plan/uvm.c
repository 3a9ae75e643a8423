/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The HMM policy: load nvidia and nvidia_uvm as needed, with uvm_disable_hmm=1 when wanted. */
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "plan/uvm.h"

#define DISABLE_OPTION "uvm_disable_hmm=1"

static void add(struct gp_uvm_plan *p, enum gp_mod_verb verb, const char *module,
		const char *options)
{
	struct gp_mod_action *a = &p->act[p->n++];

	a->verb = verb;
	snprintf(a->module, sizeof(a->module), "%s", module);
	snprintf(a->options, sizeof(a->options), "%s", options ? options : "");
}

static bool wants_disable(enum gp_hmm_policy policy, const struct gp_hmm *hmm)
{
	if (policy == GP_HMM_YES)
		return true;
	if (policy == GP_HMM_NO)
		return false;
	/* auto: unless HMM is known to stay off, turning it off costs nothing that CUDA needs. */
	return hmm->would_be_active != GP_NO;
}

static void conflict(enum gp_conflict on_conflict, const struct gp_modules *mods,
		     struct gp_uvm_plan *p)
{
	const struct gp_module *uvm = &mods->uvm;
	char users[320];

	if (uvm->refcnt > 0)
		snprintf(users, sizeof(users), "it is in use (use count %d%s%s)", uvm->refcnt,
			 uvm->holders[0] ? ", held by " : "", uvm->holders);
	else
		snprintf(users, sizeof(users), "this kernel cannot unload modules");
	p->status = GP_UVM_CONFLICT;
	p->refuse = on_conflict == GP_CONFLICT_REFUSE;
	snprintf(
	    p->why, sizeof(p->why),
	    "nvidia_uvm runs with uvm_disable_hmm=N but HMM must be off, and it cannot be "
	    "reloaded: %s. Either stop what uses the GPU (CUDA processes, nvidia-persistenced, "
	    "running GPU containers) and run gpu-provision prepare, or run gpu-provision "
	    "prepare --persist and reboot",
	    users);
}

void gp_uvm_plan(enum gp_hmm_policy policy, enum gp_conflict on_conflict,
		 const struct gp_modules *mods, const struct gp_hmm *hmm, struct gp_uvm_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	plan->want_disable = wants_disable(policy, hmm);
	if (!mods->nvidia.loaded)
		add(plan, GP_MOD_LOAD, "nvidia", NULL);
	if (!mods->uvm.loaded) {
		add(plan, GP_MOD_LOAD, "nvidia_uvm", plan->want_disable ? DISABLE_OPTION : NULL);
		return;
	}
	/* Loaded: only a module with HMM on where it must be off is touched. */
	if (!plan->want_disable || mods->uvm_disable_hmm != GP_NO)
		return;
	if (mods->uvm.refcnt == 0) {
		add(plan, GP_MOD_UNLOAD, "nvidia_uvm", NULL);
		add(plan, GP_MOD_LOAD, "nvidia_uvm", DISABLE_OPTION);
		return;
	}
	conflict(on_conflict, mods, plan);
}

void gp_mod_action_text(const struct gp_mod_action *a, char *buf, size_t size)
{
	snprintf(buf, size, "modprobe %s%s%s%s", a->verb == GP_MOD_UNLOAD ? "-r " : "", a->module,
		 a->options[0] ? " " : "", a->options);
}

int gp_uvm_check_conflict(const struct gp_uvm_plan *plan)
{
	if (plan->status != GP_UVM_CONFLICT)
		return 0;
	if (plan->refuse) {
		gp_error("%s", plan->why);
		return -GP_EREFUSED;
	}
	gp_warn("%s; going on as [uvm] on_conflict = warn says", plan->why);
	return 0;
}
