/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Module state and modprobe.d options through libkmod. */
#include <libkmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "base/util.h"
#include "driver/kmod.h"
#include "host/modules.h"

static void kmod_module_unrefp(struct kmod_module **m)
{
	if (*m)
		kmod_module_unref(*m);
}

#define _cleanup_kmod_module_ __attribute__((cleanup(kmod_module_unrefp)))

struct kmod_ctx *gp_kmod_new(const char *root, const char *release)
{
	_cleanup_free_ char *dir = NULL, *etc = NULL, *run = NULL, *lib = NULL;
	const char *paths[4];
	struct kmod_ctx *ctx;

	if (gp_root_is_host(root)) {
		ctx = kmod_new(NULL, NULL);
	} else {
		if (asprintf(&dir, "%s/lib/modules/%s", root, release) < 0 ||
		    asprintf(&etc, "%s/etc/modprobe.d", root) < 0 ||
		    asprintf(&run, "%s/run/modprobe.d", root) < 0 ||
		    asprintf(&lib, "%s/lib/modprobe.d", root) < 0)
			return NULL;
		paths[0] = etc;
		paths[1] = run;
		paths[2] = lib;
		paths[3] = NULL;
		ctx = kmod_new(dir, paths);
	}
	if (!ctx)
		gp_error("Failed to set up libkmod for \"%s\"", root ? root : "/");
	return ctx;
}

static void read_conf_options(struct kmod_ctx *ctx, struct gp_module *mod)
{
	_cleanup_kmod_module_ struct kmod_module *km = NULL;
	const char *opts;

	mod->conf_options[0] = '\0';
	if (!ctx || kmod_module_new_from_name(ctx, mod->name, &km) < 0)
		return;
	opts = kmod_module_get_options(km);
	snprintf(mod->conf_options, sizeof(mod->conf_options), "%s", opts ? opts : "");
}

static void read_live(struct kmod_ctx *ctx, struct gp_module *mod)
{
	_cleanup_kmod_module_ struct kmod_module *km = NULL;
	struct kmod_list *holders, *it;
	size_t len = 0;

	mod->loaded = false;
	mod->refcnt = -1;
	mod->holders[0] = '\0';
	if (kmod_module_new_from_name(ctx, mod->name, &km) < 0)
		return;
	mod->loaded = kmod_module_get_initstate(km) == KMOD_MODULE_LIVE;
	if (!mod->loaded)
		return;
	mod->refcnt = kmod_module_get_refcnt(km);
	holders = kmod_module_get_holders(km);
	kmod_list_foreach(it, holders)
	{
		struct kmod_module *h = kmod_module_get_module(it);

		len += (size_t)snprintf(mod->holders + len, sizeof(mod->holders) - len, "%s%s",
					len ? "," : "", kmod_module_get_name(h));
		kmod_module_unref(h);
		if (len >= sizeof(mod->holders))
			break;
	}
	kmod_module_unref_list(holders);
}

int gp_modules_read(const char *root, struct kmod_ctx *ctx, struct gp_modules *m)
{
	struct gp_module *all[] = { &m->nvidia, &m->uvm, &m->modeset };
	int r = 0;

	if (!gp_root_is_host(root) || !ctx) {
		r = gp_modules_read_tree(root, m);
	} else {
		gp_modules_init(m);
		m->live = true;
		for (size_t i = 0; i < GP_ARRAY_SIZE(all); i++)
			read_live(ctx, all[i]);
		gp_modules_read_params(root, m);
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(all); i++)
		read_conf_options(ctx, all[i]);
	return r;
}

void gp_kmod_free(struct kmod_ctx *ctx)
{
	if (ctx)
		kmod_unref(ctx);
}

int gp_kmod_lookup_path(struct kmod_ctx *ctx, const char *name, char *path, size_t size)
{
	struct kmod_list *list = NULL, *it;
	int r = kmod_module_new_from_lookup(ctx, name, &list);

	if (r < 0)
		return r;
	r = -ENOENT;
	kmod_list_foreach(it, list)
	{
		struct kmod_module *m = kmod_module_get_module(it);
		const char *p = kmod_module_get_path(m);

		if (r == -ENOENT && p) {
			snprintf(path, size, "%s", p);
			r = 0;
		}
		kmod_module_unref(m);
	}
	kmod_module_unref_list(list);
	return r;
}
