/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef GP_FINDINGS_H
#define GP_FINDINGS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

enum gp_severity { GP_SEV_ERROR, GP_SEV_WARNING, GP_SEV_INFO };

/* One thing found: what, how bad, the evidence seen, the fix, and where to read more. */
struct gp_finding {
	const char *id;
	enum gp_severity severity;
	char summary[256];
	char evidence[768];
	char fix[512];
	const char *refs;
};

#define GP_MAX_FINDINGS 32
struct gp_findings {
	struct gp_finding v[GP_MAX_FINDINGS];
	size_t n;
};

/* Every finding the code can raise, with how it is detected: the source of the docs table. */
struct gp_finding_kind {
	const char *id;
	enum gp_severity severity;
	const char *detected;
	const char *refs;
};
extern const struct gp_finding_kind gp_finding_kinds[];
extern const size_t gp_finding_nkinds;

/*
 * Adds a finding of a catalogued kind (its severity and references come from there);
 * the caller fills summary, evidence and fix. NULL when the list is full.
 */
struct gp_finding *gp_findings_add(struct gp_findings *f, const char *id);

/* snprintf into a finding's field; GP_SET(x->summary, "...", ...) sizes it from the field. */
void gp_finding_put(char *dst, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define GP_SET(field, ...) gp_finding_put(field, sizeof(field), __VA_ARGS__)

/* True when any finding is an error. */
int gp_findings_errors(const struct gp_findings *f);

const char *gp_severity_name(enum gp_severity s);
struct json_object *gp_findings_json(const struct gp_findings *f);
/*
 * Most severe first, one block each, every line after indent; the text escaped (a
 * finding can quote a container), the severity coloured when tty.
 */
void gp_findings_print(const struct gp_findings *f, FILE *out, const char *indent, bool tty);

#endif
