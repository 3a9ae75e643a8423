/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/plan/cgroup.c. */
#ifndef GP_CGROUP_H
#define GP_CGROUP_H

#include <stdbool.h>

#include "plan/plan.h"

enum gp_cg_layout { GP_CG_V2, GP_CG_V1 };

/*
 * Where the devices controller lives on this host (never under --root: it is the
 * real runtime's): v1 when /sys/fs/cgroup/devices is a cgroup v1 mount, else v2.
 */
enum gp_cg_layout gp_cgroup_layout(void);
/*
 * Where it lives on a host whose /proc/self/mountinfo is under root (a capture's): v1 when
 * a cgroup v1 hierarchy carries "devices", else v2. 0, or -errno where it cannot be read.
 */
int gp_cgroup_layout_at(const char *root, enum gp_cg_layout *layout);
/* Same, from a /proc/self/mountinfo buffer. */
enum gp_cg_layout gp_cgroup_layout_parse(const char *mountinfo);

/* "lxc.cgroup.devices" or "lxc.cgroup2.devices": the prefix LXC enforces here. */
const char *gp_cgroup_key_prefix(enum gp_cg_layout layout);

/* The device rules of a container config, in order, as LXC would apply them. */
#define GP_CG_MAX_RULES 256
struct gp_cg_rule {
	char type;	   /* 'a', 'c', 'b' */
	long major, minor; /* -1 for '*' */
	bool r, w, m;
};
struct gp_cg_rules {
	bool deny_all; /* a "deny = a" was seen: only allowed nodes are reachable */
	struct gp_cg_rule allow[GP_CG_MAX_RULES];
	size_t nallow;
	struct gp_cg_rule deny[GP_CG_MAX_RULES];
	size_t ndeny;
};

/* Parses "c 195:0 rwm", "a", "c *:* m". -GP_EBADCONF for anything else. */
int gp_cg_rule_parse(const char *value, struct gp_cg_rule *rule);

/*
 * Feeds one config line; keys other than <prefix>.allow / <prefix>.deny are ignored.
 * 0, -GP_EBADCONF for a rule that does not parse, -E2BIG past GP_CG_MAX_RULES allow or deny
 * rules (a rule left out could turn into a false "missing rule").
 */
int gp_cg_rules_add(struct gp_cg_rules *rules, const char *prefix, const char *key,
		    const char *value);

/* True when a container with these rules can open (read and write) node n. */
bool gp_cg_rules_allow(const struct gp_cg_rules *rules, const struct gp_devnode *n);

#endif
