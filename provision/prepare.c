/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "base/exitcode.h"
#include "base/util.h"
#include "commands.h"
#include "ops/prepare.h"

int gp_cmd_prepare(const struct gp_cli *cli)
{
	struct gp_prepare_opts o = {
		.ctx = &cli->ctx,
		.container = cli->container,
		.dry_run = cli->dry_run,
		.persist = cli->persist,
		.modules_only = cli->modules_only,
		.nvml = true,
	};
	if (cli->nargs != 1) {
		gp_error(
		    "usage: gpu-provision prepare [--persist] [--container NAME] [--modules-only]");
		return GP_EXIT_USAGE;
	}
	if (o.container && !gp_name_is_valid(o.container)) {
		gp_error("\"%s\" is not a container name gpu-provision accepts", o.container);
		return GP_EXIT_USAGE;
	}
	return gp_exit_code(gp_prepare(&o));
}
