/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision create: a new container with GPUs in one step. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/exitcode.h"
#include "base/paths.h"
#include "base/util.h"
#include "commands.h"
#include "ops/create.h"

int gp_cmd_create(const struct gp_cli *cli)
{
	char hook[PATH_MAX];
	struct gp_create_opts o = {
		.template_name = cli->template_name,
		.config_file = cli->config_file,
		.ostemplate = cli->ostemplate,
		.unprivileged = cli->unprivileged,
		.rootfs_dev = cli->rootfs_dev,
		.force = cli->force,
		.extra = cli->nargs > 2 ? cli->args + 2 : NULL,
	};
	int r;

	if (cli->nargs < 2 || !gp_name_is_valid(cli->args[1])) {
		gp_error("usage: gpu-provision create NAME --template T [--gpus SEL] [--caps C] "
			 "[--unprivileged] [--rootfs-dev PATH [--force]] [-- TEMPLATE-ARGS]\n"
			 "       gpu-provision create ID --ostemplate VOLID [--gpus SEL] [-- "
			 "PCT-OPTIONS]");
		return GP_EXIT_USAGE;
	}
	if ((cli->nesting || cli->no_nesting) && !cli->gpus) {
		gp_error("--nesting goes with --gpus: attach records it with the GPUs, and detach "
			 "takes it out");
		return GP_EXIT_USAGE;
	}
	if (gp_program_path("gpu-hook", GP_LIBEXECDIR, hook, sizeof(hook)) < 0) {
		gp_error("gpu-hook is neither beside gpu-provision nor in %s", GP_LIBEXECDIR);
		return GP_EXIT_FAILED;
	}
	gp_cli_attach_opts(cli, cli->args[1], hook, &o.attach);
	r = gp_create(&o);
	if (r == 0 && !cli->dry_run)
		printf("created %s%s\n", o.attach.name, o.attach.gpus ? " with GPUs" : "");
	return gp_exit_code(r);
}
