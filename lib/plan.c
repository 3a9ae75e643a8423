/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plan of one start: exactly which nodes, with which numbers. It knows no vendor:
 * which nodes a host and an ini give, and which names are valid, it asks vendor.h.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
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

/* "path:line" of an ini's key for the hook and probe; NULL for attach (GP_WHERE_NONE). */
static const char *key_where(const struct gp_ctconf *conf, enum gp_conf_where where,
			     unsigned int line, char *buf, size_t size)
{
	if (where == GP_WHERE_NONE)
		return NULL;
	snprintf(buf, size, "%s:%u", conf->path, line);
	return buf;
}

/*
 * A portable selection is resolved by gpu-hook at each start: not with caps, which name
 * GPUs by device minor, nor in Proxmox's mode devn, which runs no hook.
 */
static int check_portable(const struct gp_ctconf *conf, enum gp_conf_where where)
{
	char line[sizeof(conf->path) + 16];

	if (!gp_selection_is_portable(conf->devices))
		return 0;
	if (strcmp(conf->mode, "devn") == 0)
		return gp_error_at(
		    -EINVAL, key_where(conf, where, conf->devices_line, line, sizeof(line)),
		    "devices = %s takes whichever GPUs are free at each start, which "
		    "gpu-hook decides, and mode devn runs no hook: use mode hook, or "
		    "select the GPUs by UUID, index or PCI address",
		    conf->devices);
	if (conf->caps[0])
		return gp_error_at(
		    -EINVAL, key_where(conf, where, conf->caps_line, line, sizeof(line)),
		    "caps = %s needs fixed GPUs (MIG caps name them by device minor, "
		    "gpuM/giG/ciC), but devices = %s takes whichever are free at each "
		    "start: select the GPUs by UUID, index or PCI address, or take caps "
		    "out",
		    conf->caps, conf->devices);
	return 0;
}

int gp_plan_for_chosen(const char *root, const struct gp_host *host, const struct gp_ctconf *conf,
		       enum gp_conf_where where, const bool chosen[GP_MAX_GPUS],
		       struct gp_plan *plan)
{
	const struct gp_vendor *vendor = gp_vendor_for_host(host);
	const char *at_file = where == GP_WHERE_NONE ? NULL : conf->path;
	int r = check_portable(conf, where);

	if (r == 0)
		r = vendor->plan(root, host, chosen, conf->caps, at_file, plan);
	if (r == 0 && conf->inject == GP_INJECT_YES &&
	    (conf->capabilities & (GP_CAP_BIT(GP_CAP_GRAPHICS) | GP_CAP_BIT(GP_CAP_DISPLAY))))
		r = vendor->plan_display(root, host, at_file, plan);
	return r;
}

int gp_plan_for_conf(const char *root, const struct gp_host *host, const struct gp_ctconf *conf,
		     enum gp_conf_where where, bool chosen[GP_MAX_GPUS], struct gp_plan *plan)
{
	char line[sizeof(conf->path) + 16];
	bool own[GP_MAX_GPUS];
	int r;

