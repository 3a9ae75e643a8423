/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "exitcode.h"
#include "hoststate.h"
#include "userspace.h"
#include "paths.h"
#include "report.h"
#include "util.h"

int gp_cmd_host(const struct gp_cli *cli)
{
	struct gp_host_state s;
	struct gp_report rep = {
		.root = cli->root, .host = &s.host, .mods = &s.mods, .hmm = &s.hmm
	};
	struct gp_userspace *us;
	int ret;

	if (cli->nargs != 1) {
		gp_error("host takes no arguments");
		return GP_EXIT_USAGE;
	}
	us = calloc(1, sizeof(*us));
	if (!us || gp_host_state_read(cli->root, GP_STATE_NVML, &s) < 0) {
		free(us);
		return GP_EXIT_FAILED;
	}
	/* A cache that cannot be read is said, and the rest of the host still shown. */
	if (gp_userspace_discover(cli->root, s.host.version, us) == 0)
		rep.userspace = us;
	if (cli->json) {
		struct json_object *o = gp_report_json(&rep);

		printf("%s\n", json_object_to_json_string_ext(
				   o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		gp_report_print(&rep, stdout);
	}
	ret = s.host.driver_loaded ? GP_EXIT_OK : GP_EXIT_PROBLEM;
	gp_host_state_free(&s);
	free(us);
	return ret;
}
