/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* --nesting: Proxmox VE's features: nesting=1, or LXC's nesting.conf, given and taken back. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "config/lxcconf.h"
#include "config/pveconf.h"
#include "ops/nesting.h"
#include "ops/target.h"

/*
 * LXC's own: its AppArmor profile lxc-container-default-with-nesting, and proc and sys
 * mounted again at dev/.lxc/{proc,sys} for a nested runtime to mount from.
 */
#define NESTING_CONF "/usr/share/lxc/config/nesting.conf"
#define LXC_INCLUDE "lxc.include = " NESTING_CONF
/* .applied's record of the features item attach set, " (was V)" after it where V was there. */
#define PVE_RECORD "features item nesting=1"

bool gp_nesting_is_record(const char *line)
{
	return strncmp(line, PVE_RECORD, strlen(PVE_RECORD)) == 0;
}

/* The record of ours among old's, or NULL. */
static const char *find_record(const struct gp_target *t, const char *const *old, size_t nold)
{
	for (size_t i = 0; i < nold; i++)
		if (t->kind == GP_TARGET_PVE ? gp_nesting_is_record(old[i])
					     : strcmp(old[i], LXC_INCLUDE) == 0)
			return old[i];
	return NULL;
}

/* Proxmox's booleans. */
static bool truthy(const char *v)
{
	return !strcmp(v, "1") || !strcmp(v, "on") || !strcmp(v, "yes") || !strcmp(v, "true");
}

static void set_item(struct gp_nesting *n, const char *value, const char *only_if)
{
	snprintf(n->value, sizeof(n->value), "%s", value ? value : "");
	snprintf(n->only_if, sizeof(n->only_if), "%s", only_if ? only_if : "");
	n->item = (struct gp_pveconf_item){ "features", "nesting", value ? n->value : NULL,
					    only_if ? n->only_if : NULL };
}

/* Ours goes: nesting=1 back to what it was before, or out; left alone once it is not 1. */
static void undo_record(const char *record, struct gp_nesting *n)
{
	char was[32] = "";

	n->takes_out = true;
	if (sscanf(record + strlen(PVE_RECORD), " (was %31[^)])", was) == 1)
		set_item(n, was, "1");
	else
		set_item(n, NULL, "1");
}

/* The Proxmox config as it stands (none yet for create --dry-run), checked. */
static int read_pve(const struct gp_attach_opts *o, const struct gp_target *t, char **buf,
		    struct gp_pveconf *c)
{
	size_t len;
	int r;

	if (o->assume_new && access(t->config, F_OK) != 0)
		return gp_pveconf_parse("", 0, c);
	r = gp_read_file(t->config, GP_PVE_CONFIG_MAX, buf, &len);
	if (r < 0)
		return gp_error_errno(r, "Failed to read \"%s\"", t->config);
	if (gp_pveconf_parse(*buf, len, c) < 0) {
		gp_error("%s:%u: not \"key: value\", a comment or a [section]", t->config,
			 c->bad_line);
		return -GP_EBADCONF;
	}
	return 0;
}

/* Proxmox says Docker in an unprivileged container needs keyctl=1: said, never set. */
static void note_keyctl(const struct gp_pveconf *c, const struct gp_target *t)
{
	char v[32] = "";
	unsigned int line;

	if (gp_pveconf_get(c, "unprivileged", v, sizeof(v)) < 0 || !truthy(v))
		return;
	if (gp_pveconf_item_get(c, "features", "keyctl", v, sizeof(v), &line) == 0 && truthy(v))
		return;
	printf("note: %s is unprivileged, and Proxmox VE says keyctl=1 is required to use "
	       "Docker inside such a container: add keyctl=1 to its features: line if Docker "
	       "runs in it (gpu-provision does not set it)\n",
	       t->name);
}

static int plan_pve(const struct gp_attach_opts *o, const struct gp_target *t, const char *ours,
		    bool want, struct gp_nesting *n)
{
	_cleanup_free_ char *buf = NULL;
	struct gp_pveconf c;
	char v[32] = "";
	unsigned int line = 0;
	int r = read_pve(o, t, &buf, &c);

	if (r < 0)
		return r;
	r = gp_pveconf_item_get(&c, "features", "nesting", v, sizeof(v), &line);
	if (r == -GP_EBADCONF) {
		char features[256] = "";

		gp_pveconf_get(&c, "features", features, sizeof(features));
		gp_error("%s:%u: \"features: %s\": each part must be name=value, as Proxmox VE "
			 "writes them (keyctl=1,nesting=1): fix the line, then run this again",
			 t->config, line, features);
		return r;
	}
	if (!want) {
		if (ours)
			undo_record(ours, n);
		return 0;
	}
	if (ours) { /* an earlier attach's: kept, as it was recorded */
		snprintf(n->record, sizeof(n->record), "%s", ours);
		set_item(n, "1", NULL);
		return 0;
	}
	if (r == 0 && truthy(v)) {
		printf("%s already has nesting (%s:%u: nesting=%s in features:): left as it is\n",
		       t->name, t->config, line, v);
		return 0;
	}
	snprintf(n->record, sizeof(n->record), r == 0 ? PVE_RECORD " (was %s)" : PVE_RECORD, v);
	set_item(n, "1", NULL);
	n->adds = true;
	note_keyctl(&c, t);
	return 0;
}

