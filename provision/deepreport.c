/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What probe --deep proved, as text, as JSON and as list's one-line summary. */
#include <stdio.h>
#include <string.h>

#include "deepreport.h"

/* What decided a verdict, for people. */
static void verdict_text(const struct gp_deep_verdict *v, char *buf, size_t size)
{
	const char *detail = strcmp(v->detail, "-") ? v->detail : "";
	bool check = strcmp(v->step, "compare") == 0 || strcmp(v->step, "kernel-result") == 0;

	if (v->status == GP_DEEP_ABSENT)
		snprintf(buf, size, "%s not in the container", detail);
	else if (v->status == GP_DEEP_FAILED && strcmp(v->name, "hung") == 0)
		snprintf(buf, size, "hung after %s until the deadline", v->step);
	else if (v->status == GP_DEEP_FAILED && strcmp(v->name, "not-reached") == 0)
		snprintf(buf, size, "not reached: the probe ended before it");
	else if (v->status == GP_DEEP_FAILED && check)
		snprintf(buf, size, "at %s: %d of 262144 words differ", v->step, v->code);
	else if (v->status == GP_DEEP_FAILED && strcmp(v->name, "-"))
		snprintf(buf, size, "at %s: %s (%d)%s%s", v->step, v->name, v->code,
			 detail[0] ? ", " : "", detail);
	else if (v->status == GP_DEEP_FAILED)
		snprintf(buf, size, "at %s: %s", v->step, detail);
	else if (v->status == GP_DEEP_UNSUPPORTED && v->code != 0)
		snprintf(buf, size, "%s (%s)", detail, v->name);
	else
		snprintf(buf, size, "%s", detail);
}

/* "device 0.0, context 120.3, ..., kernel-result 1.1 ms": compute's steps on one GPU. */
static void print_steps(const struct gp_probe_result *r, int dev)
{
	const char *sep = "      steps: ";

	for (size_t i = 0; i < r->nsteps; i++)
		if (r->steps[i].device == dev &&
		    gp_deep_step_of(r, dev, GP_DEEP_COMPUTE, &r->steps[i])) {
			printf("%s%s %.1f", sep, r->steps[i].step, r->steps[i].ms);
			sep = ", ";
		}
	if (strcmp(sep, ", ") == 0)
		printf(" ms\n");
}

void gp_deep_print(const struct gp_probe_result *r, const struct gp_deep *d)
{
	for (int dev = 0; dev < d->ndevices; dev++) {
		printf("  GPU %d (%s %s):\n", dev, r->devices[dev].pci, r->devices[dev].uuid);
		for (int c = 0; c < GP_DEEP_COUNT; c++) {
			const struct gp_deep_verdict *v = &d->v[dev][c];
			char what[256];

			verdict_text(v, what, sizeof(what));
			printf("    %-11s %-11s %8.1f ms%s%s\n", gp_deep_cap_name(c),
			       gp_deep_status_name(v->status), v->ms, what[0] ? "  " : "", what);
			if (c == GP_DEEP_COMPUTE)
				print_steps(r, dev);
		}
	}
}

static struct json_object *step_json(const struct gp_probe_step *s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "step", json_object_new_string(s->step));
	json_object_object_add(o, "code", json_object_new_int(s->code));
	json_object_object_add(o, "name", json_object_new_string(s->name));
	json_object_object_add(o, "ms", json_object_new_double(s->ms));
	json_object_object_add(o, "detail", json_object_new_string(s->detail));
	return o;
}

static struct json_object *steps_json(const struct gp_probe_result *r, int dev, enum gp_deep_cap c)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < r->nsteps; i++)
		if (gp_deep_step_of(r, dev, c, &r->steps[i]))
			json_object_array_add(a, step_json(&r->steps[i]));
	return a;
}

static struct json_object *verdict_json(const struct gp_probe_result *r, int dev,
					enum gp_deep_cap c, const struct gp_deep_verdict *v,
					bool injected)
{
	struct json_object *o = json_object_new_object();
	const char *uuid = r->devices[dev].uuid;

	/* null: the probe named no UUID for this device (cuDeviceGet failed). */
	json_object_object_add(o, "gpu", uuid[0] ? json_object_new_string(uuid) : NULL);
	json_object_object_add(o, "device", json_object_new_int(dev));
	json_object_object_add(o, "capability", json_object_new_string(gp_deep_cap_name(c)));
	json_object_object_add(o, "status", json_object_new_string(gp_deep_status_name(v->status)));
	json_object_object_add(o, "step", json_object_new_string(v->step));
	json_object_object_add(o, "code", json_object_new_int(v->code));
	json_object_object_add(o, "name", json_object_new_string(v->name));
	json_object_object_add(o, "ms", json_object_new_double(v->ms));
	json_object_object_add(o, "detail", json_object_new_string(v->detail));
	json_object_object_add(o, "injected", json_object_new_boolean(injected));
	json_object_object_add(o, "steps", steps_json(r, dev, c));
	return o;
}

struct json_object *gp_deep_json(const struct gp_probe_result *r, const struct gp_deep *d,
				 const bool injected[GP_DEEP_COUNT])
{
	struct json_object *a = json_object_new_array();

	for (int dev = 0; dev < d->ndevices; dev++)
		for (int c = 0; c < GP_DEEP_COUNT; c++)
			json_object_array_add(a, verdict_json(r, dev, (enum gp_deep_cap)c,
							      &d->v[dev][c], injected[c]));
	return a;
}

void gp_deep_summary(const struct gp_deep *d, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int c = 0; c < GP_DEEP_COUNT && d->ndevices && len < size; c++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s=%s", c ? "," : "",
					gp_deep_cap_name(c),
					gp_deep_status_name(gp_deep_worst(d, (enum gp_deep_cap)c)));
}
