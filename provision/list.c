/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision list: containers with GPUs, their GPUs, mode, state and last probe. */
#include <json-c/json.h>
#include <lxc/lxccontainer.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/escape.h"
#include "base/exitcode.h"
#include "base/paths.h"
#include "base/util.h"
#include "check/restart.h"
#include "cluster/cluster.h"
#include "commands.h"
#include "config/ini.h"
#include "diagnose/verdict.h"
#include "ops/containers.h"
#include "plan/alloc.h"
#include "cluster/rrd.h"

struct row {
	char name[65];
	char devices[2100];
	char mode[16];
	char state[16];
	char verdict[48];
	char deep[256]; /* the last --deep's "compute=ok,...", or "" */
	enum gp_restart_need restart;
};

static void container_state(const struct gp_cli *cli, const char *name, char *out, size_t size)
{
	struct lxc_container *c = lxc_container_new(name, cli->ctx.lxcpath);

	snprintf(out, size, "%s", c && c->is_defined(c) ? c->state(c) : "MISSING");
	if (c)
		lxc_container_put(c);
}

/* A running portable selection: the GPUs its start got, by index ("any:2 (0,3)"). */
static void add_given(const struct gp_cli *cli, const char *name, struct row *r)
{
	_cleanup_free_ struct gp_plan *plan = malloc(sizeof(*plan));
	size_t len = strlen(r->devices);

	if (!plan || gp_alloc_read_plan(cli->ctx.root, name, plan) < 0 || plan->ngpus == 0 ||
	    !gp_alloc_owner_alive(plan))
		return;
	for (size_t i = 0; i < plan->ngpus && len < sizeof(r->devices); i++)
		len += (size_t)snprintf(r->devices + len, sizeof(r->devices) - len, "%s%u",
					i ? "," : " (", plan->gpus[i].index);
	if (len < sizeof(r->devices))
		snprintf(r->devices + len, sizeof(r->devices) - len, ")");
}

static void list_row(const struct gp_cli *cli, const struct gp_restart_host *h, const char *name,
		     struct row *r)
{
	bool pve = cli->ctx.pve;
	struct gp_ini conf;
	bool portable = false, loaded = gp_ini_load(&cli->ctx, name, &conf) == 0;
	struct gp_verdict v;

	snprintf(r->name, sizeof(r->name), "%s", name);
	if (loaded) {
		snprintf(r->devices, sizeof(r->devices), "%s%s%s", conf.devices,
			 conf.caps[0] ? " caps " : "", conf.caps);
		snprintf(r->mode, sizeof(r->mode), "%s-%s", pve ? "pve" : "lxc",
			 conf.mode[0] ? conf.mode : "hook");
		portable = gp_selection_is_portable(conf.devices);
	} else {
		snprintf(r->devices, sizeof(r->devices), "(bad ini)");
		snprintf(r->mode, sizeof(r->mode), "?");
	}
	container_state(cli, name, r->state, sizeof(r->state));
	r->restart = GP_RESTART_NONE;
	if (strcmp(r->state, "RUNNING") == 0 && loaded && h->read) {
		struct gp_restart judged;

		gp_ini_merge_host(&conf, &h->defaults); /* after the row's devices and mode */
		gp_restart_judge(&cli->ctx, &h->host, name, &conf, &judged);
		r->restart = judged.need;
	}
	if (portable && strcmp(r->state, "RUNNING") == 0)
		add_given(cli, name, r);
	r->deep[0] = '\0';
	if (gp_verdict_load(cli->ctx.root, name, &v) == 0) {
		snprintf(r->verdict, sizeof(r->verdict), "%s, %ld min ago", v.status,
			 ((long)time(NULL) - v.when) / 60);
		snprintf(r->deep, sizeof(r->deep), "%s", v.deep);
	} else {
		snprintf(r->verdict, sizeof(r->verdict), "never probed");
	}
}

/* The last --deep's verdicts as an object: {"compute": "ok", ...}. */
static struct json_object *deep_json(const char *summary)
{
	struct json_object *o = json_object_new_object();
	char copy[256], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", summary);
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(w, '=');

