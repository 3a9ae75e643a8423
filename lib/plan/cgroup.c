/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device cgroup rules: which keys this host enforces and what a container's rules allow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "base/util.h"
#include "plan/cgroup.h"

/* A mountinfo line ends with " - FSTYPE SOURCE SUPER_OPTIONS". */
static bool line_is_v1_devices(const char *line, size_t n)
{
	char copy[1024], fstype[64], source[256], opts[512];
	const char *sep;

	if (n >= sizeof(copy))
		return false;
	memcpy(copy, line, n);
	copy[n] = '\0';
	sep = strstr(copy, " - ");
	if (!sep || sscanf(sep + 3, "%63s %255s %511s", fstype, source, opts) != 3)
		return false;
	if (strcmp(fstype, "cgroup") != 0)
		return false;
	for (char *save = NULL, *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
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

enum gp_cg_layout gp_cgroup_layout(void)
{
	enum gp_cg_layout layout = GP_CG_V2;

	gp_cgroup_layout_at(NULL, &layout);
	return layout;
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

int gp_cg_rule_parse(const char *value, struct gp_cg_rule *rule)
{
	char type[4], maj[16], min[16], access[8] = "rwm";
	int n;

	memset(rule, 0, sizeof(*rule));
	n = sscanf(value, "%3s %15[^:]:%15s %7s", type, maj, min, access);
	if (n == 1 && strcmp(type, "a") == 0) {
		*rule = (struct gp_cg_rule){ 'a', -1, -1, true, true, true };
		return 0;
	}
	if (n < 3 || strlen(type) != 1 || !strchr("abc", type[0]))
		return -GP_EBADCONF;
	rule->type = type[0];
	if (parse_num(maj, &rule->major) < 0 || parse_num(min, &rule->minor) < 0)
		return -GP_EBADCONF;
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
