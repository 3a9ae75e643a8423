/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device cgroup rules: which keys this host enforces and what a container's rules allow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/statfs.h>

#include "base/paths.h"
#include "base/util.h"
#include "plan/cgroup.h"

/*
 * A mountinfo line (n bytes) ends with " - FSTYPE SOURCE SUPER_OPTIONS": a v1 hierarchy of
 * the devices controller is of type cgroup with "devices" among its options.
 */
static bool line_is_v1_devices(const char *line, size_t n)
{
	char copy[1024], *w[3];
	const char *sep;

	if (n >= sizeof(copy))
		return false;
	memcpy(copy, line, n);
	copy[n] = '\0';
	sep = strstr(copy, " - ");
	if (!sep || gp_split_words(copy + (sep - copy) + 3, w, 3) != 3 ||
	    strcmp(w[0], "cgroup") != 0)
		return false;
	for (char *save = NULL, *o = strtok_r(w[2], ",", &save); o; o = strtok_r(NULL, ",", &save))
		if (strcmp(o, "devices") == 0)
			return true;
	return false;
}

enum gp_cg_layout gp_cgroup_layout_parse(const char *mountinfo)
{
	const char *pos = mountinfo, *end = mountinfo + strlen(mountinfo), *line;
	size_t n;

	while (gp_line_next(&pos, end, &line, &n))
		if (line_is_v1_devices(line, n))
			return GP_CG_V1;
	return GP_CG_V2;
}

int gp_cgroup_layout_at(const char *root, enum gp_cg_layout *layout)
{
	_cleanup_free_ char *buf = NULL;
	int r = gp_read_file_at(root, "/proc/self/mountinfo", 4u << 20, &buf, NULL);

	if (r < 0)
		return r;
	*layout = gp_cgroup_layout_parse(buf);
	return 0;
}

/*
 * Asked of the filesystem, as systemd asks it, not read from the mount table: the hook
 * asks at each start, and a walk of mountinfo costs tens of microseconds, more on a host
 * with a mount per container.
 */
enum gp_cg_layout gp_cgroup_layout(void)
{
	struct statfs fs;

	if (statfs("/sys/fs/cgroup/devices", &fs) == 0 && fs.f_type == CGROUP_SUPER_MAGIC)
		return GP_CG_V1;
	return GP_CG_V2;
}

const char *gp_cgroup_key_prefix(enum gp_cg_layout layout)
{
	return layout == GP_CG_V1 ? "lxc.cgroup.devices" : "lxc.cgroup2.devices";
}

static int parse_num(const char *s, long *out)
{
	char *end;

	if (strcmp(s, "*") == 0) {
		*out = -1;
		return 0;
	}
	errno = 0;
	*out = strtol(s, &end, 10);
	return errno || *end || *out < 0 || end == s ? -GP_EBADCONF : 0;
}

/* "TYPE MAJOR:MINOR [ACCESS]", by words (util.h says why); what follows them is not read. */
int gp_cg_rule_parse(const char *value, struct gp_cg_rule *rule)
{
	char copy[256], *w[3], *colon;
	const char *access;
	size_t n;

	memset(rule, 0, sizeof(*rule));
	if (strlen(value) >= sizeof(copy))
		return -GP_EBADCONF;
	memcpy(copy, value, strlen(value) + 1);
	n = gp_split_words(copy, w, 3);
	if (n == 1 && strcmp(w[0], "a") == 0) {
		*rule = (struct gp_cg_rule){ 'a', -1, -1, true, true, true };
		return 0;
	}
	if (n < 2 || strlen(w[0]) != 1 || !strchr("abc", w[0][0]) || !(colon = strchr(w[1], ':')))
		return -GP_EBADCONF;
	*colon = '\0';
	rule->type = w[0][0];
	if (parse_num(w[1], &rule->major) < 0 || parse_num(colon + 1, &rule->minor) < 0)
		return -GP_EBADCONF;
	access = n >= 3 ? w[2] : "rwm";
	rule->r = strchr(access, 'r');
	rule->w = strchr(access, 'w');
	rule->m = strchr(access, 'm');
	return 0;
}

int gp_cg_rules_add(struct gp_cg_rules *rules, const char *prefix, const char *key,
		    const char *value)
{
	size_t plen = strlen(prefix);
	struct gp_cg_rule rule;

	if (strncmp(key, prefix, plen) != 0 || key[plen] != '.')
		return 0;
	key += plen + 1;
	if (strcmp(key, "allow") && strcmp(key, "deny"))
		return 0;
	if (gp_cg_rule_parse(value, &rule) < 0)
		return -GP_EBADCONF;
	if (strcmp(key, "deny") == 0 && rule.type == 'a') {
		/* "deny = a" resets the list: only what is allowed after it counts. */
		rules->deny_all = true;
		rules->nallow = rules->ndeny = 0;
		return 0;
	}
	if (strcmp(key, "deny") == 0) {
		if (rules->ndeny == GP_CG_MAX_RULES)
			return -E2BIG;
		rules->deny[rules->ndeny++] = rule;
		return 0;
	}
	if (rules->nallow == GP_CG_MAX_RULES)
		return -E2BIG;
	rules->allow[rules->nallow++] = rule;
	return 0;
}

static bool rule_matches(const struct gp_cg_rule *r, const struct gp_devnode *n)
{
	if (r->type == 'a')
		return true;
	return r->type == 'c' && (r->major < 0 || (unsigned long)r->major == n->major) &&
	       (r->minor < 0 || (unsigned long)r->minor == n->minor);
}

bool gp_cg_rules_allow(const struct gp_cg_rules *rules, const struct gp_devnode *n)
{
	bool allowed = !rules->deny_all;

	for (size_t i = 0; i < rules->nallow && !allowed; i++)
		allowed =
		    rule_matches(&rules->allow[i], n) && rules->allow[i].r && rules->allow[i].w;
	for (size_t i = 0; i < rules->ndeny && allowed; i++)
		if (rule_matches(&rules->deny[i], n) && (rules->deny[i].r || rules->deny[i].w))
			allowed = false;
	return allowed;
}
