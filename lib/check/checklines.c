/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision check NAME: lines of the container's config that are no rules or binds. */
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "check/check.h"
#include "check/recipe.h"

/* A line LXC runs as a hook: lxc.hook.TYPE of today's config (lxc.hook.version is none). */
static bool is_hook(const struct gp_cfgline *l)
{
	return strncmp(l->key, "lxc.hook.", 9) == 0 && strcmp(l->key, "lxc.hook.version") != 0 &&
	       !l->pending;
}

/* Where a shell word may start: the value's start, after a blank or an operator. */
static bool word_start(const char *v, const char *p)
{
	return p == v || strchr(" \t;&|()", p[-1]) != NULL;
}

/*
 * The "#" that starts a comment when sh reads the value: one that begins a word outside
 * quotes ("a#b", '#' and "\#" start none). NULL when there is none.
 */
static const char *shell_comment(const char *v)
{
	char quote = 0;

	for (const char *p = v; *p; p++) {
		if (quote && *p == quote)
			quote = 0;
		else if (quote == '\'')
			continue;
		else if (*p == '\\' && p[1])
			p++;
		else if (!quote && (*p == '\'' || *p == '"'))
			quote = *p;
		else if (!quote && *p == '#' && word_start(v, p))
			return p;
	}
	return NULL;
}

static void check_inline_comment(const char *name, const struct gp_cfglines *c,
				 const struct gp_cfgline *l, struct gp_findings *f)
{
	const char *comment = shell_comment(l->value);
	struct gp_finding *x;
	char where[1024];

	if (!comment || !(x = gp_findings_add(f, GP_FINDING_HOOK_INLINE_COMMENT)))
		return;
	gp_cfgline_where(c, l, where, sizeof(where));
	GP_SET(x->summary,
	       "%s's %s ends in a comment: LXC runs it as sh -c \"exec VALUE NAME lxc TYPE\", so "
	       "\"%.80s\" swallows the container's name, the section and the hook's type; a hook "
	       "that reads them (gpu-hook does) fails, and the start with it",
	       name, l->key, comment);
	GP_SET(x->evidence, "%s", where);
	GP_SET(x->fix, "move the comment onto a line of its own, above the hook");
}

/* A word of v that is the command (or ends a path to it, /bin/chown): chown, chmod, chgrp. */
static bool changes_owner_or_mode(const char *v)
{
	static const char *const cmds[] = { "chown", "chmod", "chgrp" };

	for (size_t i = 0; i < GP_ARRAY_SIZE(cmds); i++)
		for (const char *p = strstr(v, cmds[i]); p; p = strstr(p + 1, cmds[i]))
			if ((word_start(v, p) || p[-1] == '/' || p[-1] == '\'' || p[-1] == '"') &&
			    strchr(" \t", p[strlen(cmds[i])]) && p[strlen(cmds[i])])
				return true;
	return false;
}

/* The host's /dev/nvidia*: a word that starts with it, not one under the rootfs. */
static bool names_host_nodes(const char *v)
{
	for (const char *p = strstr(v, "/dev/nvidia"); p; p = strstr(p + 1, "/dev/nvidia"))
		if (p == v || strchr(" \t'\"=:", p[-1]))
			return true;
	return false;
}

static void check_host_nodes(const char *name, const struct gp_cfglines *c,
			     const struct gp_cfgline *l, struct gp_findings *f)
{
	struct gp_finding *x;
	char where[1024];

	/* lxc.hook.start runs in the container: its /dev is the container's. */
	if (strcmp(l->key, "lxc.hook.start") == 0 || !changes_owner_or_mode(l->value) ||
	    !names_host_nodes(l->value) ||
	    !(x = gp_findings_add(f, GP_FINDING_HOOK_CHANGES_HOST_NODES)))
		return;
	gp_cfgline_where(c, l, where, sizeof(where));
	GP_SET(x->summary,
	       "%s's %s changes the owner or mode of the host's /dev/nvidia* at each start: "
	       "every user and container of the host gets what it gives them, until the driver "
	       "makes the nodes again",
	       name, l->key);
	GP_SET(x->evidence, "%s; the hook runs on the host, where /dev is the host's", where);
	GP_SET(x->fix,
	       "take the hook out; gpu-provision adopt %s gives the container its nodes with "
	       "the owner and mode its ini says, on the container's side only",
	       name);
}

