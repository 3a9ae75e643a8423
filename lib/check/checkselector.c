/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision check NAME: an NVIDIA_VISIBLE_DEVICES that names a GPU or MIG device this host
 * lacks. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/util.h"
#include "check/check.h"
#include "check/recipe.h"
#include "config/cfglines.h"

#define VISIBLE "NVIDIA_VISIBLE_DEVICES="

static const struct gp_gpu *gpu_by_uuid(const struct gp_host *h, const char *uuid, size_t len)
{
	for (size_t i = 0; i < h->ngpus; i++)
		if (strlen(h->gpus[i].uuid) == len && strncasecmp(h->gpus[i].uuid, uuid, len) == 0)
			return &h->gpus[i];
	return NULL;
}

/* The driver makes capabilities/gpuM/mig/giG[/ciC]/access for each instance that exists. */
static bool instance_exists(const char *root, unsigned int minor, unsigned int gi, unsigned int ci)
{
	_cleanup_free_ char *path = NULL;
	char rel[128];

	snprintf(rel, sizeof(rel), "/proc/driver/nvidia/capabilities/gpu%u/mig/gi%u/ci%u/access",
		 minor, gi, ci);
	path = gp_path(root, rel);
	return path && access(path, F_OK) == 0;
}

static bool any_instance(const char *root)
{
	_cleanup_free_ char *pattern =
	    gp_path(root, "/proc/driver/nvidia/capabilities/gpu*/mig/gi*/access");
	glob_t g;
	bool any;

	if (!pattern || glob(pattern, 0, NULL, &g) != 0)
		return false;
	any = g.gl_pathc > 0;
	globfree(&g);
	return any;
}

/*
 * Why the host lacks the device one word names, into why; false where it has it, or where
 * that cannot be told from the files (a MIG UUID on a host with MIG instances: NVML knows).
 */
static bool lacks(const char *root, const struct gp_host *h, const char *word, char *why,
		  size_t size)
{
	unsigned int index, gi, ci;
	const struct gp_gpu *g;
	const char *slash;
	char colon;

	if (!*word || strcmp(word, "all") == 0 || strcmp(word, "none") == 0 ||
	    strcmp(word, "void") == 0)
		return false;
	if (gp_parse_uint(word, &index) == 0) {
		snprintf(why, size, "no GPU has index %u", index);
		return index >= h->ngpus;
	}
	if (strncasecmp(word, "GPU-", 4) == 0) {
		snprintf(why, size, "no GPU has that UUID");
		return !gpu_by_uuid(h, word, strlen(word));
	}
	if (strncasecmp(word, "MIG-GPU-", 8) == 0 && (slash = strchr(word, '/')) &&
	    sscanf(slash, "/%u/%u%c", &gi, &ci, &colon) == 2) {
		g = gpu_by_uuid(h, word + 4, (size_t)(slash - word - 4));
		if (!g) {
			snprintf(why, size, "no GPU has that UUID");
			return true;
		}
		snprintf(why, size, "GPU %d has no MIG instance gi %u ci %u", g->index, gi, ci);
		return !instance_exists(root, g->minor, gi, ci);
	}
	if (strncasecmp(word, "MIG-", 4) == 0 ||
	    (sscanf(word, "%u:%u%c", &index, &gi, &colon) == 2)) {
		snprintf(why, size, "no GPU of this host has a MIG instance");
		return !any_instance(root);
	}
	return false;
}

static void say_lacking(const char *name, const struct gp_recipe *rec,
			const struct gp_recipe_line *l, const struct gp_host *h, const char *words,
			const char *why, struct gp_findings *f)
{
	struct gp_finding *x;
	char where[1024], gpus[64];

	if (!(x = gp_findings_add(f, GP_FINDING_SELECTOR_ABSENT)))
		return;
	gp_cfgline_where(rec->cfg, l->cfg, where, sizeof(where));
	gp_host_describe_indexes(h, gpus, sizeof(gpus));
	GP_SET(x->summary,
	       "%s's NVIDIA_VISIBLE_DEVICES names %s, which this host lacks (%s): the hook that "
	       "reads it fails, and the start with it",
	       name, words, why);
	GP_SET(x->evidence, "%s; %s (gpu-provision host lists them)", where, gpus);
	GP_SET(x->fix,
	       "gpu-provision adopt %s --gpus SELECTION, with the GPUs gpu-provision host lists "
	       "(a MIG instance: caps = gpuM/giG/ciC in its ini)",
	       name);
}

/* One finding per line, naming each word of it that the host lacks; why is the first's. */
static void check_line(const struct gp_check_run *run, const char *name,
		       const struct gp_recipe *rec, const struct gp_recipe_line *l,
		       struct gp_findings *f)
{
	char copy[512], words[256] = "", why[96] = "", one[96];
	size_t len = 0;

	snprintf(copy, sizeof(copy), "%s", l->cfg->value + strlen(VISIBLE));
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		char *word = gp_strtrim(t);

		if (!lacks(run->ctx->root, &run->hs.host, word, one, sizeof(one)))
			continue;
		if (!why[0])
			snprintf(why, sizeof(why), "%s", one);
		if (len < sizeof(words))
			len += (size_t)snprintf(words + len, sizeof(words) - len, "%s\"%s\"",
						len ? ", " : "", word);
	}
	if (words[0])
		say_lacking(name, rec, l, &run->hs.host, words, why, f);
}

void gp_check_selector(const struct gp_check_run *run, const char *name,
		       const struct gp_recipe *rec, struct gp_findings *f)
{
	if (!run->hs.host.driver_loaded || !gp_recipe_env_read(rec->cfg))
		return; /* no hook reads it: nvidia-env-unread says so */
	for (size_t i = 0; i < rec->n; i++) {
		const struct gp_recipe_line *l = &rec->v[i];

		if (l->kind == GP_RECIPE_ENV && !l->cfg->pending &&
		    strncmp(l->cfg->value, VISIBLE, strlen(VISIBLE)) == 0)
			check_line(run, name, rec, l, f);
	}
}
