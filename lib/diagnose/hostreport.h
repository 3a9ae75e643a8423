/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/diagnose/hostreport.c. */
#ifndef GP_HOSTREPORT_H
#define GP_HOSTREPORT_H

#include <json-c/json.h>
#include <stdio.h>

#include "driver/runtime.h"
#include "host/hmm.h"
#include "host/host.h"
#include "host/modules.h"
#include "host/userspace.h"
#include "start/inject.h"

/* Everything gpu-provision host reports. */
struct gp_report {
	const char *root;
	const struct gp_host *host;
	const struct gp_runtime *rt; /* LXC and the cgroup layout */
	const struct gp_modules *mods;
	const struct gp_hmm *hmm;
	const struct gp_userspace *userspace; /* the driver's libraries the loader's cache names */
	const struct gp_inject *inject;	      /* what a start of every capability would get */
};

/* The host as JSON with the contract's field names; caller owns the object. */
struct json_object *gp_report_json(const struct gp_report *rep);

/* The host for people. */
void gp_report_print(const struct gp_report *rep, FILE *f);

#endif
