/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision list: containers with GPUs, their GPUs, mode, state and last probe. */
#include <json-c/json.h>
#include <lxc/lxccontainer.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "paths.h"
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
	char deep[256]; /* the last --deep's "compute=ok,...", or "" */
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
	struct gp_verdict v;

	snprintf(r->name, sizeof(r->name), "%s", name);
	if (gp_ctconf_load(cli->root, cli->confdir, name, &conf) == 0) {
		snprintf(r->devices, sizeof(r->devices), "%s%s%s", conf.devices,
			 conf.caps[0] ? " caps " : "", conf.caps);
		snprintf(r->mode, sizeof(r->mode), "%s-%s", pve ? "pve" : "lxc",
			 conf.mode[0] ? conf.mode : "hook");
	} else {
		snprintf(r->devices, sizeof(r->devices), "(bad ini)");
		snprintf(r->mode, sizeof(r->mode), "?");
	}
	container_state(cli, name, r->state, sizeof(r->state));
	r->deep[0] = '\0';
	if (gp_verdict_load(cli->root, name, &v) == 0) {
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
	return o;
}

static void print_row(const struct row *r)
{
	char deep[320] = "";

	if (r->deep[0])
		deep_text(r->deep, deep, sizeof(deep));
	printf("%-12s %-28s %-9s %-8s %s%s\n", r->name, r->devices, r->mode, r->state, r->verdict,
	       deep);
}

int gp_cmd_list(const struct gp_cli *cli)
{
	struct json_object *arr = json_object_new_array();
	bool pve = cli->pve || gp_root_is_pve(cli->root);
	char **names = NULL;
	int n = gp_inventory_names(cli->root, cli->confdir, &names);

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
			print_row(&r);
	}
	if (cli->json)
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY));
	json_object_put(arr);
	gp_inventory_free(names, n);
	return 0;
}
