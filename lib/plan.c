/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plan of one start: exactly which nodes, with which numbers. It knows no vendor:
 * which nodes a host and an ini give, and which names are valid, it asks vendor.h.
 */
#include <stdio.h>
#include <string.h>

#include "ctconf.h"
#include "log.h"
#include "plan.h"
#include "userspace.h"
#include "util.h"
#include "vendor.h"

int gp_plan_add(struct gp_plan *plan, const struct gp_node *node, const char *where)
{
	for (size_t i = 0; i < plan->n; i++)
		if (strcmp(plan->nodes[i].name, node->name) == 0)
			return 0;
	if (plan->n == GP_PLAN_MAX_NODES)
		return gp_error_at(-E2BIG, where, "more than %d nodes planned", GP_PLAN_MAX_NODES);
	plan->nodes[plan->n] = *node;
	plan->nodes[plan->n].mode &= 07777;
	plan->n++;
	return 0;
}

int gp_plan_for_conf(const char *root, const struct gp_host *host, const struct gp_ctconf *conf,
		     enum gp_conf_where where, bool chosen[GP_MAX_GPUS], struct gp_plan *plan)
{
	const struct gp_vendor *vendor = gp_vendor_for_host(host);
	const char *at_file = where == GP_WHERE_NONE ? NULL : conf->path;
	const char *at_devices = at_file;
	char line[sizeof(conf->path) + 16];
	bool own[GP_MAX_GPUS];
	int r;

	if (where == GP_WHERE_LINE) {
		snprintf(line, sizeof(line), "%s:%u", conf->path, conf->devices_line);
		at_devices = line;
	}
	if (!chosen)
		chosen = own;
	r = vendor->select(conf->devices, host, at_devices, chosen);
	if (r == 0)
		r = vendor->plan(root, host, chosen, conf->caps, at_file, plan);
	if (r == 0 && conf->inject == GP_INJECT_YES &&
	    (conf->capabilities & (GP_CAP_BIT(GP_CAP_GRAPHICS) | GP_CAP_BIT(GP_CAP_DISPLAY))))
		r = vendor->plan_display(root, host, at_file, plan);
	return r;
}

int gp_plan_all(const char *root, const struct gp_host *host, struct gp_plan *plan)
{
	return gp_vendor_for_host(host)->plan_all(root, host, plan);
}

bool gp_node_name_is_valid(const char *name)
{
	const struct gp_vendor *vendor;

	for (size_t i = 0; (vendor = gp_vendor_nth(i)); i++)
		if (vendor->node_name_is_valid(name))
			return true;
	return false;
}

#define PLAN_HEADER "gpu-provision-plan 1\n"

char *gp_plan_format(const struct gp_plan *plan)
{
	struct gp_buf b = { 0 };

	if (gp_buf_printf(&b, PLAN_HEADER) < 0)
		return NULL;
	for (size_t i = 0; i < plan->n; i++) {
		const struct gp_node *n = &plan->nodes[i];

		if (gp_buf_printf(&b, "node %s %u %u %04o %u %u\n", n->name, n->major, n->minor,
				  n->mode, n->uid, n->gid) < 0) {
			gp_buf_free(&b);
			return NULL;
		}
	}
	return b.data;
}

static int parse_node_line(const char *line, struct gp_node *n)
{
	char name[64];
	int used = 0;

	if (sscanf(line, "node %63s %u %u %o %u %u%n", name, &n->major, &n->minor, &n->mode,
		   &n->uid, &n->gid, &used) != 6 ||
	    line[used] != '\0')
		return -EINVAL;
	if (!gp_node_name_is_valid(name) || n->major == 0 || n->major > 4095 ||
	    n->minor > 1048575 || n->mode > 07777)
		return -EINVAL;
	snprintf(n->name, sizeof(n->name), "%s", name);
	return 0;
}

int gp_plan_parse(const char *buf, struct gp_plan *plan)
{
	const char *pos, *end = buf + strlen(buf), *at;
	size_t n;

	memset(plan, 0, sizeof(*plan));
	if (strncmp(buf, PLAN_HEADER, strlen(PLAN_HEADER)) != 0)
		return -EINVAL;
	pos = buf + strlen(PLAN_HEADER);
	while (gp_line_next(&pos, end, &at, &n)) {
		char line[160];

		/* Every line ends with a newline; none is longer than a node's. */
		if (at + n == end || n >= sizeof(line) || plan->n == GP_PLAN_MAX_NODES)
			return -EINVAL;
		memcpy(line, at, n);
		line[n] = '\0';
		if (parse_node_line(line, &plan->nodes[plan->n]) < 0)
			return -EINVAL;
		plan->n++;
	}
	return 0;
}
