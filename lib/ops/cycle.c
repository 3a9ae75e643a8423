/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A running container stopped and started again (gpu-provision sync --restart). */
#include <errno.h>
#include <lxc/lxccontainer.h>
#include <stdio.h>

#include "base/child.h"
#include "base/ctx.h"
#include "base/escape.h"
#include "base/util.h"
#include "ops/cycle.h"

/* What pct may print, and how long its reboot may take beyond the shutdown's own time. */
#define PCT_OUTPUT_MAX (64 * 1024)
#define PCT_MARGIN_S 120
/* How long a started container has to be RUNNING. */
#define START_WAIT_S 60

static int pct_reboot(const char *name, unsigned int timeout_s)
{
	struct gp_child_opts o = { .timeout_ms = (int)(timeout_s + PCT_MARGIN_S) * 1000,
				   .output_max = PCT_OUTPUT_MAX,
				   .merge_stderr = true };
	char seconds[16];
	char *argv[] = { (char *)"pct",	      (char *)"reboot", (char *)name,
			 (char *)"--timeout", seconds,		NULL };
	struct gp_child c;
	int r;

	snprintf(seconds, sizeof(seconds), "%u", timeout_s);
	r = gp_child_start(&c, &o, gp_child_exec, argv);
	if (r < 0)
		return gp_error_errno(r, "Failed to run pct reboot %s", name);
	r = gp_child_wait(&c);
	if (r < 0) {
		gp_error("pct reboot %s failed%s", name,
			 c.timed_out ? " (it did not finish)" : ":");
		if (c.out_len)
			gp_escape_fputs(c.out, stderr);
	}
	gp_child_free(&c);
	return r;
}

static int lxc_cycle(const struct gp_ctx *ctx, const char *name, unsigned int timeout_s)
{
	struct lxc_container *c = lxc_container_new(name, ctx->lxcpath);
	int r = 0;

	if (!c)
		return gp_error_errno(-ENOMEM, "Failed to open container %s", name);
	if (!c->shutdown(c, (int)timeout_s) && !c->stop(c)) {
		gp_error("Failed to stop %s", name);
		r = -EIO;
	} else if (!c->start(c, 0, NULL) || !c->wait(c, "RUNNING", START_WAIT_S)) {
		gp_error("%s stopped but did not start again: lxc-start -n %s -F -l DEBUG says why",
			 name, name);
		r = -EIO;
	}
	lxc_container_put(c);
	return r;
}

int gp_cycle_container(const struct gp_ctx *ctx, const char *name, unsigned int timeout_s)
{
	return ctx->pve && !ctx->root ? pct_reboot(name, timeout_s)
				      : lxc_cycle(ctx, name, timeout_s);
}
