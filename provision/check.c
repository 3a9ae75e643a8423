/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision check [NAME|--all]: host, configs and running containers, as findings. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/child.h"
#include "base/ctx.h"
#include "base/escape.h"
#include "base/exitcode.h"
#include "base/paths.h"
#include "base/util.h"
#include "check/check.h"
#include "checkreport.h"
#include "cluster/cluster.h"
#include "commands.h"
#include "config/ini.h"
#include "diagnose/nestedrun.h"
#include "diagnose/probejson.h"
#include "driver/nvml.h"
#include "ops/containers.h"
#include "ops/target.h"
#include "cluster/checkcluster.h"

#define MAX_PARALLEL_PROBES 4
_Static_assert(MAX_PARALLEL_PROBES <= GP_CHILDREN_MAX, "gp_children_step takes them all");

/* The probe's deadline as probe itself takes it: --timeout, the ini, the host's default. */
static int probe_timeout_ms(const struct gp_cli *cli, const char *name)
{
	struct gp_log_capture quiet; /* a refused file is an ini-invalid finding already */
	struct gp_ini conf, host;
	int r;

	if (cli->timeout)
		return (int)cli->timeout * 1000;
	gp_log_capture_start(&quiet);
	if (gp_hostconf_load(&cli->ctx, &host) < 0)
		gp_ini_init(&host);
	r = gp_ini_load(&cli->ctx, name, &conf);
	gp_log_capture_stop(&quiet);
	if (r < 0)
		return (int)host.probe_timeout * 1000;
	gp_ini_merge_host(&conf, &host);
	return (int)conf.probe_timeout * 1000;
}

static void probe_output_finding(struct gp_check_subject *s, const char *why)
{
	struct gp_finding *x = gp_findings_add(&s->f, GP_FINDING_PROBE_OUTPUT);

	snprintf(s->probe, sizeof(s->probe), "failed");
	if (!x)
		return;
	GP_SET(x->summary, "the probe of %s gave no usable report", s->name);
	GP_SET(x->evidence, "%s", why);
	GP_SET(x->fix, "run gpu-provision probe %s for its own messages", s->name);
}

/* What the probe's child left: its report, or why there is none (its stderr escaped). */
static int take_report(struct gp_check_subject *s, char *why, size_t size)
{
	const struct gp_child *c = &s->child;
	char err[256];

	gp_escape(err, sizeof(err), c->err, c->err_len, false);
	if (c->timed_out) {
		snprintf(why, size, "gpu-provision probe did not end within %.0f s",
			 c->elapsed_ms / 1000);
		return -ETIMEDOUT;
	}
	if (c->truncated) {
		snprintf(why, size, "its report is longer than %u bytes", GP_PROBE_JSON_MAX);
		return -EFBIG;
	}
	if (c->out_len == 0) {
		snprintf(why, size, "no report (exit code %d, signal %d): %s", c->exit_code,
			 c->signal, err);
		return -ENODATA;
	}
	return gp_probe_json_take(c->out, c->out_len, s->probe, sizeof(s->probe), &s->f, &s->caps,
				  why, size);
}

