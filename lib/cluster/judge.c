/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whether a container could start on a node of the cluster, and why not (judge.h). */
#include <stdarg.h>
#include <string.h>

#include "base/util.h"
#include "plan/select.h"
#include "cluster/judge.h"

static void append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Adds a "; "-separated part to buf. */
static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len && len + 2 < size) {
		memcpy(buf + len, "; ", 3);
		len += 2;
	}
	if (len >= size - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* --- a container's selection against a node's GPUs ------------------------------------ */

static bool looks_like_pci(const char *tok)
{
	size_t n = strlen(tok);

	return (n == 7 || n == 12) && tok[n - 2] == '.' && strchr(tok, ':');
}

/* "8 x NVIDIA B200", or "1 x NVIDIA H200, 1 x NVIDIA A100": what a node has, for people. */
static void describe_gpus(const struct gp_node_inv *node, char *buf, size_t size)
{
	buf[0] = '\0';
	if (node->ngpus == 0) {
		snprintf(buf, size, "no NVIDIA GPU");
		return;
	}
	for (size_t i = 0; i < node->ngpus; i++) {
		size_t same = 0, len = strlen(buf);
		bool seen = false;

		for (size_t k = 0; k < node->ngpus; k++) {
			seen |= k < i && strcmp(node->gpus[k].model, node->gpus[i].model) == 0;
			same += strcmp(node->gpus[k].model, node->gpus[i].model) == 0;
		}
		if (!seen && len < size)
			snprintf(buf + len, size - len, "%s%zu x %s", len ? ", " : "", same,
				 node->gpus[i].model[0] ? node->gpus[i].model : "GPU");
	}
}

/* The GPU one explicit token names on node: its position; -ENOENT none; -GP_EBADCONF no token. */
static int find_explicit(const char *tok, const struct gp_node_inv *node)
{
	unsigned int idx;
	char pci[32];

	if (gp_parse_uint(tok, &idx) == 0)
		return idx < node->ngpus ? (int)idx : -ENOENT;
	if (strncasecmp(tok, "GPU-", 4) == 0) {
		for (size_t i = 0; i < node->ngpus; i++)
			if (strcasecmp(node->gpus[i].uuid, tok) == 0)
				return (int)i;
		return -ENOENT;
	}
	if (!looks_like_pci(tok))
		return -GP_EBADCONF;
	snprintf(pci, sizeof(pci), "%s%s", strlen(tok) == 7 ? "0000:" : "", tok);
	for (size_t i = 0; i < node->ngpus; i++)
		if (strcasecmp(node->gpus[i].pci, pci) == 0)
			return (int)i;
	return -ENOENT;
}

static void explain_missing(const char *tok, const struct gp_node_inv *node, char *why, size_t size)
{
	if (strspn(tok, "0123456789") == strlen(tok) && node->ngpus > 1)
		append(why, size, "index %s: %s has GPUs 0-%zu", tok, node->node, node->ngpus - 1);
	else if (strspn(tok, "0123456789") == strlen(tok))
		append(why, size, "index %s: %s has %s", tok, node->node,
		       node->ngpus ? "GPU 0 only" : "no NVIDIA GPU");
	else if (strncasecmp(tok, "GPU-", 4) == 0)
		append(why, size, "%s is not on %s (a UUID names one GPU of one node)", tok,
		       node->node);
	else
		append(why, size, "%s has no GPU at PCI address %s", node->node, tok);
}

/* The explicit tokens (all, indexes, UUIDs, PCI addresses): 0, 1 refused, -GP_EBADCONF unknown. */
static int judge_explicit(char **tok, size_t ntok, const struct gp_node_inv *node, char *why,
			  size_t size)
{
	int r = 0;

	for (size_t t = 0; t < ntok; t++) {
		int i;

		if (strcmp(tok[t], "all") == 0) {
			if (node->ngpus == 0)
				append(why, size, "all: %s has no NVIDIA GPU", node->node), r = 1;
			continue;
		}
		i = find_explicit(tok[t], node);
		if (i == -GP_EBADCONF) {
			append(why, size, "\"%s\" is no selector this check knows", tok[t]);
			return -GP_EBADCONF;
		}
		if (i < 0) {
			explain_missing(tok[t], node, why, size);
			r = 1;
		} else if (node->gpus[i].excluded) {
			append(why, size, "%s: GPU %d (%s) is excluded by the driver on %s", tok[t],
			       i, node->gpus[i].uuid, node->node);
			r = 1;
		}
	}
	return r;
}

/*
 * any:N, model:TEXT:N, read by alloc.c's own parser: N GPUs the node may give (before any
 * other container there holds one, which only the start can know).
 */
static int judge_portable(const char *devices, const struct gp_node_inv *node, char *why,
			  size_t size)
{
	struct gp_log_capture said;
	struct gp_portable p;
	unsigned int n = 0;
	char has[256];
	int r;

	gp_log_capture_start(&said);
	r = gp_portable_parse(devices, NULL, &p);
	gp_log_capture_stop(&said);
	if (r < 0) {
		append(why, size, "%s", said.len ? said.text : "not a portable selection");
		return -GP_EBADCONF;
	}
	for (size_t i = 0; i < node->ngpus; i++)
		n += gp_portable_matches(&p, &node->gpus[i]);
	if (n >= p.count)
		return 0;
	describe_gpus(node, has, sizeof(has));
	if (p.model[0])
		append(why, size,
		       "model:%s:%u: %s has %u GPU(s) whose model contains \"%s\" (it has %s)",
		       p.model, p.count, node->node, n, p.model, has);
	else
		append(why, size, "any:%u: %s has %u GPU(s) to give (it has %s)", p.count,
		       node->node, n, has);
	return 1;
}

int gp_selection_judge(const char *devices, const struct gp_node_inv *node, char *why, size_t size)
{
	char copy[1024], *tok[GP_MAX_GPUS * 2], *save = NULL;
	size_t ntok = 0;

	why[0] = '\0';
	if (gp_selection_is_portable(devices))
		return judge_portable(devices, node, why, size);
	snprintf(copy, sizeof(copy), "%s", devices);
	for (char *t = strtok_r(copy, ",", &save); t && ntok < GP_ARRAY_SIZE(tok);
	     t = strtok_r(NULL, ",", &save))
		if (*gp_strtrim(t))
			tok[ntok++] = t;
	if (ntok == 0) {
		append(why, size, "it selects no GPU");
		return -GP_EBADCONF;
	}
	return judge_explicit(tok, ntok, node, why, size);
}

/* --- a container's start on a node ---------------------------------------------------- */

int gp_version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		char *ea, *eb;
		unsigned long x = strtoul(a, &ea, 10), y = strtoul(b, &eb, 10);

		if (x != y)
			return x < y ? -1 : 1;
		a = *ea == '.' ? ea + 1 : ea + strlen(ea);
		b = *eb == '.' ? eb + 1 : eb + strlen(eb);
	}
	return 0;
}

