/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The probe's JSON report as check reads it: typed and bounded before use (probejson.h). */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/util.h"
#include "diagnose/probejson.h"

static const char *const statuses[] = { "ok", "failed", "timeout" };
static const char *const text_fields[] = { "summary", "evidence", "fix" };

static const char *string_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* A finding is an object with a catalogued id and string fields. */
static int check_finding(struct json_object *o, size_t i, char *why, size_t size)
{
	enum gp_finding_id kind;
	const char *id;

	if (!json_object_is_type(o, json_type_object)) {
		snprintf(why, size, "findings[%zu] is not an object", i);
		return -GP_EBADCONF;
	}
	id = string_of(o, "id");
	if (!id || gp_finding_id_parse(id, &kind) < 0) {
		char esc[96];

		gp_escape(esc, sizeof(esc), id ? id : "", id ? strlen(id) : 0, false);
		snprintf(why, size, "findings[%zu] has %s id \"%s\"", i,
			 id ? "an unknown" : "no string", esc);
		return -GP_EBADCONF;
	}
	for (size_t k = 0; k < GP_ARRAY_SIZE(text_fields); k++) {
		struct json_object *v;

		if (json_object_object_get_ex(o, text_fields[k], &v) &&
		    !json_object_is_type(v, json_type_string)) {
			snprintf(why, size, "findings[%zu].%s is not a string", i, text_fields[k]);
			return -GP_EBADCONF;
		}
	}
	return 0;
}

/* A GPU's UUID as the probe prints it: a label's value needs no escaping. */
static bool uuid_is_valid(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n < 5 || n >= sizeof(((struct gp_probe_cap_row *)0)->gpu) || strncmp(s, "GPU-", 4))
		return false;
	return strspn(s + 4, "0123456789abcdefABCDEF-") == n - 4;
}

/* The verdict's "gpu": a UUID, or null where the probe named none (then "" here). */
static bool gpu_is_valid(struct json_object *o, const char **gpu)
{
	struct json_object *v;

	*gpu = string_of(o, "gpu");
	if (*gpu)
		return uuid_is_valid(*gpu);
	*gpu = "";
	return json_object_object_get_ex(o, "gpu", &v) && json_object_is_type(v, json_type_null);
}

/* One verdict: {"gpu": UUID or null, "capability": known, "status": known, ...}. */
static int check_cap(struct json_object *o, size_t i, struct gp_probe_cap_row *row, char *why,
		     size_t size)
{
	const char *gpu, *cap = string_of(o, "capability");
	const char *status = string_of(o, "status");
	struct json_object *v;

	if (!json_object_is_type(o, json_type_object) || !gpu_is_valid(o, &gpu) || !cap ||
	    gp_deep_cap_parse(cap, &row->cap) < 0 || !status ||
	    gp_deep_status_parse(status, &row->status) < 0) {
		snprintf(why, size,
			 "capabilities[%zu] is not an object with a GPU UUID, a known capability "
			 "and status",
			 i);
		return -GP_EBADCONF;
	}
	snprintf(row->gpu, sizeof(row->gpu), "%s", gpu);
	row->injected = json_object_object_get_ex(o, "injected", &v) &&
			json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
	return 0;
}

/* Whether the last row (caps->n) repeats an earlier one's GPU and capability. */
static bool repeats(const struct gp_probe_caps *caps, char *why, size_t size)
{
	const struct gp_probe_cap_row *last = &caps->v[caps->n];

	for (size_t k = 0; last->gpu[0] && k < caps->n; k++)
		if (caps->v[k].cap == last->cap && strcmp(caps->v[k].gpu, last->gpu) == 0) {
			snprintf(why, size, "capabilities[%zu] repeats capabilities[%zu]", caps->n,
				 k);
			return true;
		}
	return false;
}