/* Starts "gpu-provision probe NAME --json" in a child of lib/base/child.c. */
static int start_probe(const struct gp_cli *cli, struct gp_check_subject *s)
{
	/* The probe's own deadline, its NVML question after a hang, its start and report. */
	int timeout_ms = probe_timeout_ms(cli, s->name);
	/* --nested: and the second run that removes a nested container left behind. */
	int cleanup_ms = cli->nested ? GP_NESTED_CLEANUP_MS : 0;
	struct gp_child_opts o = { .timeout_ms =
				       timeout_ms + GP_NVML_TIMEOUT_MS + cleanup_ms + 5000,
				   .output_max = GP_PROBE_JSON_MAX,
				   .overflow_kills = true };
	char self[PATH_MAX], timeout[16];
	char *argv[20];
	int argc = 0;

	snprintf(timeout, sizeof(timeout), "%d", timeout_ms / 1000);
	gp_program_path("gpu-provision", GP_SBINDIR, self, sizeof(self));
	argv[argc++] = self;
	if (cli->ctx.root) {
		argv[argc++] = (char *)"--root";
		argv[argc++] = (char *)cli->ctx.root;
	}
	argv[argc++] = (char *)"--confdir";
	argv[argc++] = (char *)cli->ctx.confdir;
	if (cli->ctx.lxcpath) {
		argv[argc++] = (char *)"--lxcpath";
		argv[argc++] = (char *)cli->ctx.lxcpath;
	}
	argv[argc++] = (char *)"probe";
	argv[argc++] = s->name;
	argv[argc++] = (char *)"--json";
	if (cli->deep)
		argv[argc++] = (char *)"--deep";
	if (cli->nested) {
		argv[argc++] = (char *)"--nested";
		argv[argc++] = (char *)cli->nested;
	}
	if (cli->runtime) {
		argv[argc++] = (char *)"--runtime";
		argv[argc++] = (char *)cli->runtime;
	}
	argv[argc++] = (char *)"--timeout";
	argv[argc++] = timeout;
	argv[argc] = NULL;
	return gp_child_start(&s->child, &o, gp_child_exec, argv);
}

/* Joins the probe's verdict and findings into the container's; a bad report is a finding. */
static void finish_probe(struct gp_check_subject *s)
{
	char why[512];

	if (take_report(s, why, sizeof(why)) < 0)
		probe_output_finding(s, why);
	gp_child_free(&s->child);
}

/* Probes the running containers, at most MAX_PARALLEL_PROBES at once. */
static void probe_all(const struct gp_cli *cli, struct gp_check_subject *subj, int n)
{
	struct gp_child *active[MAX_PARALLEL_PROBES];
	int idx[MAX_PARALLEL_PROBES], nactive = 0, next = 0;

	for (;;) {
		while (nactive < MAX_PARALLEL_PROBES && next < n) {
			struct gp_check_subject *s = &subj[next++];

			if (!s->running)
				continue;
			if (start_probe(cli, s) < 0) {
				probe_output_finding(s, "the probe could not be started");
				continue;
			}
			active[nactive] = &s->child;
			idx[nactive++] = next - 1;
		}
		if (nactive == 0)
			return;
		gp_children_step(active, (size_t)nactive, -1);
		for (int i = 0; i < nactive; i++) {
			if (!active[i]->done)
				continue;
			finish_probe(&subj[idx[i]]);
			active[i] = active[--nactive];
			idx[i] = idx[nactive];
			i--;
		}
	}
}

