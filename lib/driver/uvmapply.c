/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Carrying out the [uvm] plan through the module seam, and checking that it took. */
#include <stdio.h>
#include <string.h>

#include "base/paths.h"
#include "base/util.h"
#include "driver/kmod.h"
#include "driver/uvmapply.h"
#include "plan/uvm.h"

static int run_action(struct kmod_ctx *ctx, const struct gp_mod_action *a)
{
	char text[160];
	int r;

	gp_mod_action_text(a, text, sizeof(text));
	gp_info("running: %s", text);
	if (!ctx)
		return -ENOSYS;
	r = a->verb == GP_MOD_LOAD ? gp_module_insert(ctx, a->module, a->options)
				   : gp_module_remove(ctx, a->module);
	if (r < 0)
		return gp_error_errno(r, "%s failed", text);
	return r;
}

/* libkmod says 0 even when it applied nothing: the parameter must read Y now. */
static int verify(const char *root)
{
	_cleanup_free_ char *v = NULL;
	int r = gp_read_file_at(root, "/sys/module/nvidia_uvm/parameters/uvm_disable_hmm", 16, &v,
				NULL);

	if (r == 0 && (v[0] == 'Y' || v[0] == '1'))
		return 0;
	gp_error("nvidia_uvm was loaded but uvm_disable_hmm reads %s, not Y: the option did not "
		 "take; check \"modprobe -c | grep nvidia_uvm\" for options that override it",
		 r == 0 ? gp_strtrim(v) : "nothing");
	return -EIO;
}

int gp_uvm_apply(const char *root, struct kmod_ctx *ctx, const struct gp_uvm_plan *plan,
		 bool dry_run)
{
	char text[160];
	bool loaded_uvm = false;

	if (gp_uvm_check_conflict(plan) < 0)
		return -GP_EREFUSED;
	for (size_t i = 0; i < plan->n; i++) {
		const struct gp_mod_action *a = &plan->act[i];

		if (dry_run) {
			gp_mod_action_text(a, text, sizeof(text));
			printf("would run: %s\n", text);
			continue;
		}
		if (run_action(ctx, a) < 0)
			return -EIO;
		loaded_uvm |= a->verb == GP_MOD_LOAD && strcmp(a->module, "nvidia_uvm") == 0;
	}
	if (!dry_run && loaded_uvm && plan->want_disable)
		return verify(root);
	return 0;
}
