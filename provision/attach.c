/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/exitcode.h"
#include "base/paths.h"
#include "base/util.h"
#include "commands.h"
#include "ops/attach.h"

/* gpu-hook beside this binary (a build tree), else the installed one. */
static int find_hook(char *out, size_t size)
{
	if (gp_program_path("gpu-hook", GP_LIBEXECDIR, out, size) == 0)
		return 0;
	gp_error("gpu-hook is neither beside gpu-provision nor in %s: run make install",
		 GP_LIBEXECDIR);
	return -ENOENT;
}

static int attach_opts_of_cli(const struct gp_cli *cli, const char *verb, struct gp_attach_opts *o,
			      char *hook, size_t size)
{
	if (cli->nargs != 2) {
		gp_error("usage: gpu-provision %s NAME%s", verb,
			 strcmp(verb, "detach") != 0 ? " [--gpus SEL] [--caps CAPS]" : "");
		return -GP_EBADCONF;
	}
	if (!gp_name_is_valid(cli->args[1])) {
		gp_error("\"%s\" is not a container name gpu-provision accepts", cli->args[1]);
		return -GP_EBADCONF;
	}
	if (cli->ctx.confdir[0] != '/') {
		gp_error("--confdir must be an absolute path");
		return -GP_EBADCONF;
	}
	gp_cli_attach_opts(cli, cli->args[1], hook, o);
	return find_hook(hook, size) < 0 ? -ENOENT : 0;
}

void gp_cli_attach_opts(const struct gp_cli *cli, const char *name, const char *hook,
			struct gp_attach_opts *o)
{
	*o = (struct gp_attach_opts){ .ctx = &cli->ctx,
				      .rt = &cli->rt,
				      .name = name,
				      .gpus = cli->gpus,
				      .caps = cli->caps,
				      .hook = hook,
				      .mode = cli->mode,
				      .inject = cli->inject	 ? 1
						: cli->no_inject ? -1
								 : 0,
				      .capabilities = cli->capabilities,
				      .nesting = cli->nesting	   ? 1
						 : cli->no_nesting ? -1
								   : 0,
				      .dry_run = cli->dry_run };
}

static int check_attach_options(const struct gp_cli *cli)
{
	if (cli->mode && strcmp(cli->mode, "hook") && strcmp(cli->mode, "devn")) {
		gp_error("--mode \"%s\": use hook or devn", cli->mode);
		return GP_EXIT_USAGE;
	}
	if (cli->inject && cli->no_inject) {
		gp_error("--inject and --no-inject: give one");
		return GP_EXIT_USAGE;
	}
	if (cli->nesting && cli->no_nesting) {
		gp_error("--nesting and --no-nesting: give one");
		return GP_EXIT_USAGE;
	}
	if (cli->caps && !cli->gpus) {
		gp_error("--caps needs --gpus too");
		return GP_EXIT_USAGE;
	}
	return 0;
}

/* attach and adopt: the same options, checked alike; adopt also takes a recipe's lines. */
static int attach_or_adopt(const struct gp_cli *cli, const char *verb, bool adopt)
{
	struct gp_attach_opts o;
	char hook[PATH_MAX];
	int r = attach_opts_of_cli(cli, verb, &o, hook, sizeof(hook));

	if (r < 0)
		return gp_exit_code(r);
	r = check_attach_options(cli);
	if (r)
		return r;
	return gp_exit_code(adopt ? gp_adopt(&o) : gp_attach(&o, NULL));
}

int gp_cmd_attach(const struct gp_cli *cli)
{
	return attach_or_adopt(cli, "attach", false);
}

int gp_cmd_adopt(const struct gp_cli *cli)
{
	return attach_or_adopt(cli, "adopt", true);
}

int gp_cmd_detach(const struct gp_cli *cli)
{
	struct gp_attach_opts o;
	char hook[PATH_MAX];
	int r = attach_opts_of_cli(cli, "detach", &o, hook, sizeof(hook));

	if (r < 0)
		return gp_exit_code(r);
	return gp_exit_code(gp_detach(&o));
}