static bool listed(char **list, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

/* --all: the containers with an ini, then those whose config gives GPUs by hand. */
static int names_all(const struct gp_cli *cli, const struct gp_check_run *run, char ***list)
{
	char **every = NULL, **grown;
	int n = gp_containers_with_gpus(&cli->ctx, list), m;

	if (n < 0)
		return n;
	m = gp_containers_all(run->ctx, &every);
	for (int i = 0; i < m; i++) {
		if (listed(*list, n, every[i]) || !gp_check_has_gpus(run, every[i]))
			continue;
		grown = realloc(*list, (size_t)(n + 2) * sizeof(char *));
		if (!grown)
			break;
		*list = grown;
		(*list)[n++] = every[i];
		(*list)[n] = NULL;
		every[i] = NULL;
	}
	gp_containers_free(every, m);
	return n;
}

static int names(const struct gp_cli *cli, const struct gp_check_run *run, char ***list)
{
	if (cli->all)
		return names_all(cli, run, list);
	if (cli->nargs < 2) {
		*list = NULL;
		return 0;
	}
	*list = calloc(2, sizeof(char *));
	if (!*list || !((*list)[0] = strdup(cli->args[1])))
		return -ENOMEM;
	return 1;
}

/* Checks each container in list; a container named on the command line must exist. */
static int check_containers(const struct gp_cli *cli, const struct gp_check_run *run, char **list,
			    struct gp_check_subject *subj, int n)
{
	for (int i = 0; i < n; i++) {
		snprintf(subj[i].name, sizeof(subj[i].name), "%s", list[i]);
		if (gp_check_container(run, list[i], &subj[i].f) == -ENOENT && !cli->all) {
			gp_error("check %s: no such container; see gpu-provision list, or lxc-ls "
				 "/ pct list",
				 list[i]);
			return -ENOENT;
		}
		if (run->ctx->pve)
			gp_check_ini_node_local(run, list[i], &subj[i].f);
		subj[i].running = gp_container_running(list[i], cli->ctx.lxcpath);
	}
	probe_all(cli, subj, n);
	return 0;
}

/* The exit code for report's return (errors found, or -errno when --output failed). */
static int exit_code(int report, bool listing_failed)
{
	if (report < 0 || listing_failed)
		return GP_EXIT_FAILED;
	return report > 0 ? GP_EXIT_PROBLEM : GP_EXIT_OK;
}

/*
 * On a Proxmox VE node: every node's published GPUs and where each GPU container of the
 * cluster could start (check NAME: that one). NULL elsewhere, or when it cannot be read
 * (said): the rest of the report stands.
 */
static struct gp_cluster_check *check_cluster(const struct gp_cli *cli,
					      const struct gp_check_run *run)
{
	struct gp_cluster_check *cc = run->ctx->pve ? calloc(1, sizeof(*cc)) : NULL;

	if (cc && gp_check_cluster(run, cli->nargs == 2 ? cli->args[1] : NULL, cc) < 0) {
		gp_check_cluster_free(cc);
		free(cc);
		cc = NULL;
	}
	return cc;
}

/* --nested and --runtime as probe takes them, refused here before any probe starts. */
static bool nested_options_bad(const struct gp_cli *cli)
{
	enum gp_nested_runtime rt;

	if (cli->runtime && (!cli->nested || gp_nested_runtime_parse(cli->runtime, &rt) < 0)) {
		gp_error("--runtime \"%s\": podman or docker, with --nested IMAGE", cli->runtime);
		return true;
	}
	if (cli->nested && !gp_nested_image_is_valid(cli->nested)) {
		gp_error("--nested \"%s\": an image reference (letters, digits, ._-/:@, not "
			 "starting with -)",
			 cli->nested);
		return true;
	}
	return false;
}

int gp_cmd_check(const struct gp_cli *cli)
{
	struct gp_check_run run;
	struct gp_findings *host = calloc(1, sizeof(*host));
	struct gp_check_subject *subj = NULL;
	struct gp_cluster_check *cluster = NULL;
	char **list = NULL;
	int n = 0, ret = GP_EXIT_FAILED;

	if ((cli->all && cli->nargs != 1) || cli->nargs > 2 ||
	    (cli->nargs == 2 && !gp_name_is_valid(cli->args[1]))) {
		gp_error(
		    "usage: gpu-provision check [NAME | --all] [--deep] [--nested IMAGE "
		    "[--runtime podman|docker]] [--json | --format prometheus] [--output FILE]");
		free(host);
		return GP_EXIT_USAGE;
	}
	if (nested_options_bad(cli)) {
		free(host);
		return GP_EXIT_USAGE;
	}
	if (!host || gp_check_run_init(&run, &cli->ctx, &cli->rt) < 0) {
		free(host);
		return GP_EXIT_FAILED;
	}
	gp_check_host(&run, host);
	cluster = check_cluster(cli, &run);
	n = names(cli, &run, &list);
	if (n < 0) /* the host is still reported; the exit says what failed */
		gp_error_errno(n, "Failed to list the containers with an ini in \"%s\"",
			       cli->ctx.confdir);
	subj = calloc(n > 0 ? (size_t)n : 1, sizeof(*subj));
	if (subj && check_containers(cli, &run, list, subj, n > 0 ? n : 0) < 0)
		ret = GP_EXIT_USAGE;
	else if (subj)
		ret = exit_code(gp_check_report(cli, host, subj, n > 0 ? n : 0, cluster), n < 0);
	gp_containers_free(list, n);
	if (cluster)
		gp_check_cluster_free(cluster);
	free(cluster);
	gp_check_run_free(&run);
	for (int i = 0; subj && i < n; i++)
		free(subj[i].caps.v);
	free(subj);
	free(host);
	return ret;
}
