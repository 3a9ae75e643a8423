/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision check NAME: the Proxmox devN lines that give NVIDIA nodes by hand. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "check/check.h"
#include "check/recipe.h"
#include "config/cfglines.h"

/* The mode, uid and gid Proxmox makes a devN's node with: 0660 root:root unless given. */
struct devn_node {
	unsigned int mode, uid, gid;
	bool mode_given;
};

/* False where an option is given but is no number: what Proxmox makes of it is not judged. */
static bool devn_node(const struct gp_recipe_line *l, struct devn_node *n)
{
	int mode = gp_cfg_devn_option(l->cfg, "mode", &n->mode);
	int uid = gp_cfg_devn_option(l->cfg, "uid", &n->uid);
	int gid = gp_cfg_devn_option(l->cfg, "gid", &n->gid);

	n->mode_given = mode > 0;
	if (!mode)
		n->mode = 0660;
	if (!uid)
		n->uid = 0;
	if (!gid)
		n->gid = 0;
	return mode >= 0 && uid >= 0 && gid >= 0;
}

static bool is_devn(const struct gp_recipe_line *l)
{
	return l->kind == GP_RECIPE_DEVN && !l->cfg->pending;
}

/* The host's node a devN names: true with its stat when it is a character device. */
static bool host_char(const struct gp_recipe_line *l, struct stat *st)
{
	return lstat(l->source, st) == 0 && S_ISCHR(st->st_mode);
}

static void fix_devn(const char *name, struct gp_finding *x)
{
	GP_SET(x->fix,
	       "gpu-provision adopt %s --dry-run, then adopt %s: the devN lines go, gpu-hook gives "
	       "each node at the host's mode at every start",
	       name, name);
}

/* "dev0: /dev/nvidia-caps": Proxmox stats the path at start, "... is not a device". */
static void check_not_device(const char *name, const struct gp_recipe *rec,
			     const struct gp_recipe_line *l, struct gp_findings *f)
{
	struct gp_finding *x;
	struct stat st;
	char where[1024];

	if (!is_devn(l) || lstat(l->source, &st) < 0 || S_ISCHR(st.st_mode) ||
	    S_ISBLK(st.st_mode) || !(x = gp_findings_add(f, GP_FINDING_DEVN_NOT_DEVICE)))
		return;
	gp_cfgline_where(rec->cfg, l->cfg, where, sizeof(where));
	GP_SET(x->summary,
	       "%s gives /dev/%s by devN, which is %s, not a device node: Proxmox refuses the "
	       "start (\"... is not a device\")",
	       name, l->node, S_ISDIR(st.st_mode) ? "a directory" : "no device");
	GP_SET(x->evidence, "%s", where);
	fix_devn(name, x);
}

/* Two devN lines of today's config that give one path. */
static void check_duplicate(const char *name, const struct gp_recipe *rec, size_t i,
			    struct gp_findings *f)
{
	const struct gp_recipe_line *l = &rec->v[i];
	char a[1024], b[1024];

	if (!is_devn(l))
		return;
	for (size_t j = i + 1; j < rec->n; j++) {
		const struct gp_recipe_line *m = &rec->v[j];
		struct gp_finding *x;

		if (!is_devn(m) || strcmp(l->source, m->source) != 0 ||
		    !(x = gp_findings_add(f, GP_FINDING_DEVN_DUPLICATE)))
			continue;
		gp_cfgline_where(rec->cfg, l->cfg, a, sizeof(a));
		gp_cfgline_where(rec->cfg, m->cfg, b, sizeof(b));
		GP_SET(x->summary, "%s gives /dev/%s twice, by %s and %s", name, l->node,
		       l->cfg->key, m->cfg->key);
		GP_SET(x->evidence, "%s; %s", a, b);
		fix_devn(name, x);
		return; /* a third is the second's duplicate */
	}
}

static const char *access_words(unsigned int bits)
{
	return (bits & 06) == 06 ? "read and write" : (bits & 04) ? "read" : "write";
}

/* mode= that gives every user of the container what the host keeps from them. */
static void check_mode_wider(const char *name, const struct gp_recipe *rec,
			     const struct gp_recipe_line *l, struct gp_findings *f)
{
	struct devn_node n;
	struct gp_finding *x;
	struct stat st;
	char where[1024];
	unsigned int more;

	if (!is_devn(l) || !host_char(l, &st) || !devn_node(l, &n))
		return;
	more = n.mode & 06 & ~(unsigned int)st.st_mode;
	if (!n.mode_given || !more || !(x = gp_findings_add(f, GP_FINDING_DEVN_MODE_WIDER)))
		return;
	gp_cfgline_where(rec->cfg, l->cfg, where, sizeof(where));
	GP_SET(x->summary,
	       "%s gives /dev/%s mode %04o, where the host keeps it %04o: every user of the "
	       "container can %s it",
	       name, l->node, n.mode, (unsigned int)st.st_mode & 07777, access_words(more));
	GP_SET(x->evidence, "%s", where);
	fix_devn(name, x);
}

/* Nodes every user opens on the host that only root or one group opens in the container. */
static bool narrower(const struct gp_recipe_line *l)
{
	struct devn_node n;
	struct stat st;

	if (!is_devn(l) || !host_char(l, &st) || (st.st_mode & 06) != 06 || !devn_node(l, &n))
		return false;
	return (n.mode & 06) != 06;
}

static void check_mode_narrower(const char *name, const struct gp_recipe *rec,
				struct gp_findings *f)
{
	char where[1024], lines[768] = "", who[64] = "";
	struct gp_finding *x = NULL;
	size_t len = 0, n = 0;

	for (size_t i = 0; i < rec->n; i++) {
		const struct gp_recipe_line *l = &rec->v[i];
		struct devn_node d;

		if (!narrower(l))
			continue;
		devn_node(l, &d);
		if (!who[0])
			snprintf(who, sizeof(who), "%04o uid %u gid %u", d.mode, d.uid, d.gid);
		gp_cfgline_where(rec->cfg, l->cfg, where, sizeof(where));
		if (len < sizeof(lines))
			len += (size_t)snprintf(lines + len, sizeof(lines) - len, "%s%s",
						len ? "; " : "", where);
		n++;
	}
	if (!n || !(x = gp_findings_add(f, GP_FINDING_DEVN_MODE_NARROWER)))
		return;
	GP_SET(x->summary,
	       "%s gets %zu NVIDIA node(s) by devN as %s (first of them), where the host's are "
	       "0666: a service of another user (plex, jellyfin, ollama) gets EACCES",
	       name, n, who);
	GP_SET(x->evidence,
	       "%s; Proxmox makes a devN's node 0660 root:root unless mode=, uid=, "
	       "gid= say otherwise",
	       lines);
	fix_devn(name, x);
}

void gp_check_devn(const char *name, const struct gp_recipe *rec, struct gp_findings *f)
{
	for (size_t i = 0; i < rec->n; i++) {
		check_not_device(name, rec, &rec->v[i], f);
		check_duplicate(name, rec, i, f);
		check_mode_wider(name, rec, &rec->v[i], f);
	}
	check_mode_narrower(name, rec, f);
}