		if (eq) {
			*eq = '\0';
			json_object_object_add(o, w, json_object_new_string(eq + 1));
		}
	}
	return o;
}

/* For people: "deep ok", or the capabilities that were not ok ("nvenc unsupported"). */
static void deep_text(const char *summary, char *buf, size_t size)
{
	char copy[256], *save = NULL;
	size_t len = 0;

	snprintf(copy, sizeof(copy), "%s", summary);
	buf[0] = '\0';
	for (char *w = strtok_r(copy, ",", &save); w && len < size;
	     w = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(w, '=');

		if (eq && strcmp(eq + 1, "ok") != 0) {
			*eq = ' ';
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
						len ? ", " : "; deep: ", w);
		}
	}
	if (!len)
		snprintf(buf, size, "; deep: all ok");
}

static struct json_object *row_json(const struct row *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(r->name));
	json_object_object_add(o, "gpus", json_object_new_string(r->devices));
	json_object_object_add(o, "mode", json_object_new_string(r->mode));
	json_object_object_add(o, "state", json_object_new_string(r->state));
	json_object_object_add(o, "probe", json_object_new_string(r->verdict));
	json_object_object_add(o, "deep", r->deep[0] ? deep_json(r->deep) : NULL);
	json_object_object_add(o, "restart",
			       json_object_new_string(gp_restart_need_name(r->restart)));
	return o;
}

/*
 * An ini's devices and caps for a terminal: on Proxmox VE the ini is the cluster's, which
 * any node may write, so it is escaped as check escapes it. (JSON escapes its own.)
 */
static void escape_devices(const char *devices, char *out, size_t size)
{
	gp_escape(out, size, devices, strlen(devices), false);
}

/* The day after a driver update: what the row's container needs, for people. */
static const char *restart_text(enum gp_restart_need need)
{
	switch (need) {
	case GP_RESTART_REPLACED:
		return "; restart: the host replaced its driver files";
	case GP_RESTART_VERSION:
		return "; restart: its driver is not the loaded module's";
	case GP_RESTART_REBOOT_FIRST:
		return "; reboot the host first: its driver files were replaced";
	default:
		return "";
	}
}

static void print_row(const struct row *r)
{
	char deep[320] = "", devices[4 * sizeof(r->devices)];

	if (r->deep[0])
		deep_text(r->deep, deep, sizeof(deep));
	escape_devices(r->devices, devices, sizeof(devices));
	printf("%-12s %-28s %-9s %-8s %s%s%s\n", r->name, devices, r->mode, r->state, r->verdict,
	       deep, restart_text(r->restart));
}

/* --cluster: one row per GPU container of the cluster, with its node. */
struct cluster_row {
	const char *node;
	const char *name;
	char devices[2100];
	char state[16];
	const char *from; /* "liblxc", "rrd", or NULL when unknown */
};

/*
 * A container's state: on this node liblxc's (as list has it); elsewhere, or where liblxc
 * does not know it, what pvestatd last shared in /etc/pve/.rrd; "unknown" where that is
 * missing or stale.
 */
static void cluster_state(const struct gp_cli *cli, const struct gp_cluster *c,
			  const struct gp_cluster_ct *ct, const char *rrd, size_t rrd_len,
			  struct cluster_row *r)
{
	if (strcmp(ct->node, c->self) == 0) {
		container_state(cli, ct->id, r->state, sizeof(r->state));
		r->from = "liblxc";
		if (strcmp(r->state, "MISSING") != 0)
			return;
	}
	r->from = "rrd";
	if (!rrd ||
	    gp_rrd_state(rrd, rrd_len, ct->id, (long)time(NULL), r->state, sizeof(r->state)) < 0) {
		snprintf(r->state, sizeof(r->state), "unknown");
		r->from = NULL;
	}
}

