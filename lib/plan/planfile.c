/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A plan as text: what the hook writes at a start and every reader of a plan parses. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "plan/planfile.h"
#include "plan/vendors.h"

/* Version 2 adds the owner and GPU lines; a plan without them is version 1, as before. */
#define PLAN_HEADER_1 "gpu-provision-plan 1\n"
#define PLAN_HEADER_2 "gpu-provision-plan 2\n"

static int format_start(struct gp_buf *b, const struct gp_plan *plan)
{
	int r = 0;

	if (plan->owner > 0)
		r = gp_buf_printf(b, "owner %d %llu\n", (int)plan->owner, plan->owner_start);
	for (size_t i = 0; i < plan->ngpus && r == 0; i++) {
		const struct gp_plan_gpu *g = &plan->gpus[i];

		r = gp_buf_printf(b, "gpu %u %s%s%s\n", g->index, g->uuid, g->pci[0] ? " " : "",
				  g->pci);
	}
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
		const struct gp_devnode *n = &plan->nodes[i];

		r = gp_buf_printf(&b, "node %s %u %u %04o %u %u\n", n->name, n->major, n->minor,
				  n->mode, n->uid, n->gid);
	}
	if (r < 0) {
		gp_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* An octal mode, digits only. */
static int parse_mode(const char *s, unsigned int *mode)
{
	if (!*s || s[strspn(s, "01234567")] != '\0' || strlen(s) > 6)
		return -GP_EBADCONF;
	*mode = (unsigned int)strtoul(s, NULL, 8);
	return 0;
}

/* "node NAME MAJOR MINOR MODE UID GID", by words (util.h says why). */
static int parse_node_line(char *line, struct gp_devnode *n)
{
	char *w[7];

	if (gp_split_words(line, w, 7) != 7 || strcmp(w[0], "node") != 0 ||
	    gp_parse_uint(w[2], &n->major) < 0 || gp_parse_uint(w[3], &n->minor) < 0 ||
	    parse_mode(w[4], &n->mode) < 0 || gp_parse_uint(w[5], &n->uid) < 0 ||
	    gp_parse_uint(w[6], &n->gid) < 0)
		return -GP_EBADCONF;
	if (strlen(w[1]) >= sizeof(n->name) || !gp_devnode_name_is_valid(w[1]) || n->major == 0 ||
	    n->major > 4095 || n->minor > 1048575 || n->mode > 07777)
		return -GP_EBADCONF;
	memcpy(n->name, w[1], strlen(w[1]) + 1);
	return 0;
}

/* "owner PID START": LXC's monitor and its start time. */
static int parse_owner_line(char *line, struct gp_plan *plan)
{
	char *w[3], *end;
	unsigned int p;

	if (gp_split_words(line, w, 3) != 3 || gp_parse_uint(w[1], &p) < 0 || p == 0 ||
	    p > INT_MAX || strlen(w[2]) > 23 || w[2][strspn(w[2], "0123456789")] != '\0' ||
	    !w[2][0])
		return -GP_EBADCONF;
	errno = 0;
	plan->owner_start = strtoull(w[2], &end, 10);
	if (errno)
		return -GP_EBADCONF;
	plan->owner = (pid_t)p;
	return 0;
}

/* Hex digits only, from min to max of them, then the character after: s's end, or NULL. */
static const char *hex_run(const char *s, size_t min, size_t max, char after)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n >= min && n <= max && s[n] == after ? s + n + (after != '\0') : NULL;
}

/* A PCI address as the driver's /proc names it: DOMAIN:BUS:DEVICE.FUNCTION, lower case. */
static bool pci_is_valid(const char *s)
{
	return (s = hex_run(s, 4, 8, ':')) && (s = hex_run(s, 2, 2, ':')) &&
	       (s = hex_run(s, 2, 2, '.')) && hex_run(s, 1, 1, '\0');
}

/* "gpu INDEX UUID [PCI]": a plan from before has no PCI address. */
static int parse_gpu_line(char *line, struct gp_plan_gpu *g)
{
	char *w[4];
	size_t n = gp_split_words(line, w, 4);

	if ((n != 3 && n != 4) || gp_parse_uint(w[1], &g->index) < 0 || g->index >= GP_MAX_GPUS ||
	    strlen(w[2]) >= sizeof(g->uuid) || !gp_str_is_printable(w[2]) ||
	    (n == 4 && !pci_is_valid(w[3])))
		return -GP_EBADCONF;
	memcpy(g->uuid, w[2], strlen(w[2]) + 1);
	if (n == 4)
		memcpy(g->pci, w[3], strlen(w[3]) + 1);
	return 0;
}

/*
 * One line of a plan, in its place: version 2's owner first (once), then its GPUs, then
 * the nodes. *part is where the plan is: 0 before the owner, 1 the GPUs, 2 the nodes.
 */
static int parse_line(char *line, int version, int *part, struct gp_plan *plan)
{
	if (version == 2 && *part == 0 && strncmp(line, "owner ", 6) == 0) {
		*part = 1;
		return parse_owner_line(line, plan);
	}
	if (version == 2 && *part <= 1 && strncmp(line, "gpu ", 4) == 0) {
		*part = 1;
		if (plan->ngpus == GP_MAX_GPUS)
			return -GP_EBADCONF;
		return parse_gpu_line(line, &plan->gpus[plan->ngpus++]);
	}
	*part = 2;
	if (plan->n == GP_PLAN_MAX_NODES || parse_node_line(line, &plan->nodes[plan->n]) < 0)
		return -GP_EBADCONF;
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
		return -GP_EBADCONF;
	pos = buf + strlen(PLAN_HEADER_1);
	while (gp_line_next(&pos, end, &at, &n)) {
		char line[160];

		/* Every line ends with a newline; none is longer than a node's. */
		if (at + n == end || n >= sizeof(line))
			return -GP_EBADCONF;
		memcpy(line, at, n);
		line[n] = '\0';
		if (parse_line(line, version, &part, plan) < 0) {
			memset(plan, 0, sizeof(*plan));
			return -GP_EBADCONF;
		}
	}
	return 0;
}

int gp_plan_read(const char *path, struct gp_plan *plan)
{
	_cleanup_free_ char *buf = NULL;
	int r = gp_read_file(path, GP_PLAN_FILE_MAX, &buf, NULL);

	return r < 0 ? r : gp_plan_parse(buf, plan);
}

int gp_plan_write(const char *path, const struct gp_plan *plan)
{
	_cleanup_free_ char *text = gp_plan_format(plan);

	return text ? gp_write_run_file(path, text) : -ENOMEM;
}