static int check_caps(struct json_object *o, struct gp_probe_caps *caps, char *why, size_t size)
{
	struct json_object *v;
	size_t n;

	if (!json_object_object_get_ex(o, "capabilities", &v))
		return 0;
	if (!json_object_is_type(v, json_type_array) ||
	    (n = json_object_array_length(v)) > GP_PROBE_MAX_DEVICES * GP_DEEP_COUNT) {
		snprintf(why, size, "\"capabilities\" is not an array of at most %d",
			 GP_PROBE_MAX_DEVICES * GP_DEEP_COUNT);
		return -GP_EBADCONF;
	}
	caps->v = n ? calloc(n, sizeof(*caps->v)) : NULL;
	if (n && !caps->v) {
		snprintf(why, size, "out of memory");
		return -ENOMEM;
	}
	for (caps->n = 0; caps->n < n; caps->n++)
		if (check_cap(json_object_array_get_idx(v, caps->n), caps->n, &caps->v[caps->n],
			      why, size) < 0 ||
		    repeats(caps, why, size)) {
			free(steal_ptr(caps->v));
			caps->n = 0;
			return -GP_EBADCONF;
		}
	return 0;
}

static int check_report(struct json_object *o, char *why, size_t size)
{
	const char *status = string_of(o, "status");
	struct json_object *v;
	bool known = false;

	for (size_t i = 0; status && i < GP_ARRAY_SIZE(statuses); i++)
		known |= strcmp(status, statuses[i]) == 0;
	if (!known) {
		snprintf(why, size, "\"status\" is not one of ok, failed, timeout");
		return -GP_EBADCONF;
	}
	if (!json_object_object_get_ex(o, "findings", &v) ||
	    !json_object_is_type(v, json_type_array)) {
		snprintf(why, size, "\"findings\" is not an array");
		return -GP_EBADCONF;
	}
	for (size_t i = 0; i < json_object_array_length(v); i++)
		if (check_finding(json_object_array_get_idx(v, i), i, why, size) < 0)
			return -GP_EBADCONF;
	return 0;
}

static void copy_finding(struct gp_findings *f, struct json_object *o)
{
	enum gp_finding_id id;
	struct gp_finding *x;
	const char *v;

	/* The id was checked against the catalogue (check_finding) before anything is copied. */
	if (gp_finding_id_parse(string_of(o, "id"), &id) < 0 || !(x = gp_findings_add(f, id)))
		return;
	if ((v = string_of(o, "summary")))
		GP_SET(x->summary, "%s", v);
	if ((v = string_of(o, "evidence")))
		GP_SET(x->evidence, "%s", v);
	if ((v = string_of(o, "fix")))
		GP_SET(x->fix, "%s", v);
}

static struct json_object *parse_object(const char *text, size_t len, char *why, size_t size)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o = NULL;

	if (!tok || len > (size_t)INT32_MAX) {
		snprintf(why, size, "out of memory");
	} else {
		o = json_tokener_parse_ex(tok, text, (int)len);
		if (!o || json_tokener_get_parse_end(tok) < len - (len && text[len - 1] == '\n'))
			snprintf(why, size, "not one JSON value (%s)",
				 json_tokener_error_desc(json_tokener_get_error(tok)));
		else if (!json_object_is_type(o, json_type_object))
			snprintf(why, size, "not a JSON object");
		else
			goto out;
		json_object_put(steal_ptr(o));
	}
out:
	if (tok)
		json_tokener_free(tok);
	return o;
}

int gp_probe_json_take(const char *text, size_t len, char *status, size_t status_size,
		       struct gp_findings *f, struct gp_probe_caps *caps, char *why,
		       size_t why_size)
{
	struct json_object *o = parse_object(text, len, why, why_size), *v;
	struct gp_probe_caps none = { NULL, 0 };

	if (!o)
		return -GP_EBADCONF;
	if (check_report(o, why, why_size) < 0 ||
	    check_caps(o, caps ? caps : &none, why, why_size) < 0) {
		json_object_put(o);
		return -GP_EBADCONF;
	}
	snprintf(status, status_size, "%s", string_of(o, "status"));
	json_object_object_get_ex(o, "findings", &v);
	for (size_t i = 0; i < json_object_array_length(v); i++)
		copy_finding(f, json_object_array_get_idx(v, i));
	json_object_put(o);
	free(none.v);
	return 0;
}