static void refuse(struct gp_start_verdict *v, unsigned int reason)
{
	v->start = GP_START_NO;
	v->reasons |= reason;
}

/* Another driver than on its home node: its own user space (inject = no) would not match. */
static void judge_driver(const struct gp_cluster_ct *ct, const struct gp_node_inv *home,
			 const struct gp_node_inv *node, struct gp_start_verdict *v)
{
	enum gp_inject_choice inject = ct->conf.inject_set ? ct->conf.inject : node->inject;
	int cmp;

	if (!home || !home->version[0] || !node->version[0] ||
	    strcmp(home->node, node->node) == 0 || strcmp(home->version, node->version) == 0)
		return;
	cmp = gp_version_cmp(node->version, home->version);
	if (inject == GP_INJECT_NO) {
		append(v->why, sizeof(v->why),
		       "driver %s on %s, %s on %s: with inject = no it carries its own driver user "
		       "space, which must be the kernel module's version (cuInit 803 otherwise)",
		       node->version, node->node, home->version, home->node);
		refuse(v, GP_REASON_DRIVER);
		return;
	}
	append(v->note, sizeof(v->note),
	       "driver %s on %s, %s on %s: each start injects that node's user space%s",
	       node->version, node->node, home->version, home->node,
	       cmp < 0 ? "; an older one: CUDA applications built for the newer driver's CUDA "
			 "version may not run"
		       : "");
}

/* HMM active in the node's nvidia_uvm, under the container's policy (the node's defaults). */
static void judge_hmm(const struct gp_cluster_ct *ct, const struct gp_node_inv *node,
		      struct gp_start_verdict *v)
{
	enum gp_hmm_policy policy =
	    ct->conf.disable_hmm_set ? ct->conf.disable_hmm : node->disable_hmm;
	enum gp_conflict conflict =
	    ct->conf.on_conflict_set ? ct->conf.on_conflict : node->on_conflict;

	if (node->hmm_active != GP_YES)
		return;
	if (policy == GP_HMM_NO) {
		append(v->note, sizeof(v->note),
		       "HMM is active in nvidia_uvm on %s, which disable_hmm = no accepts",
		       node->node);
		return;
	}
	if (conflict == GP_CONFLICT_WARN) {
		append(v->note, sizeof(v->note),
		       "HMM is active in nvidia_uvm on %s: the start reloads it with "
		       "uvm_disable_hmm=1, or goes on with HMM while the GPUs are in use there "
		       "(on_conflict = warn)",
		       node->node);
		return;
	}
	append(v->why, sizeof(v->why),
	       "HMM is active in nvidia_uvm on %s: the start must reload it with "
	       "uvm_disable_hmm=1, and is refused while anything uses the GPUs there "
	       "(disable_hmm = %s, on_conflict = refuse)",
	       node->node, gp_hmm_policy_name(policy));
	refuse(v, GP_REASON_HMM);
}

void gp_cluster_judge(const struct gp_cluster_ct *ct, const struct gp_node_inv *home,
		      const struct gp_cluster_node *node, struct gp_start_verdict *v)
{
	char why[512];
	int r;

	memset(v, 0, sizeof(*v));
	v->start = GP_START_UNKNOWN;
	if (ct->ini_status < 0) {
		append(v->why, sizeof(v->why), "its ini cannot be read: %s", ct->ini_error);
		return;
	}
	if (!node->inv) {
		append(v->why, sizeof(v->why), "%s has published no GPUs: %s", node->name,
		       node->why);
		return;
	}
	v->start = GP_START_YES;
	if (!node->inv->driver_loaded) {
		append(v->why, sizeof(v->why), "%s has no NVIDIA driver loaded", node->name);
		refuse(v, GP_REASON_NO_DRIVER);
		return;
	}
	r = gp_selection_judge(ct->conf.devices, node->inv, why, sizeof(why));
	if (r != 0)
		append(v->why, sizeof(v->why), "%s", why);
	if (r > 0)
		refuse(v, GP_REASON_SELECTION);
	judge_driver(ct, home, node->inv, v);
	judge_hmm(ct, node->inv, v);
	if (r < 0 && v->start == GP_START_YES)
		v->start = GP_START_UNKNOWN;
}
