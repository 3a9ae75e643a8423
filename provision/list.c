/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision list: containers with GPUs, their GPUs, mode, state and last probe. */
#include <json-c/json.h>
#include <lxc/lxccontainer.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "exitcode.h"
#include "ctconf.h"
#include "inventory.h"
#include "target.h"
#include "util.h"

struct row {
	char name[65];
	char devices[2100];
	char mode[16];
	char state[16];
	char verdict[48];
};

static void container_state(const struct gp_cli *cli, const char *name, char *out, size_t size)
{
	struct lxc_container *c = lxc_container_new(name, cli->lxcpath);

	snprintf(out, size, "%s", c && c->is_defined(c) ? c->state(c) : "MISSING");
	if (c)
		lxc_container_put(c);
}

static void list_row(const struct gp_cli *cli, bool pve, const char *name, struct row *r)
{
	struct gp_ctconf conf;
	char status[16];
	long when;

	snprintf(r->name, sizeof(r->name), "%s", name);
	if (gp_ctconf_load(cli->confdir, name, &conf) == 0) {
		snprintf(r->devices, sizeof(r->devices), "%s%s%s", conf.devices,
			 conf.caps[0] ? " caps " : "", conf.caps);
		snprintf(r->mode, sizeof(r->mode), "%s-%s", pve ? "pve" : "lxc",
			 conf.mode[0] ? conf.mode : "hook");
	} else {
		snprintf(r->devices, sizeof(r->devices), "(bad ini)");
		snprintf(r->mode, sizeof(r->mode), "?");
	}
	container_state(cli, name, r->state, sizeof(r->state));
	if (gp_verdict_load(cli->root, name, status, sizeof(status), &when) == 0)
		snprintf(r->verdict, sizeof(r->verdict), "%s, %ld min ago", status,
			 ((long)time(NULL) - when) / 60);
	else
		snprintf(r->verdict, sizeof(r->verdict), "never probed");
}

static struct json_object *row_json(const struct row *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(r->name));
	json_object_object_add(o, "gpus", json_object_new_string(r->devices));
	json_object_object_add(o, "mode", json_object_new_string(r->mode));
	json_object_object_add(o, "state", json_object_new_string(r->state));
	json_object_object_add(o, "probe", json_object_new_string(r->verdict));
	return o;
}

int gp_cmd_list(const struct gp_cli *cli)
{
	struct json_object *arr = json_object_new_array();
	bool pve = cli->pve || gp_target_is_pve(cli->root);
	char **names = NULL;
	int n = gp_inventory_names(cli->confdir, &names);

	if (n < 0) {
		gp_error("Failed to list \"%s\": %s", cli->confdir, strerror(-n));
		json_object_put(arr);
		return GP_EXIT_FAILED;
	}
	if (!cli->json)
		printf("%-12s %-28s %-9s %-8s %s\n", "NAME", "GPUS", "MODE", "STATE", "LAST PROBE");
	for (int i = 0; i < n; i++) {
		struct row r;

		list_row(cli, pve, names[i], &r);
		if (cli->json)
			json_object_array_add(arr, row_json(&r));
		else
			printf("%-12s %-28s %-9s %-8s %s\n", r.name, r.devices, r.mode, r.state,
			       r.verdict);
	}
	if (cli->json)
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY));
	json_object_put(arr);
	gp_inventory_free(names, n);
	return 0;
}
