/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* --nesting: Proxmox VE's features: nesting=1, or LXC's generated profile with nesting. */
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
 * Plain LXC's: LXC's generated AppArmor profile, with what a nested container needs
 * allowed and procfs and sysfs without lxcfs's overlays at /dev/.lxc/{proc,sys}
 * (lxc.container.conf(5)), as Proxmox VE's nesting=1 and Debian's /etc/lxc/default.conf
 * give. Not LXC's nesting.conf: its profile, lxc-container-default-with-nesting, allows
 * proc and sysfs mounts only below /var/cache/lxc (for nested LXC), never a nested runc's
 * or crun's into its container's rootfs.
 */
enum { PROFILE, ALLOW };
static const struct lxc_line {
	const char *key, *value, *line;
} lxc_lines[] = {
	[PROFILE] = { "lxc.apparmor.profile", "generated", "lxc.apparmor.profile = generated" },
	[ALLOW] = { "lxc.apparmor.allow_nesting", "1", "lxc.apparmor.allow_nesting = 1" },
};
_Static_assert(GP_ARRAY_SIZE(lxc_lines) == GP_ARRAY_SIZE(((struct gp_nesting *)0)->record),
	       "a record for each line");

/* .applied's record of the features item attach set, " (was V)" after it where V was there. */
#define PVE_RECORD "features item nesting=1"

bool gp_nesting_is_record(const char *line)
{
	return strncmp(line, PVE_RECORD, strlen(PVE_RECORD)) == 0;
}

static bool has_line(const char *const *old, size_t nold, const char *line)
{
	for (size_t i = 0; i < nold; i++)
		if (strcmp(old[i], line) == 0)
			return true;
	return false;
}

static bool is_lxc_line(const char *line)
{
	for (size_t k = 0; k < GP_ARRAY_SIZE(lxc_lines); k++)
		if (strcmp(line, lxc_lines[k].line) == 0)
			return true;
	return false;
}

/* The (first) record of ours among old's, or NULL. */
static const char *find_record(const struct gp_target *t, const char *const *old, size_t nold)
{
	for (size_t i = 0; i < nold; i++)
		if (t->kind == GP_TARGET_PVE ? gp_nesting_is_record(old[i]) : is_lxc_line(old[i]))
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
		snprintf(n->record[0], sizeof(n->record[0]), "%s", ours);
		set_item(n, "1", NULL);
		return 0;
	}
	if (r == 0 && truthy(v)) {
		printf("%s already has nesting (%s:%u: nesting=%s in features:): left as it is\n",
		       t->name, t->config, line, v);
		return 0;
	}
	snprintf(n->record[0], sizeof(n->record[0]), r == 0 ? PVE_RECORD " (was %s)" : PVE_RECORD,
		 v);
	set_item(n, "1", NULL);
	n->adds = true;
	note_keyctl(&c, t);
	return 0;
}

/*
 * What a plain LXC config says of the keys of lxc_lines, its includes followed, the last
 * line of each key winning; and whether the config itself has the line of ours as it is.
 */
struct lxc_seen {
	const char *config;
	struct {
		char value[128], at[PATH_MAX + 160];
		bool in_config; /* the admin's line: detach would take it out with ours */
	} keys[GP_ARRAY_SIZE(lxc_lines)];
};

static int seen_line(const char *key, const char *value, const char *file, unsigned int line,
		     void *user)
{
	struct lxc_seen *s = user;

	for (size_t k = 0; k < GP_ARRAY_SIZE(lxc_lines); k++) {
		if (strcmp(key, lxc_lines[k].key) != 0)
			continue;
		snprintf(s->keys[k].value, sizeof(s->keys[k].value), "%s", value);
		snprintf(s->keys[k].at, sizeof(s->keys[k].at), "%s:%u: %s = %s", file, line, key,
			 value);
		if (!strcmp(file, s->config) && !strcmp(value, lxc_lines[k].value))
			s->keys[k].in_config = true;
	}
	return 0;
}

/* LXC's own profiles that allow no nesting: the generated one with nesting replaces them. */
static bool plain_profile(const char *p)
{
	return !p[0] || !strcmp(p, "generated") || !strcmp(p, "lxc-container-default") ||
	       !strcmp(p, "lxc-container-default-cgns");
}

