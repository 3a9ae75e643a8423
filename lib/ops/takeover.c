/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Recipe lines met by attach (refused, each named) and by adopt (taken over). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/paths.h"
#include "base/util.h"
#include "host/host.h"
#include "ops/attachopts.h"
#include "ops/takeover.h"

static void say_lines(const struct gp_takeover *t, bool (*pick)(const struct gp_recipe_line *),
		      bool why)
{
	char at[1024];

	for (size_t i = 0; i < t->rec->n; i++) {
		const struct gp_recipe_line *l = &t->rec->v[i];

		if (!pick(l))
			continue;
		gp_cfgline_where(t->rec->cfg, l->cfg, at, sizeof(at));
		gp_error("  %s%s%s%s", at, why && l->why ? " (" : "", why && l->why ? l->why : "",
			 why && l->why ? ")" : "");
	}
}

static bool kept_giver(const struct gp_recipe_line *l)
{
	return gp_recipe_gives_now(l) && !l->removable;
}

static size_t count(const struct gp_takeover *t, bool (*pick)(const struct gp_recipe_line *))
{
	size_t n = 0;

	for (size_t i = 0; i < t->rec->n; i++)
		n += pick(&t->rec->v[i]);
	return n;
}

/* attach: a config that gives NVIDIA nodes by hand is not edited into one that clashes. */
static int refuse_for_attach(const struct gp_attach_opts *o, const struct gp_takeover *t)
{
	size_t n = count(t, gp_recipe_gives_now);

	if (n == 0)
		return 0;
	gp_error("%s already gives NVIDIA nodes itself (%zu line(s)); gpu-hook's start would "
		 "clash with them:",
		 t->rec->cfg->files[0], n);
	say_lines(t, gp_recipe_gives_now, false);
	gp_error("take them over with \"gpu-provision adopt %s --dry-run\", then \"gpu-provision "
		 "adopt %s\"",
		 o->name, o->name);
	return -GP_EBADCONF;
}

/* The lines adopt takes out, as the config writes them. */
static int choose_lines(struct gp_takeover *t)
{
	for (size_t i = 0; i < t->rec->n; i++) {
		const struct gp_recipe_line *l = &t->rec->v[i];
		char text[1024];

		if (!l->removable)
			continue;
		gp_cfgline_text(t->rec->cfg, l->cfg, text, sizeof(text));
		if (!(t->remove[t->nremove] = strdup(text)))
			return -ENOMEM;
		t->nremove++;
	}
	return 0;
}

static bool has_ini(const struct gp_attach_opts *o)
{
	_cleanup_free_ char *path = gp_ini_path(o->ctx, o->name);

	return path && access(path, F_OK) == 0;
}

static bool gives(const struct gp_takeover *t, const char *prefix, bool exists)
{
	for (size_t i = 0; i < t->rec->n; i++) {
		const struct gp_recipe_line *l = &t->rec->v[i];

		if ((l->kind == GP_RECIPE_BIND || l->kind == GP_RECIPE_DEVN) &&
		    strncmp(l->node, prefix, strlen(prefix)) == 0 && (!exists || l->node_exists))
			return true;
	}
	return false;
}

/*
 * Another GPU tool's hook also gave the host's driver user space: the injection goes on
 * doing so, with the capabilities its NVIDIA_DRIVER_CAPABILITIES named (the toolkit's words
 * this tool knows; "all" for every one).
 */
static void hook_userspace(struct gp_takeover *t)
{
	static const char *const known[] = { "compute", "utility", "video", "graphics", "display" };
	size_t len = 0;

	for (size_t i = 0; i < t->rec->n; i++) {
		const struct gp_recipe_line *l = &t->rec->v[i];
		const char *v = l->cfg->value + strlen("NVIDIA_DRIVER_CAPABILITIES=");
		char copy[256];

		t->inject |= l->kind == GP_RECIPE_HOOK && l->removable;
		if (l->kind != GP_RECIPE_ENV || !l->removable ||
		    strncmp(l->cfg->value, "NVIDIA_DRIVER_CAPABILITIES=", 27) != 0)
			continue;
		snprintf(copy, sizeof(copy), "%s", v);
		for (char *save = NULL, *w = strtok_r(copy, ",", &save); w;
		     w = strtok_r(NULL, ",", &save))
			for (size_t k = 0; k < GP_ARRAY_SIZE(known); k++)
				if ((strcmp(w, "all") == 0 || strcmp(w, known[k]) == 0) &&
				    !strstr(t->capabilities, known[k]) &&
				    len < sizeof(t->capabilities))
					len += (size_t)snprintf(t->capabilities + len,
								sizeof(t->capabilities) - len,
								"%s%s", len ? ", " : "", known[k]);
	}
}

