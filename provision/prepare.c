/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "commands.h"
#include "prepare.h"
#include "util.h"

int gp_cmd_prepare(const struct gp_cli *cli)
{
	struct gp_prepare_opts o = {
		.root = cli->root,
		.confdir = cli->confdir,
		.container = cli->container,
		.dry_run = cli->dry_run,
		.persist = cli->persist,
		.modules_only = cli->modules_only,
		.nvml = true,
	};
	int r;

	if (cli->nargs != 1) {
		gp_error(
		    "usage: gpu-provision prepare [--persist] [--container NAME] [--modules-only]");
		return 2;
	}
	if (o.container && !gp_name_is_valid(o.container)) {
		gp_error("\"%s\" is not a container name gpu-provision accepts", o.container);
		return 2;
	}
	r = gp_prepare(&o);
	return r == 0 ? 0 : r == -EPERM ? 1 : r == -EINVAL ? 2 : 3;
}
