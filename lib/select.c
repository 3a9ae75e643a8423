/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GPU selectors: all, nvidia-smi index, GPU UUID, PCI address. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "plan.h"
#include "util.h"

static void normalize_pci(const char *tok, char *out, size_t size)
{
	size_t n = strlen(tok);

	/* "41:00.0" is short for domain 0000, as nvidia-smi prints it with -q. */
	snprintf(out, size, "%s%s", n == 7 ? "0000:" : "", tok);
	for (char *c = out; *c; c++)
		*c = (char)tolower((unsigned char)*c);
}

static bool looks_like_pci(const char *tok)
{
	size_t n = strlen(tok);

	return (n == 7 || n == 12) && tok[n - 2] == '.' && strchr(tok, ':');
}

static void describe_indexes(const struct gp_host *host, char *out, size_t size)
{
	if (host->ngpus == 0)
		snprintf(out, size, "the host has no NVIDIA GPU");
	else if (host->ngpus == 1)
		snprintf(out, size, "the host has GPU 0 only");
	else
		snprintf(out, size, "the host has GPUs 0-%zu", host->ngpus - 1);
}

/* Finds the GPU a single token names; returns its position, or says why not: -EINVAL. */
static int match_token(const char *tok, const struct gp_host *host, const char *where)
{
	char what[64], pci[32];
	unsigned int idx;

	if (gp_parse_uint(tok, &idx) == 0) {
		if (idx < host->ngpus)
			return (int)idx;
		describe_indexes(host, what, sizeof(what));
		return gp_plan_error(-EINVAL, where,
				     "no GPU has index %u (%s; see gpu-provision host)", idx, what);
	}
	if (strncasecmp(tok, "GPU-", 4) == 0) {
		for (size_t i = 0; i < host->ngpus; i++)
			if (strcasecmp(host->gpus[i].uuid, tok) == 0)
				return (int)i;
		return gp_plan_error(-EINVAL, where, "no GPU has UUID %s (see gpu-provision host)",
				     tok);
	}
	if (strncasecmp(tok, "MIG-", 4) == 0) {
		return gp_plan_error(-EINVAL, where,
				     "%s is a MIG device: select its GPU and give the instance "
				     "with caps = gpuM/giG/ciC",
				     tok);
	}
	if (looks_like_pci(tok)) {
		normalize_pci(tok, pci, sizeof(pci));
		for (size_t i = 0; i < host->ngpus; i++)
			if (strcmp(host->gpus[i].pci, pci) == 0)
				return (int)i;
		return gp_plan_error(-EINVAL, where,
				     "no GPU at PCI address %s (see gpu-provision host)", pci);
	}
	return gp_plan_error(
	    -EINVAL, where,
	    "\"%s\" is not a GPU selector; use all, an index, a GPU-UUID or a PCI address", tok);
}

static int select_all(const char *spec, const struct gp_host *host, const char *where, bool *chosen)
{
	if (strcmp(spec, "all") != 0)
		return gp_plan_error(-EINVAL, where,
				     "\"all\" cannot be combined with other selectors");
	if (host->ngpus == 0)
		return gp_plan_error(-EINVAL, where,
				     "\"all\" selects nothing: the host has no NVIDIA GPU");
	for (size_t i = 0; i < host->ngpus; i++)
		chosen[i] = true;
	return 0;
}

int gp_select_gpus(const char *spec, const struct gp_host *host, const char *where,
		   bool chosen[GP_MAX_GPUS])
{
	char copy[1024];
	char *save = NULL, *tok;
	size_t picked = 0;

	memset(chosen, 0, GP_MAX_GPUS * sizeof(bool));
	if (strlen(spec) >= sizeof(copy))
		return gp_plan_error(-EINVAL, where, "selector list longer than %zu characters",
				     sizeof(copy) - 1);
	snprintf(copy, sizeof(copy), "%s", spec);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i;

		tok = gp_strtrim(tok);
		if (strcmp(tok, "all") == 0)
			return select_all(gp_strtrim(strcpy(copy, spec)), host, where, chosen);
		i = match_token(tok, host, where);
		if (i < 0)
			return i;
		if (chosen[i])
			return gp_plan_error(-EINVAL, where,
					     "GPU %d (%s) is selected twice; \"%s\" repeats it", i,
					     host->gpus[i].uuid, tok);
		chosen[i] = true;
		picked++;
	}
	if (picked == 0)
		return gp_plan_error(
		    -EINVAL, where, "no GPU selected; give all, an index, a UUID or a PCI address");
	return 0;
}
