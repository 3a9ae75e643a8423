/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>

#include "base/exitcode.h"
#include "base/util.h"
#include "commands.h"
#include "diagnose/hostreport.h"
#include "driver/hoststate.h"
#include "host/userspace.h"
#include "start/inject.h"

int gp_cmd_host(const struct gp_cli *cli)
{
	struct gp_host_state s;
	struct gp_report rep = { .root = cli->ctx.root,
				 .host = &s.host,
				 .rt = &cli->rt,
				 .mods = &s.mods,
				 .hmm = &s.hmm };
	struct gp_log_capture quiet;
	struct gp_userspace *us;
	struct gp_inject *inj;
	int ret;

	if (cli->nargs != 1) {
		gp_error("host takes no arguments");
		return GP_EXIT_USAGE;
	}
	us = calloc(1, sizeof(*us));
	inj = calloc(1, sizeof(*inj));
	if (!us || !inj || gp_host_state_read(cli->ctx.root, GP_STATE_NVML, &s) < 0) {
		free(us);
		free(inj);
		return GP_EXIT_FAILED;
	}
	/* A cache that cannot be read is said, and the rest of the host still shown. */
	if (gp_userspace_discover(cli->ctx.root, s.host.version, us) == 0)
		rep.userspace = us;
	/* What a start given every capability would get; what it lacks is shown as none. */
	gp_log_capture_start(&quiet);
	gp_inject_select(&cli->ctx, s.host.version, ~0U, inj);
	gp_log_capture_stop(&quiet);
	rep.inject = inj;
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
	free(inj);
	return ret;
}
