/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A running container stopped and started again (gpu-provision sync --restart), by LXC's or
 * Proxmox VE's own tools run through the child runner (base/child.h): a new session, a
 * cleared environment, no descriptor of ours, a deadline that holds whatever the container
 * does, and the end of what they said shown escaped.
 */
#include <stdio.h>

#include "base/child.h"
#include "base/ctx.h"
#include "base/escape.h"
#include "base/util.h"
#include "ops/cycle.h"

/* What a tool may print, and how long it may take beyond the shutdown's own time. */
#define TOOL_OUTPUT_MAX (64 * 1024)
#define MARGIN_S 120

/* argv (no shell; found on PATH) run to its end within deadline_s: 0, or -errno said. */
static int run_tool(char *const argv[], unsigned int deadline_s, const char *what)
{
	const struct gp_child_opts o = { .timeout_ms = (int)deadline_s * 1000,
					 .output_max = TOOL_OUTPUT_MAX,
					 .merge_stderr = true };
	struct gp_child c;
	int r = gp_child_start(&c, &o, gp_child_exec, (void *)argv);

	if (r < 0)
		return gp_error_errno(r, "Failed to run %s", argv[0]);
	r = gp_child_wait(&c);
	if (r < 0) {
		gp_error("%s failed%s", what, c.timed_out ? " (it did not finish in time)" : ":");
		if (c.out_len)
			gp_escape_fputs(c.out, stderr);
	}
	gp_child_free(&c);
	return r;
}

static int pct_reboot(const char *name, const char *seconds, unsigned int timeout_s)
{
	char *argv[] = { (char *)"pct",	      (char *)"reboot", (char *)name,
			 (char *)"--timeout", (char *)seconds,	NULL };

	return run_tool(argv, timeout_s + MARGIN_S, "pct reboot");
}

/* tool -n NAME [-P LXCPATH] then extra (NULL-ended) into argv, which holds 8. */
static void lxc_argv(const struct gp_ctx *ctx, const char *tool, const char *name,
		     char *const extra[], char *argv[8])
{
	size_t i = 0;

	argv[i++] = (char *)tool;
	argv[i++] = (char *)"-n";
	argv[i++] = (char *)name;
	if (ctx->lxcpath) {
		argv[i++] = (char *)"-P";
		argv[i++] = (char *)ctx->lxcpath;
	}
	while (*extra && i < 7)
		argv[i++] = *extra++;
	argv[i] = NULL;
}

/* lxc-stop: a clean shutdown of at most timeout_s, then a kill; lxc-start: until RUNNING. */
static int lxc_cycle(const struct gp_ctx *ctx, const char *name, const char *seconds,
		     unsigned int timeout_s)
{
	char *const wait[] = { (char *)"-t", (char *)seconds, NULL }, *const none[] = { NULL };
	char *argv[8];
	int r;

	lxc_argv(ctx, "lxc-stop", name, wait, argv);
	r = run_tool(argv, timeout_s + MARGIN_S, "lxc-stop");
	if (r < 0)
		return r;
	lxc_argv(ctx, "lxc-start", name, none, argv);
	r = run_tool(argv, MARGIN_S, "lxc-start");
	if (r < 0)
		gp_error("%s stopped but did not start again: lxc-start -n %s -F -l DEBUG says why",
			 name, name);
	return r;
}

int gp_cycle_container(const struct gp_ctx *ctx, const char *name, unsigned int timeout_s)
{
	char seconds[16];

	snprintf(seconds, sizeof(seconds), "%u", timeout_s);
	return ctx->pve && !ctx->root ? pct_reboot(name, seconds, timeout_s)
				      : lxc_cycle(ctx, name, seconds, timeout_s);
}
