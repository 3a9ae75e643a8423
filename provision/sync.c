/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision sync NAME|--all: rules and plans for today's majors and GPUs. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/exitcode.h"
#include "base/paths.h"
#include "base/util.h"
#include "commands.h"
#include "ops/attach.h"
#include "ops/containers.h"

static int sync_one(const struct gp_cli *cli, const char *hook, const char *name)
{
	struct gp_attach_opts o = { .ctx = &cli->ctx,
				    .rt = &cli->rt,
				    .name = name,
				    .hook = hook,
				    .dry_run = cli->dry_run,
				    .quiet = true };
	struct gp_attach_changes done;
	int r = gp_attach(&o, &done);

	if (r < 0) {
		printf("%s: failed (see above)\n", name);
		return r;
	}
	if (cli->dry_run)
		printf("%s: would take out %zu and put in %zu line(s)\n", name, done.removed,
		       done.added);
	else if (done.changed)
		printf("%s: updated, %zu line(s) out, %zu in (applies at the next start)\n", name,
		       done.removed, done.added);
	else
		printf("%s: already right\n", name);
	return 0;
}

int gp_cmd_sync(const struct gp_cli *cli)
{
	char hook[PATH_MAX];
	char **names = NULL;
	int n, worst = 0;

	if ((cli->all && cli->nargs != 1) || (!cli->all && cli->nargs != 2)) {
		gp_error("usage: gpu-provision sync NAME | --all");
		return GP_EXIT_USAGE;
	}
	if (!cli->all && !gp_name_is_valid(cli->args[1])) {
		gp_error("\"%s\" is not a container name gpu-provision accepts", cli->args[1]);
		return GP_EXIT_USAGE;
	}
	if (gp_program_path("gpu-hook", GP_LIBEXECDIR, hook, sizeof(hook)) < 0) {
		gp_error("gpu-hook is neither beside gpu-provision nor in %s", GP_LIBEXECDIR);
		return GP_EXIT_FAILED;
	}
	if (!cli->all)
		return sync_one(cli, hook, cli->args[1]) < 0 ? GP_EXIT_FAILED : GP_EXIT_OK;
	n = gp_containers_with_gpus(&cli->ctx, &names);
	if (n < 0) {
		gp_error("Failed to list \"%s\": %s", cli->ctx.confdir, gp_strerror(-n));
		return GP_EXIT_FAILED;
	}
	if (n == 0)
		printf("no container has GPUs here (no *.ini in %s)\n", cli->ctx.confdir);
	for (int i = 0; i < n; i++)
		if (sync_one(cli, hook, names[i]) < 0)
			worst = GP_EXIT_FAILED;
	gp_containers_free(names, n);
	return worst;
}
