/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pre-start hook's part of the HMM policy. The hook is linked statically and
 * Debian ships libkmod only as a shared library, so the hook reads module state from
 * /proc/modules and sysfs, and when the policy needs a module loaded or reloaded it
 * runs "gpu-provision prepare --container NAME --modules-only", which does it through
 * libkmod and reads the parameter back. The usual start needs no change and runs nothing.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/child.h"
#include "base/ctx.h"
#include "base/escape.h"
#include "base/exitcode.h"
#include "base/paths.h"
#include "base/trust.h"
#include "base/util.h"
#include "host/hmm.h"
#include "host/modules.h"
#include "plan/uvm.h"
#include "start/hook.h"

static void plan_modules_at_start(const char *root, const struct gp_ini *conf, struct gp_host *host,
				  struct gp_uvm_plan *plan)
{
	struct gp_modules mods;
	struct gp_hmm hmm;

	memset(plan, 0, sizeof(*plan));
	if (gp_modules_read_tree(root, &mods) < 0)
		return;
	/* The kernel's build options matter only where HMM could be on. */
	if (conf->disable_hmm == GP_HMM_AUTO && host->flavor == GP_FLAVOR_OPEN &&
	    host->kconfig.device_private == GP_UNKNOWN &&
	    (!mods.uvm.loaded || mods.uvm_disable_hmm == GP_NO))
		gp_host_read_kconfig(root, host);
	gp_hmm_judge(host, &mods, NULL, NULL, &hmm);
	gp_uvm_plan(conf->disable_hmm, conf->on_conflict, &mods, &hmm, plan);
}

/* Loading a module takes seconds; this is the bound on a stuck one. */
#define PREPARE_TIMEOUT_MS (120 * 1000)
#define PREPARE_OUTPUT_MAX (16 * 1024)

static int run_prepare(const struct gp_ctx *ctx, const char *name)
{
	const struct gp_child_opts o = { .timeout_ms = PREPARE_TIMEOUT_MS,
					 .output_max = PREPARE_OUTPUT_MAX,
					 .merge_stderr = true };
	char found[PATH_MAX], prog[PATH_MAX];
	char *argv[12];
	struct gp_child c;
	int argc = 0, r;

	gp_program_path("gpu-provision", GP_SBINDIR, found, sizeof(found));
	/* It runs as root from here, at a start: held to the hook's own rule. */
	if (gp_trust_program(found, prog, sizeof(prog)) < 0)
		return -GP_EBADCONF;
	argv[argc++] = prog;
	if (ctx->root) {
		argv[argc++] = (char *)"--root";
		argv[argc++] = (char *)ctx->root;
	}
	argv[argc++] = (char *)"--confdir";
	argv[argc++] = (char *)ctx->confdir;
	argv[argc++] = (char *)"prepare";
	argv[argc++] = (char *)"--modules-only";
	argv[argc++] = (char *)"--container";
	argv[argc++] = (char *)name;
	argv[argc] = NULL;
	/* Its output comes back through us: it never holds LXC's pipe to this hook. */
	r = gp_child_start(&c, &o, gp_child_exec, argv);
	if (r < 0) {
		gp_error("Failed to run \"%s\": %s", prog, gp_strerror(-r));
		return -EIO;
	}
	gp_child_wait(&c);
	gp_escape_fputs(c.out, stdout);
	if (c.timed_out)
		gp_error("\"%s prepare\" did not finish within %d s", prog,
			 PREPARE_TIMEOUT_MS / 1000);
	/* Its exit code as its result: GP_EXIT_PROBLEM is the policy's refusal (exitcode.h). */
	r = c.reaped && !c.timed_out ? gp_exit_result(c.exit_code) : -EIO;
	gp_child_free(&c);
	return r;
}

int gp_hook_uvm(const struct gp_ctx *ctx, const char *name, const struct gp_ini *conf,
		struct gp_host *host, unsigned int parts)
{
	const char *root = ctx->root;
	struct gp_uvm_plan plan;
	char text[160];
	int r;

	plan_modules_at_start(root, conf, host, &plan);
	if (plan.n == 0)
		return gp_uvm_check_conflict(&plan);
	for (size_t i = 0; i < plan.n; i++) {
		gp_mod_action_text(&plan.act[i], text, sizeof(text));
		gp_info("the [uvm] policy needs: %s", text);
	}
	r = run_prepare(ctx, name);
	if (r < 0)
		return r;
	/* Modules were loaded: majors and nodes may be new. */
	gp_host_free(host);
	r = gp_host_read(root, parts, host);
	if (r < 0)
		return r;
	plan_modules_at_start(root, conf, host, &plan);
	if (plan.n == 0 && plan.status == GP_UVM_OK)
		return 0;
	gp_error("nvidia_uvm is still not as the [uvm] policy wants (disable_hmm = %s)%s",
		 gp_hmm_policy_name(conf->disable_hmm),
		 root ? ": under --root modules are not loaded, only planned" : "");
	return -GP_EREFUSED;
}
