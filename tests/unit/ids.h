/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Exact sets of finding ids (test-diagnose.c, test-check.c):
 * assert_ids(f, "id1", "id2", NULL) fails when an id is missing or another is raised.
 */
#ifndef GP_UNIT_IDS_H
#define GP_UNIT_IDS_H

#include "unit.h"

#include "diagnose/findings.h"

__attribute__((unused)) static void ids_append(char *dst, size_t size, const char *id)
{
	size_t len = strlen(dst);

	snprintf(dst + len, size - len, "%s%s", len ? " " : "", id);
}

/*
 * True when the ids raised are exactly want (NULL-terminated): a multiset, so an id
 * raised twice is listed twice. Otherwise why says what is missing and what is extra.
 */
__attribute__((unused)) static bool ids_match(const struct gp_findings *f, const char *const *want,
					      char *why, size_t size)
{
	char missing[512] = "", extra[512] = "", raised[1024] = "";
	bool used[GP_MAX_FINDINGS] = { false };

	for (; *want; want++) {
		size_t i = 0;

		while (i < f->n && (used[i] || strcmp(f->v[i].id, *want) != 0))
			i++;
		if (i < f->n)
			used[i] = true;
		else
			ids_append(missing, sizeof(missing), *want);
	}
	for (size_t i = 0; i < f->n; i++) {
		ids_append(raised, sizeof(raised), f->v[i].id);
		if (!used[i])
			ids_append(extra, sizeof(extra), f->v[i].id);
	}
	snprintf(why, size, "finding ids: missing [%s], extra [%s]; raised [%s]", missing, extra,
		 raised);
	return !missing[0] && !extra[0];
}

__attribute__((unused)) static void assert_ids_at(const char *file, int line,
						  const struct gp_findings *f, ...)
{
	const char *want[GP_MAX_FINDINGS + 1];
	size_t n = 0;
	char why[4096]; /* the three lists of ids_match at their longest */
	va_list ap;

	va_start(ap, f);
	while (n < GP_MAX_FINDINGS && (want[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	want[n] = NULL;
	if (ids_match(f, want, why, sizeof(why)))
		return;
	print_error("%s\n", why);
	_fail(file, line);
}
#define assert_ids(f, ...) assert_ids_at(__FILE__, __LINE__, f, __VA_ARGS__)

/* The finding of that id (the first), for a look at its text; fails when there is none. */
__attribute__((unused)) static const struct gp_finding *
finding_at(const char *file, int line, const struct gp_findings *f, const char *id)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->v[i].id, id) == 0)
			return &f->v[i];
	print_error("no finding %s\n", id);
	_fail(file, line);
	return NULL;
}
#define finding(f, id) finding_at(__FILE__, __LINE__, f, id)

#endif