static void cluster_row(const struct gp_cli *cli, const struct gp_cluster *c,
			const struct gp_cluster_ct *ct, const char *rrd, size_t rrd_len,
			struct cluster_row *r)
{
	r->node = ct->node;
	r->name = ct->id;
	if (ct->ini_status == 0)
		snprintf(r->devices, sizeof(r->devices), "%s%s%s", ct->conf.devices,
			 ct->conf.caps[0] ? " caps " : "", ct->conf.caps);
	else
		snprintf(r->devices, sizeof(r->devices), "(bad ini)");
	cluster_state(cli, c, ct, rrd, rrd_len, r);
}

static struct json_object *cluster_row_json(const struct cluster_row *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "node", json_object_new_string(r->node));
	json_object_object_add(o, "name", json_object_new_string(r->name));
	json_object_object_add(o, "gpus", json_object_new_string(r->devices));
	json_object_object_add(o, "state", json_object_new_string(r->state));
	json_object_object_add(o, "state_from", r->from ? json_object_new_string(r->from) : NULL);
	return o;
}

static void print_cluster_row(const struct cluster_row *r)
{
	char devices[4 * sizeof(r->devices)];

	escape_devices(r->devices, devices, sizeof(devices));
	printf("%-12s %-12s %-28s %s\n", r->node, r->name, devices, r->state);
}

static int list_cluster(const struct gp_cli *cli)
{
	struct json_object *arr = json_object_new_array();
	_cleanup_free_ char *rrd = NULL;
	struct gp_cluster c;
	size_t rrd_len = 0;
	int r = gp_cluster_read(&cli->ctx, &c);

	if (r < 0) {
		if (r == -ENOENT)
			gp_error("list --cluster: this is no Proxmox VE node (no /etc/pve/local)");
		json_object_put(arr);
		return r == -ENOENT ? GP_EXIT_USAGE : GP_EXIT_FAILED;
	}
	/* A node without pvestatd's data (none yet, or no pmxcfs) shows "unknown" states. */
	if (gp_read_file_at(cli->ctx.root, GP_PVE_RRD_FILE, GP_RRD_MAX, &rrd, &rrd_len) < 0)
		rrd = NULL;
	if (!cli->json)
		printf("%-12s %-12s %-28s %s\n", "NODE", "NAME", "GPUS", "STATE");
	for (size_t i = 0; i < c.ncts; i++) {
		struct cluster_row row;

		cluster_row(cli, &c, &c.cts[i], rrd, rrd_len, &row);
		if (cli->json)
			json_object_array_add(arr, cluster_row_json(&row));
		else
			print_cluster_row(&row);
	}
	if (cli->json)
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY));
	json_object_put(arr);
	gp_cluster_free(&c);
	return GP_EXIT_OK;
}

int gp_cmd_list(const struct gp_cli *cli)
{
	_cleanup_free_ struct gp_restart_host *h = NULL;
	struct json_object *arr;
	char **names = NULL;
	int n;

	if (cli->cluster)
		return list_cluster(cli);
	arr = json_object_new_array();
	n = gp_containers_with_gpus(&cli->ctx, &names);
	if (n < 0) {
		gp_error("Failed to list \"%s\": %s", cli->ctx.confdir, gp_strerror(-n));
		json_object_put(arr);
		return GP_EXIT_FAILED;
	}
	if (!(h = calloc(1, sizeof(*h)))) {
		json_object_put(arr);
		gp_containers_free(names, n);
		return GP_EXIT_FAILED;
	}
	gp_restart_host_read(&cli->ctx, h);
	if (!cli->json)
		printf("%-12s %-28s %-9s %-8s %s\n", "NAME", "GPUS", "MODE", "STATE", "LAST PROBE");
	for (int i = 0; i < n; i++) {
		struct row r;

		list_row(cli, h, names[i], &r);
		if (cli->json)
			json_object_array_add(arr, row_json(&r));
		else
			print_row(&r);
	}
	if (cli->json)
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY));
	json_object_put(arr);
	gp_containers_free(names, n);
	gp_restart_host_free(h);
	return 0;
}