/* True when the config has nesting of its own, or a profile of the admin's: said. */
static bool admins_own(const struct gp_target *t, const struct lxc_seen *s)
{
	const char *profile = s->keys[PROFILE].value, *profile_at = s->keys[PROFILE].at;

	if (!strcmp(profile, "unconfined") || strstr(profile, "nesting")) {
		printf("%s already has nesting (%s): left as it is\n", t->name, profile_at);
		return true;
	}
	if (!strcmp(profile, "generated") && !strcmp(s->keys[ALLOW].value, "1")) {
		printf("%s already has nesting (%s, with %s): left as it is\n", t->name,
		       s->keys[ALLOW].at, profile_at);
		return true;
	}
	if (plain_profile(profile))
		return false;
	printf("%s runs under an AppArmor profile of its own (%s): gpu-provision gives no "
	       "nesting over it; allow nesting in that profile, or use lxc.apparmor.profile = "
	       "generated with lxc.apparmor.allow_nesting = 1\n",
	       t->name, profile_at);
	return true;
}

/* A line of ours that the config has and a later line undoes: said, as nothing is given. */
static bool overridden(const struct gp_target *t, const struct lxc_seen *s)
{
	for (size_t k = 0; k < GP_ARRAY_SIZE(lxc_lines); k++) {
		if (!s->keys[k].in_config || !strcmp(s->keys[k].value, lxc_lines[k].value))
			continue;
		printf("%s has \"%s\" in its config, then %s: gpu-provision gives no nesting "
		       "over that (detach would take out the config's line with its own); take "
		       "one of the two out, then run this again\n",
		       t->name, lxc_lines[k].line, s->keys[k].at);
		return true;
	}
	return false;
}

static void name_line(struct gp_nesting *n, const char *line)
{
	size_t len = strlen(n->said);

	snprintf(n->said + len, sizeof(n->said) - len, "%s%s", len ? " and " : "", line);
}

/* Ours where the config has no nesting: each line whose key the config has not so. */
static int add_lxc(const struct gp_target *t, struct gp_nesting *n)
{
	struct lxc_seen s = { .config = t->config };
	int r = gp_lxcconf_walk(t->config, seen_line, &s);

	if (r < 0)
		return gp_error_errno(r, "Failed to read \"%s\"", t->config);
	if (admins_own(t, &s) || overridden(t, &s))
		return 0;
	for (size_t k = 0; k < GP_ARRAY_SIZE(lxc_lines); k++) {
		if (!strcmp(s.keys[k].value, lxc_lines[k].value))
			continue; /* the config's own (generated, say), left to it */
		snprintf(n->record[k], sizeof(n->record[k]), "%s", lxc_lines[k].line);
		name_line(n, lxc_lines[k].line);
		n->adds = true;
	}
	return 0;
}

/* The lines of ours old records: kept (keep), or taken out with the rest of .applied's. */
static void lxc_recorded(const char *const *old, size_t nold, bool keep, struct gp_nesting *n)
{
	for (size_t k = 0; k < GP_ARRAY_SIZE(lxc_lines); k++) {
		if (!has_line(old, nold, lxc_lines[k].line))
			continue;
		if (keep)
			snprintf(n->record[k], sizeof(n->record[k]), "%s", lxc_lines[k].line);
		name_line(n, lxc_lines[k].line);
		n->takes_out = !keep;
	}
}

static int plan_lxc(const struct gp_target *t, const char *const *old, size_t nold, bool want,
		    struct gp_nesting *n)
{
	if (!find_record(t, old, nold))
		return want ? add_lxc(t, n) : 0;
	lxc_recorded(old, nold, want, n);
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
	return plan_lxc(t, old, nold, want, n);
}

void gp_nesting_undo(const struct gp_target *t, const char *const *old, size_t nold,
		     struct gp_nesting *n)
{
	const char *ours = find_record(t, old, nold);

	memset(n, 0, sizeof(*n));
	if (ours && t->kind == GP_TARGET_PVE)
		undo_record(ours, n);
	else if (ours)
		lxc_recorded(old, nold, false, n);
}

const struct gp_pveconf_item *gp_nesting_item(const struct gp_nesting *n)
{
	return n->item.key ? &n->item : NULL;
}

void gp_nesting_say(const struct gp_nesting *n, const char *config, bool dry_run)
{
	const char *what = n->item.key ? "features: nesting=1" : n->said;

	if (n->adds)
		printf("%s %s in %s (for Docker or Podman inside; detach takes it out)\n",
		       dry_run ? "would set" : "set", what, config);
	if (n->takes_out)
		printf("%s %s from %s (the nesting an earlier attach gave)\n",
		       dry_run ? "would take" : "took", what, config);
}
