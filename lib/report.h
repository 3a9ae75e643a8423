/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef GP_REPORT_H
#define GP_REPORT_H

#include <json-c/json.h>
#include <stdio.h>

#include "host.h"

/* HMM verdict from what the host files say: GP_YES, GP_NO or GP_UNKNOWN. */
enum gp_tristate gp_host_hmm_active(const struct gp_host *host);

/* The host as JSON with the contract's field names; caller owns the object. */
struct json_object *gp_host_to_json(const struct gp_host *host, const char *root);

/* The host for people. */
void gp_host_print(const struct gp_host *host, const char *root, FILE *f);

#endif
