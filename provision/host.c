/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "exitcode.h"
#include "hmm.h"
#include "host.h"
#include "modules.h"
#include "paths.h"
#include "report.h"
#include "util.h"

int gp_cmd_host(const struct gp_cli *cli)
{
	struct gp_nvml nvml = { .status = -ENOENT };
	struct gp_modules mods;
	struct gp_host host;
	struct gp_hmm hmm;
	struct gp_report rep = { .root = cli->root, .host = &host, .mods = &mods, .hmm = &hmm };
	struct kmod_ctx *ctx;
	char *kmsg;

	if (cli->nargs != 1) {
		gp_error("host takes no arguments");
		return GP_EXIT_USAGE;
	}
	if (gp_host_read(cli->root, GP_HOST_ALL, &host) < 0)
		return GP_EXIT_FAILED;
	ctx = gp_kmod_new(cli->root, host.kernel_release);
	gp_modules_read(cli->root, ctx, &mods);
	gp_kmod_free(ctx);
	if (gp_root_is_host(cli->root) && host.driver_loaded)
		gp_nvml_addressing(GP_NVML_TIMEOUT_MS, &nvml);
	kmsg = gp_kmsg_read(cli->root);
	gp_hmm_judge(&host, &mods, &nvml, kmsg, &hmm);
	free(kmsg);
	if (cli->json) {
		struct json_object *o = gp_report_json(&rep);

		printf("%s\n", json_object_to_json_string_ext(
				   o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		gp_report_print(&rep, stdout);
	}
	gp_host_free(&host);
	return host.driver_loaded ? GP_EXIT_OK : GP_EXIT_PROBLEM;
}
