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

static void why(const struct gp_restart *judged, const struct gp_host *host, char *out, size_t size)
{
	if (judged->need == GP_RESTART_VERSION)
		snprintf(out, size, "it runs driver %s, the module is %s", judged->injected,
			 host->version);
	else
		snprintf(out, size, "the host replaced %zu of its driver files", judged->replaced);
}

/* A start now would be refused: said, never attempted. */
static void say_refused(const struct gp_restart *judged, const struct gp_host *host,
			const char *name)
{
	if (judged->need == GP_RESTART_REBOOT_FIRST)
		printf("%s: not restarted: it runs driver %s, the host's files are %s's and the "
		       "module %s's; its start is refused until the host reboots\n",
		       name, judged->injected, judged->userspace, host->version);
	else
		printf("%s: not restarted: its start would be refused now (gpu-provision check %s "
		       "says why)\n",
		       name, name);
}

/*
 * --restart: restarted where the host's driver is no longer the one it runs. 0; -EAGAIN
 * where its start would be refused (left running); another -errno where its restart failed.
 */
static int restart_one(const struct gp_cli *cli, const struct gp_restart_host *h, const char *name)
{
	struct gp_restart judged;
	char reason[192];
	int r;

	gp_restart_judge_container(&cli->ctx, h, name, &judged);
	if (judged.need == GP_RESTART_NONE)
		return 0;
	if (judged.start_refused) {
		say_refused(&judged, &h->host, name);
		return -EAGAIN;
	}
	why(&judged, &h->host, reason, sizeof(reason));
	if (cli->dry_run) {
		printf("%s: would restart: %s\n", name, reason);
		return 0;
	}
	printf("%s: restarting: %s\n", name, reason);
	fflush(stdout);
	r = gp_cycle_container(&cli->ctx, name, cli->timeout ? cli->timeout : SHUTDOWN_S);
	if (r == 0)
		printf("%s: restarted on driver %s\n", name, h->host.version);
	return r;
}

static int sync_and_restart(const struct gp_cli *cli, const char *hook,
			    const struct gp_restart_host *h, const char *name)
{
	int r = sync_one(cli, hook, name);

	return r == 0 && cli->restart ? restart_one(cli, h, name) : r;
}

/* --all: each in turn; after a restart that failed, the rest are not tried (said). */
static int sync_all(const struct gp_cli *cli, const char *hook, const struct gp_restart_host *h)
{
	char **names = NULL;
	int n = gp_containers_with_gpus(&cli->ctx, &names), worst = GP_EXIT_OK;

	if (n < 0) {
		gp_error("Failed to list \"%s\": %s", cli->ctx.confdir, gp_strerror(-n));
		return GP_EXIT_FAILED;
	}
	if (n == 0)
		printf("no container has GPUs here (no *.ini in %s)\n", cli->ctx.confdir);
	for (int i = 0; i < n; i++) {
		int r = sync_and_restart(cli, hook, h, names[i]);

		if (r < 0)
			worst = GP_EXIT_FAILED;
		if (r < 0 && r != -EAGAIN && cli->restart && i + 1 < n) {
			gp_error("a restart failed: %d container(s) after %s not tried; find why, "
				 "then sync --all --restart again",
				 n - i - 1, names[i]);
			break;
		}
	}
	gp_containers_free(names, n);
	return worst;
}

int gp_cmd_sync(const struct gp_cli *cli)
{
	_cleanup_free_ struct gp_restart_host *h = calloc(1, sizeof(*h));
	char hook[PATH_MAX];
	int status;

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
	if (cli->restart) {
		gp_restart_host_read(&cli->ctx, h);
		if (!h->read) {
			gp_error("--restart: the host's driver or gpu-provision.conf could not be "
				 "read (gpu-provision check says why): nothing restarted");
			return GP_EXIT_FAILED;
		}
	}
	if (cli->all)
		status = sync_all(cli, hook, h);
	else
		status =
		    sync_and_restart(cli, hook, h, cli->args[1]) < 0 ? GP_EXIT_FAILED : GP_EXIT_OK;
	gp_restart_host_free(h);
	return status;
}
