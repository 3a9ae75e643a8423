/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The seam around module insertion and removal: the only code that changes the running
 * kernel. Tests replace both functions (-Wl,--wrap), since no test machine may load
 * modules; everything that decides what to call is tested through them.
 */
#include <libkmod.h>
#include <string.h>

#include "base/util.h"
#include "driver/kmod.h"

int gp_module_insert(struct kmod_ctx *ctx, const char *name, const char *options)
{
	struct kmod_list *list = NULL, *it;
	int r;

	r = kmod_module_new_from_lookup(ctx, name, &list);
	if (r < 0)
		return r;
	if (!list)
		return -ENOENT;
	r = -ENOENT;
	kmod_list_foreach(it, list)
	{
		struct kmod_module *m = kmod_module_get_module(it);

		/* Applies no options to a module that is already loaded: callers verify. */
		r = kmod_module_probe_insert_module(m, KMOD_PROBE_APPLY_BLACKLIST, options, NULL,
						    NULL, NULL);
		kmod_module_unref(m);
		if (r != 0)
			break;
	}
	kmod_module_unref_list(list);
	return r > 0 ? -EPERM : r;
}

int gp_module_remove(struct kmod_ctx *ctx, const char *name)
{
	struct kmod_module *m = NULL;
	int r = kmod_module_new_from_name(ctx, name, &m);

	if (r < 0)
		return r;
	r = kmod_module_remove_module(m, 0);
	kmod_module_unref(m);
	return r;
}