/* "/dev/nvidia0 is GPU 0 (0000:18:00.0)" for each GPU node the recipe gave. */
static void map_gpus(struct gp_takeover *t, const struct gp_host *host)
{
	size_t len = 0;

	for (size_t i = 0; i < t->rec->n; i++) {
		const struct gp_recipe_line *l = &t->rec->v[i];

		if (!l->removable || l->gpu_minor < 0)
			continue;
		for (size_t g = 0; g < host->ngpus; g++)
			if (host->gpus[g].minor == (unsigned int)l->gpu_minor &&
			    !strstr(t->mapping, l->node) && len < sizeof(t->mapping))
				len += (size_t)snprintf(t->mapping + len, sizeof(t->mapping) - len,
							"  /dev/%s is GPU %d (%s, %s)\n", l->node,
							host->gpus[g].index, host->gpus[g].pci,
							host->gpus[g].uuid);
	}
}

/* adopt: every line that gives nodes must go, and the GPUs they gave must be known. */
static int prepare_adopt(const struct gp_attach_opts *o, const struct gp_host *host,
			 struct gp_takeover *t)
{
	int r;

	if (count(t, kept_giver)) {
		gp_error("these lines give NVIDIA nodes, and adopt does not take them out; take "
			 "them out yourself, then adopt %s again:",
			 o->name);
		say_lines(t, kept_giver, true);
		return -GP_EBADCONF;
	}
	if (!count(t, gp_recipe_gives_now) && !o->gpus) {
		gp_error("%s gives no NVIDIA node by hand: nothing to adopt; gpu-provision attach "
			 "%s --gpus SEL gives it GPUs",
			 t->rec->cfg->files[0], o->name);
		return -GP_EBADCONF;
	}
	r = choose_lines(t);
	hook_userspace(t);
	if (gives(t, "nvidia-modeset", true) && !t->capabilities[0])
		snprintf(t->capabilities, sizeof(t->capabilities), "compute, utility, display");
	t->mig = gives(t, "nvidia-caps", false);
	if (r < 0 || o->gpus || has_ini(o))
		return r; /* an attached container keeps its ini's selection */
	r = gp_recipe_selection(t->rec, host, t->gpus, sizeof(t->gpus));
	if (r == -ENOENT)
		gp_error("the lines of %s name no GPU (only nvidiactl, uvm or rules): give --gpus",
			 t->rec->cfg->files[0]);
	return r < 0 ? -GP_EBADCONF : 0;
}

int gp_takeover_read(const struct gp_attach_opts *o, const char *config, bool pve,
		     const char *applied, struct gp_takeover *t)
{
	struct gp_host host;
	int r;

	memset(t, 0, sizeof(*t));
	t->rec = calloc(1, sizeof(*t->rec));
	if (!t->rec)
		return -ENOMEM;
	r = gp_host_read(o->ctx->root, 0, &host);
	if (r < 0)
		return r;
	r = gp_recipe_read(o->ctx->root, &host, config, pve, applied, t->rec);
	if (r == -ENOENT) /* there a moment ago: pct migrate (a rename by another node) or rm */
		gp_error("\"%s\" went away while gpu-provision read it (the container migrated to "
			 "another node, or was removed): nothing was changed; run it again on the "
			 "node that holds the container now",
			 config);
	if (r == 0 && t->rec->left_out) {
		gp_error("%s has more lines than gpu-provision reads (%d config lines, %d NVIDIA "
			 "ones): %zu left unread, so it cannot be sure what the config gives; "
			 "split it with lxc.include, or shorten it",
			 config, GP_CFGLINES_MAX, GP_RECIPE_MAX, t->rec->left_out);
		r = -GP_EBADCONF;
	}
	if (r == 0)
		r = o->adopt ? prepare_adopt(o, &host, t) : refuse_for_attach(o, t);
	if (r == 0 && o->adopt)
		map_gpus(t, &host);
	gp_host_free(&host);
	return r;
}

void gp_takeover_free(struct gp_takeover *t)
{
	for (size_t i = 0; i < t->nremove; i++)
		free(t->remove[i]);
	if (t->rec)
		gp_recipe_free(t->rec);
	free(t->rec);
	memset(t, 0, sizeof(*t));
}

void gp_takeover_print_left(const struct gp_takeover *t, FILE *out)
{
	char at[1024];

	if (t->mig)
		fprintf(out,
			"note: it gave /dev/nvidia-caps, whose MIG capabilities a recipe does "
			"not name: give --caps (mig-config, gpuM/giG/ciC) if it runs MIG work\n");
	for (size_t i = 0; i < t->rec->n; i++) {
		const struct gp_recipe_line *l = &t->rec->v[i];

		if (l->removable)
			continue;
		gp_cfgline_where(t->rec->cfg, l->cfg, at, sizeof(at));
		fprintf(out, "left alone: %s (%s)\n", at,
			l->why ? l->why : "not sure it is NVIDIA's");
	}
}
