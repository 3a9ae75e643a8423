/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Portable selections (any:N, model:TEXT:N): how they are written. Which GPUs one gets is
 * lib/plan/alloc.c's, at each start.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"
#include "plan/select.h"

static const char portable_usage[] =
    "write any:N (N GPUs of any model) or model:TEXT:N (N GPUs whose model name contains "
    "TEXT, without ':', ',' or blanks), N from 1 to 64";

bool gp_selection_is_portable(const char *spec)
{
	spec += strspn(spec, " \t");
	return strncmp(spec, "any:", 4) == 0 || strncmp(spec, "model:", 6) == 0;
}

static int parse_count(const char *s, const char *spec, const char *where, unsigned int *count)
{
	if (gp_parse_uint(s, count) < 0)
		return gp_error_at(-GP_EBADCONF, where,
				   "\"%s\": \"%s\" is not a number of GPUs; %s", spec, s,
				   portable_usage);
	if (*count == 0 || *count > GP_MAX_GPUS)
		return gp_error_at(-GP_EBADCONF, where, "\"%s\" asks for %u GPUs; %s", spec, *count,
				   portable_usage);
	return 0;
}

static int parse_model(const char *text, const char *spec, const char *where, struct gp_portable *p)
{
	const char *last = strrchr(text, ':');
	size_t n = last ? (size_t)(last - text) : 0;

	if (!last)
		return gp_error_at(-GP_EBADCONF, where, "\"%s\" says no number of GPUs; %s", spec,
				   portable_usage);
	if (n == 0 || n >= sizeof(p->model) || memchr(text, ',', n) || memchr(text, ':', n))
		return gp_error_at(-GP_EBADCONF, where, "\"%s\" names no model as TEXT; %s", spec,
				   portable_usage);
	for (size_t i = 0; i < n; i++)
		if (text[i] <= ' ' || text[i] > '~')
			return gp_error_at(-GP_EBADCONF, where, "\"%s\" names no model as TEXT; %s",
					   spec, portable_usage);
	memcpy(p->model, text, n);
	p->model[n] = '\0';
	return parse_count(last + 1, spec, where, &p->count);
}

int gp_portable_parse(const char *spec, const char *where, struct gp_portable *p)
{
	char copy[1024];
	char *s;

	memset(p, 0, sizeof(*p));
	snprintf(copy, sizeof(copy), "%s", spec);
	s = gp_strtrim(copy);
	if (strchr(s, ','))
		return gp_error_at(-GP_EBADCONF, where,
				   "\"%s\": any:N and model:TEXT:N stand alone, not with other "
				   "selectors",
				   s);
	if (strncmp(s, "any:", 4) == 0)
		return parse_count(s + 4, s, where, &p->count);
	if (strncmp(s, "model:", 6) == 0)
		return parse_model(s + 6, s, where, p);
	return gp_error_at(-GP_EBADCONF, where, "\"%s\" is not a portable selection; %s", s,
			   portable_usage);
}

bool gp_portable_matches(const struct gp_portable *p, const struct gp_gpu *gpu)
{
	return !gpu->excluded && (!p->model[0] || strcasestr(gpu->model, p->model));
}