	if (!chosen)
		chosen = own;
	r = gp_vendor_for_host(host)->select(
	    conf->devices, host, key_where(conf, where, conf->devices_line, line, sizeof(line)),
	    chosen);
	return r < 0 ? r : gp_plan_for_chosen(root, host, conf, where, chosen, plan);
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

/* Version 2 adds the owner and GPU lines; a plan without them is version 1, as before. */
#define PLAN_HEADER_1 "gpu-provision-plan 1\n"
#define PLAN_HEADER_2 "gpu-provision-plan 2\n"

static int format_start(struct gp_buf *b, const struct gp_plan *plan)
{
	int r = 0;

	if (plan->owner > 0)
		r = gp_buf_printf(b, "owner %d %llu\n", (int)plan->owner, plan->owner_start);
	for (size_t i = 0; i < plan->ngpus && r == 0; i++)
		r = gp_buf_printf(b, "gpu %u %s\n", plan->gpus[i].index, plan->gpus[i].uuid);
	return r;
}

char *gp_plan_format(const struct gp_plan *plan)
{
	bool v2 = plan->owner > 0 || plan->ngpus > 0;
	struct gp_buf b = { 0 };
	int r = gp_buf_printf(&b, "%s", v2 ? PLAN_HEADER_2 : PLAN_HEADER_1);

	if (r == 0)
		r = format_start(&b, plan);
	for (size_t i = 0; i < plan->n && r == 0; i++) {
		const struct gp_node *n = &plan->nodes[i];

		r = gp_buf_printf(&b, "node %s %u %u %04o %u %u\n", n->name, n->major, n->minor,
				  n->mode, n->uid, n->gid);
	}
	if (r < 0) {
		gp_buf_free(&b);
		return NULL;
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

static int parse_owner_line(const char *line, struct gp_plan *plan)
{
	char pid[16], start[24], *end;
	unsigned int p;
	int used = 0;

	if (sscanf(line, "owner %15s %23s%n", pid, start, &used) != 2 || line[used] != '\0' ||
	    gp_parse_uint(pid, &p) < 0 || p == 0 || p > INT_MAX ||
	    start[strspn(start, "0123456789")] != '\0')
		return -EINVAL;
	errno = 0;
	plan->owner_start = strtoull(start, &end, 10);
	if (errno)
		return -EINVAL;
	plan->owner = (pid_t)p;
	return 0;
}

static int parse_gpu_line(const char *line, struct gp_plan_gpu *g)
{
	char uuid[64];
	int used = 0;

	if (!isdigit((unsigned char)line[4]) ||
	    sscanf(line, "gpu %u %63s%n", &g->index, uuid, &used) != 2 || line[used] != '\0' ||
	    g->index >= GP_MAX_GPUS || !gp_str_is_printable(uuid))
		return -EINVAL;
	snprintf(g->uuid, sizeof(g->uuid), "%s", uuid);
	return 0;
}

/*
 * One line of a plan, in its place: version 2's owner first (once), then its GPUs, then
 * the nodes. *part is where the plan is: 0 before the owner, 1 the GPUs, 2 the nodes.
 */
static int parse_line(const char *line, int version, int *part, struct gp_plan *plan)
{
	if (version == 2 && *part == 0 && strncmp(line, "owner ", 6) == 0) {
		*part = 1;
		return parse_owner_line(line, plan);
	}
	if (version == 2 && *part <= 1 && strncmp(line, "gpu ", 4) == 0) {
		*part = 1;
		if (plan->ngpus == GP_MAX_GPUS)
			return -EINVAL;
		return parse_gpu_line(line, &plan->gpus[plan->ngpus++]);
	}
	*part = 2;
	if (plan->n == GP_PLAN_MAX_NODES || parse_node_line(line, &plan->nodes[plan->n]) < 0)
		return -EINVAL;
	plan->n++;
	return 0;
}

int gp_plan_parse(const char *buf, struct gp_plan *plan)
{
	const char *pos, *end = buf + strlen(buf), *at;
	int version, part = 0;
	size_t n;

	memset(plan, 0, sizeof(*plan));
	if (strncmp(buf, PLAN_HEADER_1, strlen(PLAN_HEADER_1)) == 0)
		version = 1;
	else if (strncmp(buf, PLAN_HEADER_2, strlen(PLAN_HEADER_2)) == 0)
		version = 2;
	else
		return -EINVAL;
	pos = buf + strlen(PLAN_HEADER_1);
	while (gp_line_next(&pos, end, &at, &n)) {
		char line[160];

		/* Every line ends with a newline; none is longer than a node's. */
		if (at + n == end || n >= sizeof(line))
			return -EINVAL;
		memcpy(line, at, n);
		line[n] = '\0';
		if (parse_line(line, version, &part, plan) < 0) {
			memset(plan, 0, sizeof(*plan));
			return -EINVAL;
		}
	}
	return 0;
}