/*
 * What a plain LXC config says of AppArmor and nesting, its includes followed (a line of
 * an included nesting.conf names that file), the last line of each key winning.
 */
struct lxc_seen {
	char profile[128], profile_at[PATH_MAX + 16];
	char allow[16], allow_at[PATH_MAX + 16];
};

static int seen_line(const char *key, const char *value, const char *file, unsigned int line,
		     void *user)
{
	struct lxc_seen *s = user;

	if (strcmp(key, "lxc.apparmor.profile") == 0) {
		snprintf(s->profile, sizeof(s->profile), "%s", value);
		snprintf(s->profile_at, sizeof(s->profile_at), "%s:%u: %s = %s", file, line, key,
			 value);
	}
	if (strcmp(key, "lxc.apparmor.allow_nesting") == 0) {
		snprintf(s->allow, sizeof(s->allow), "%s", value);
		snprintf(s->allow_at, sizeof(s->allow_at), "%s:%u: %s = %s", file, line, key,
			 value);
	}
	return 0;
}

/* LXC's own profiles that allow no nesting: nesting.conf's may replace them. */
static bool plain_profile(const char *p)
{
	return !p[0] || !strcmp(p, "generated") || !strcmp(p, "lxc-container-default") ||
	       !strcmp(p, "lxc-container-default-cgns");
}

/* True when the config has nesting of its own, or a profile of the admin's: said. */
static bool admins_own(const struct gp_target *t, const struct lxc_seen *s)
{
	if (!strcmp(s->profile, "unconfined") || strstr(s->profile, "nesting")) {
		printf("%s already has nesting (%s): left as it is\n", t->name, s->profile_at);
		return true;
	}
	if (!strcmp(s->profile, "generated") && !strcmp(s->allow, "1")) {
		printf("%s already has nesting (%s, with %s): left as it is\n", t->name,
		       s->allow_at, s->profile_at);
		return true;
	}
	if (plain_profile(s->profile))
		return false;
	printf("%s runs under an AppArmor profile of its own (%s): gpu-provision includes no "
	       "nesting.conf over it; allow nesting in that profile, or use lxc.apparmor.profile "
	       "= generated with lxc.apparmor.allow_nesting = 1\n",
	       t->name, s->profile_at);
	return true;
}

static int plan_lxc(const struct gp_target *t, const char *ours, bool want, struct gp_nesting *n)
{
	struct lxc_seen s = { 0 };
	int r;

	if (!want) {
		n->takes_out = ours != NULL; /* the line of .applied goes with the others */
		return 0;
	}
	if (!ours) {
		if (access(NESTING_CONF, R_OK) != 0) {
			gp_error("LXC's \"%s\" is not there (%s): install LXC's package whole, or "
				 "give the container nesting in its own config",
				 NESTING_CONF, gp_strerror(errno));
			return -GP_EBADCONF;
		}
		r = gp_lxcconf_walk(t->config, seen_line, &s);
		if (r < 0)
			return gp_error_errno(r, "Failed to read \"%s\"", t->config);
		if (admins_own(t, &s))
			return 0;
		n->adds = true;
	}
	snprintf(n->record, sizeof(n->record), "%s", LXC_INCLUDE);
	return 0;
}

int gp_nesting_plan(const struct gp_attach_opts *o, const struct gp_target *t,
		    const char *const *old, size_t nold, struct gp_nesting *n)
{
	const char *ours = find_record(t, old, nold);
	bool want = o->nesting > 0 || (o->nesting == 0 && ours);

	memset(n, 0, sizeof(*n));
	if (o->nesting < 0 && !ours)
		printf("%s: no nesting of gpu-provision's to take out\n", t->name);
	if (t->kind == GP_TARGET_PVE)
		return plan_pve(o, t, ours, want, n);
	return plan_lxc(t, ours, want, n);
}

void gp_nesting_undo(const struct gp_target *t, const char *const *old, size_t nold,
		     struct gp_nesting *n)
{
	const char *ours = find_record(t, old, nold);

	memset(n, 0, sizeof(*n));
	if (ours && t->kind == GP_TARGET_PVE)
		undo_record(ours, n);
	n->takes_out = ours != NULL;
}

const struct gp_pveconf_item *gp_nesting_item(const struct gp_nesting *n)
{
	return n->item.key ? &n->item : NULL;
}

void gp_nesting_say(const struct gp_nesting *n, const char *config, bool dry_run)
{
	const char *what = n->item.key ? "features: nesting=1" : LXC_INCLUDE;

	if (n->adds)
		printf("%s %s in %s (for Docker or Podman inside; detach takes it out)\n",
		       dry_run ? "would set" : "set", what, config);
	if (n->takes_out)
		printf("%s %s from %s (the nesting an earlier attach gave)\n",
		       dry_run ? "would take" : "took", what, config);
}
