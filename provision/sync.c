/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-provision sync NAME|--all [--restart]: rules and plans for today's majors and GPUs;
 * with --restart, each running container whose injected driver the host has replaced since
 * its start is restarted, one by one.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/exitcode.h"
#include "base/paths.h"
#include "base/util.h"
#include "commands.h"
#include "ops/attach.h"
#include "check/restart.h"
#include "ops/containers.h"
#include "ops/cycle.h"

/* How long a container may take to shut down before it is stopped, without --timeout. */
#define SHUTDOWN_S 30

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

static const char *why(const struct gp_restart *r, const struct gp_host *host)
{
	static char buf[192];

	if (r->need == GP_RESTART_VERSION)
		snprintf(buf, sizeof(buf), "it runs driver %s, the module is %s", r->injected,
			 host->version);
	else
		snprintf(buf, sizeof(buf), "the host replaced %zu of its driver files",
			 r->replaced);
	return buf;
}

/* --restart: restarted where the host's driver is no longer the one it runs; 0 or -errno. */
static int restart_one(const struct gp_cli *cli, const struct gp_restart_host *h, const char *name)
{
	struct gp_restart r;
	int ret;

	gp_restart_judge_container(&cli->ctx, h, name, &r);
	if (r.need == GP_RESTART_NONE)
		return 0;
	if (r.need == GP_RESTART_REBOOT_FIRST) {
		printf("%s: not restarted: it runs driver %s, the host's files are %s's and the "
		       "module %s's; its start is refused until the host reboots\n",
		       name, r.injected, r.userspace[0] ? r.userspace : "another version",
		       h->host.version);
		return -EAGAIN;
	}
	if (cli->dry_run) {
		printf("%s: would restart: %s\n", name, why(&r, &h->host));
		return 0;
	}
	printf("%s: restarting: %s\n", name, why(&r, &h->host));
	fflush(stdout);
	ret = gp_cycle_container(&cli->ctx, name, cli->timeout ? cli->timeout : SHUTDOWN_S);
	if (ret == 0)
		printf("%s: restarted on driver %s\n", name, h->host.version);
	return ret;
}

static int sync_and_restart(const struct gp_cli *cli, const char *hook,
			    const struct gp_restart_host *h, const char *name)
{
	int r = sync_one(cli, hook, name);

	return r == 0 && cli->restart ? restart_one(cli, h, name) : r;
}

int gp_cmd_sync(const struct gp_cli *cli)
{
	_cleanup_free_ struct gp_restart_host *h = calloc(1, sizeof(*h));
	char hook[PATH_MAX];
	char **names = NULL;
	int n, worst = 0;

	if ((cli->all && cli->nargs != 1) || (!cli->all && cli->nargs != 2)) {
		gp_error("usage: gpu-provision sync NAME | --all [--restart]");
		return GP_EXIT_USAGE;
	}
	if (!h)
		return GP_EXIT_FAILED;
	if (!cli->all && !gp_name_is_valid(cli->args[1])) {
		gp_error("\"%s\" is not a container name gpu-provision accepts", cli->args[1]);
		return GP_EXIT_USAGE;
	}
	if (gp_program_path("gpu-hook", GP_LIBEXECDIR, hook, sizeof(hook)) < 0) {
		gp_error("gpu-hook is neither beside gpu-provision nor in %s", GP_LIBEXECDIR);
		return GP_EXIT_FAILED;
	}
	if (cli->restart)
		gp_restart_host_read(&cli->ctx, h);
	if (!cli->all) {
		worst =
		    sync_and_restart(cli, hook, h, cli->args[1]) < 0 ? GP_EXIT_FAILED : GP_EXIT_OK;
		gp_restart_host_free(h);
		return worst;
	}
	n = gp_containers_with_gpus(&cli->ctx, &names);
	if (n < 0) {
		gp_error("Failed to list \"%s\": %s", cli->ctx.confdir, gp_strerror(-n));
		gp_restart_host_free(h);
		return GP_EXIT_FAILED;
	}
	if (n == 0)
		printf("no container has GPUs here (no *.ini in %s)\n", cli->ctx.confdir);
	for (int i = 0; i < n; i++)
		if (sync_and_restart(cli, hook, h, names[i]) < 0)
			worst = GP_EXIT_FAILED;
	gp_containers_free(names, n);
	gp_restart_host_free(h);
	return worst;
}