/* The line that decides a setting: the last of today's config with that key. */
static const struct gp_cfgline *last(const struct gp_cfglines *c, const char *key)
{
	const struct gp_cfgline *found = NULL;

	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].key, key) == 0 && !c->v[i].pending)
			found = &c->v[i];
	return found;
}

/*
 * A privileged container with AppArmor off and every capability kept: an empty
 * lxc.cap.drop clears the drops before it (Proxmox's and LXC's common.conf), and no
 * later one drops any again.
 */
static void check_unconfined(const char *name, const struct gp_recipe *rec, struct gp_findings *f)
{
	const struct gp_cfgline *aa = last(rec->cfg, "lxc.apparmor.profile"),
				*drop = last(rec->cfg, "lxc.cap.drop");
	char a[1024], d[1024];
	struct gp_finding *x;

	if (rec->unprivileged || !aa || strcmp(aa->value, "unconfined") != 0 || !drop ||
	    drop->value[0] || !(x = gp_findings_add(f, GP_FINDING_PRIVILEGED_UNCONFINED)))
		return;
	gp_cfgline_where(rec->cfg, aa, a, sizeof(a));
	gp_cfgline_where(rec->cfg, drop, d, sizeof(d));
	GP_SET(x->summary,
	       "%s is privileged, unconfined and keeps every capability: root in it is root on "
	       "the host; it can load modules, mount the host's disks and lift its own device "
	       "rules, so every GPU and device of the host is in its reach",
	       name);
	GP_SET(x->evidence, "%s; %s; no lxc.idmap%s", aa < drop ? a : d, aa < drop ? d : a,
	       rec->cfg->pve ? " nor unprivileged: 1" : "");
	GP_SET(x->fix,
	       "take both lines out (GPUs need neither: gpu-provision attach %s gives them to a "
	       "confined container), or make the container unprivileged",
	       name);
}

/* Today's config gives no NVIDIA node: no recipe line does, gpu-hook is not there. */
static bool gives_nothing(const struct gp_recipe *rec)
{
	for (size_t i = 0; i < rec->n; i++)
		if (gp_recipe_gives_now(&rec->v[i]))
			return false;
	return !rec->gpu_hook;
}

/* Proxmox keeps "#" lines as the description: a commented NVIDIA block gives nothing. */
static void check_commented(const char *name, const struct gp_recipe *rec, struct gp_findings *f)
{
	const struct gp_cfglines *c = rec->cfg;
	struct gp_finding *x = NULL;
	size_t len = 0, n = 0;

	for (size_t i = 0; i < c->ncommented && gives_nothing(rec); i++) {
		const struct gp_cfgline *l = &c->commented[i];

		if (!gp_recipe_mentions_nvidia(l) ||
		    (!x && !(x = gp_findings_add(f, GP_FINDING_NVIDIA_BLOCK_COMMENTED))))
			continue;
		if (len < sizeof(x->evidence))
			len += (size_t)snprintf(x->evidence + len, sizeof(x->evidence) - len,
						"%s%s:%u: #%s: %s", len ? "; " : "", c->files[0],
						l->line, l->key, l->value);
		n++;
	}
	if (!x)
		return;
	GP_SET(x->summary,
	       "%s has %zu NVIDIA line(s) commented out and none in force: Proxmox keeps them "
	       "as the description, so none applies and the container gets no GPU",
	       name, n);
	GP_SET(x->fix,
	       "gpu-provision attach %s gives it GPUs (the commented lines can go from the "
	       "description); uncommented, they would be a recipe check judges",
	       name);
}

void gp_check_lines(const char *name, const struct gp_recipe *rec, struct gp_findings *f)
{
	check_commented(name, rec, f);
	check_unconfined(name, rec, f);
	for (size_t i = 0; i < rec->cfg->n; i++) {
		const struct gp_cfgline *l = &rec->cfg->v[i];

		if (!is_hook(l))
			continue;
		check_inline_comment(name, rec->cfg, l, f);
		check_host_nodes(name, rec->cfg, l, f);
	}
}
