/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in provision/deepreport.c. */
#ifndef GP_DEEPREPORT_H
#define GP_DEEPREPORT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "diagnose/deep.h"
#include "diagnose/proberun.h"

/* Each GPU's verdicts as a table, compute's steps under it, for people. */
void gp_deep_print(const struct gp_probe_result *r, const struct gp_deep *d);

/*
 * One object per device and capability: gpu (UUID, or null where the probe named none),
 * device, capability, status, step, code, name, ms, detail, injected (the ini gives this
 * capability's libraries: a missing one is an error), and steps (each of its steps: step,
 * code, name, ms, detail).
 */
struct json_object *gp_deep_json(const struct gp_probe_result *r, const struct gp_deep *d,
				 const bool injected[GP_DEEP_COUNT]);

/* Each capability's worst status over the GPUs, for list: "compute=ok,...", "" for none. */
void gp_deep_summary(const struct gp_deep *d, char *buf, size_t size);

#endif
