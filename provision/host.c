/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "commands.h"
#include "host.h"
#include "report.h"
#include "util.h"

int gp_cmd_host(const struct gp_cli *cli)
{
	struct gp_host host;
	int r;

	if (cli->nargs != 1) {
		gp_error("host takes no arguments");
		return 2;
	}
	r = gp_host_read(cli->root, GP_HOST_ALL, &host);
	if (r < 0)
		return 3;
	if (cli->json) {
		struct json_object *o = gp_host_to_json(&host, cli->root);

		printf("%s\n", json_object_to_json_string_ext(
				   o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		gp_host_print(&host, cli->root, stdout);
	}
	gp_host_free(&host);
	return host.driver_loaded ? 0 : 1;
}
