/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* check on a Proxmox VE node: the cluster's nodes and where each GPU container could start. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/paths.h"
#include "base/quorum.h"
#include "base/util.h"
#include "check/check.h"
#include "cluster/checkcluster.h"

static void when(long t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(buf, size, "%ld", t);
}

static void unpublished(const struct gp_cluster *cl, const struct gp_cluster_node *node,
			struct gp_findings *f)
{
	struct gp_finding *x = gp_findings_add(f, GP_FINDING_CLUSTER_NODE_UNPUBLISHED);
	bool self = strcmp(node->name, cl->self) == 0;

	if (!x)
		return;
	if (node->status == -ENOENT)
		GP_SET(x->summary,
		       "node %s has published no GPUs: where containers could start "
		       "there is unknown",
		       node->name);
	else
		GP_SET(x->summary, "node %s's published GPUs cannot be read", node->name);
	GP_SET(x->evidence, "%s", node->why);
	if (self)
		GP_SET(x->fix, "run gpu-provision prepare here (gpu-provision-prepare.service "
			       "does at each boot): it publishes this node's GPUs");
	else
		GP_SET(x->fix,
		       "run gpu-provision prepare on %s (or enable gpu-provision-prepare."
		       "service there); a node without NVIDIA GPUs may stay as it is",
		       node->name);
}

static bool same_gpus(const struct gp_node_inv *inv, const struct gp_host *h)
{
	if (inv->ngpus != h->ngpus)
		return false;
	for (size_t i = 0; i < inv->ngpus; i++)
		if (strcasecmp(inv->gpus[i].uuid, h->gpus[i].uuid) != 0)
			return false;
	return true;
}

static const char *tristate_word(enum gp_tristate t)
{
	return t == GP_YES ? "yes" : t == GP_NO ? "no" : "unknown";
}

/* This node's file against the host as check reads it now. */
static void own_inventory(const struct gp_check_run *run, const struct gp_node_inv *inv,
			  struct gp_findings *f)
{
	const struct gp_host *h = &run->hs.host;
	enum gp_tristate hmm = run->hs.hmm.active;
	struct gp_finding *x;
	char at[32];

	if (inv->driver_loaded == h->driver_loaded && strcmp(inv->version, h->version) == 0 &&
	    same_gpus(inv, h) &&
	    (inv->hmm_active == hmm || inv->hmm_active == GP_UNKNOWN || hmm == GP_UNKNOWN))
		return;
	x = gp_findings_add(f, GP_FINDING_CLUSTER_INVENTORY_STALE);
	if (!x)
		return;
	when(inv->written, at, sizeof(at));
	GP_SET(x->summary, "this node's published GPUs are not what it has now: the other "
			   "nodes judge by an old file");
	GP_SET(x->evidence,
	       "published %s: driver %s, %zu GPU(s), HMM active %s; now: driver %s, %zu GPU(s), "
	       "HMM active %s",
	       at, inv->driver_loaded ? inv->version : "not loaded", inv->ngpus,
	       tristate_word(inv->hmm_active), h->driver_loaded ? h->version : "not loaded",
	       h->ngpus, tristate_word(hmm));
	GP_SET(x->fix, "run gpu-provision prepare: it publishes what the node has (the boot "
		       "unit does at each boot)");
}

/* pmxcfs without quorum: every write of ours fails until the nodes see each other again. */
static void quorum(const struct gp_check_run *run, struct gp_findings *f)
{
	_cleanup_free_ char *members = gp_path(run->ctx->root, GP_PVE_MEMBERS);
	struct gp_finding *x;

	if (gp_pve_quorate(run->ctx->root) != 0)
		return; /* quorate, or no .members to say (a node on its own, or none of pmxcfs) */
	x = gp_findings_add(f, GP_FINDING_CLUSTER_NOT_QUORATE);
	if (!x)
		return;
	GP_SET(x->summary, "the cluster is not quorate: /etc/pve takes no write on this node");
	GP_SET(x->evidence, "\"%s\": \"quorate\": 0", members ? members : GP_PVE_MEMBERS);
	GP_SET(x->fix, "bring back the nodes or corosync links it lost (pvecm status says which "
		       "are missing); attach, detach, sync and prepare work again once it is "
		       "quorate, and until then the other nodes' files are as last written");
}

static void nodes_findings(const struct gp_check_run *run, struct gp_cluster_check *cc)
{
	const struct gp_cluster_node *self = gp_cluster_node(&cc->cl, cc->cl.self);

	quorum(run, &cc->f);

	for (size_t i = 0; i < cc->cl.nnodes; i++)
		if (cc->cl.nodes[i].status < 0)
			unpublished(&cc->cl, &cc->cl.nodes[i], &cc->f);
	if (self && self->inv)
		own_inventory(run, self->inv, &cc->f);
}

/* "B: why | C: why" of the nodes whose verdict is start (note: their notes), and their names. */
static void collect(const struct gp_cluster_check *cc, const struct gp_cluster_subject *s,
		    enum gp_start start, bool notes, char *names, size_t nsize, char *text,
		    size_t tsize, unsigned int *reasons)
{
	size_t nlen = 0, tlen = 0;

	names[0] = text[0] = '\0';
	*reasons = 0;
	for (size_t i = 0; i < cc->cl.nnodes; i++) {
		const struct gp_start_verdict *v = &s->starts[i];
		const char *what = notes ? v->note : v->why;

		if (v->start != start || !what[0])
			continue;
		*reasons |= v->reasons;
		if (nlen < nsize)
			nlen += (size_t)snprintf(names + nlen, nsize - nlen, "%s%s",
						 nlen ? ", " : "", cc->cl.nodes[i].name);
		if (tlen < tsize)
			tlen += (size_t)snprintf(text + tlen, tsize - tlen, "%s%s: %s",
						 tlen ? " | " : "", cc->cl.nodes[i].name, what);
	}
}

static void refusal_fix(const char *id, unsigned int reasons, char *fix, size_t size)
{
	size_t len = 0;

	fix[0] = '\0';
	if (reasons & GP_REASON_SELECTION)
		len += (size_t)snprintf(fix + len, size - len,
					"select GPUs every node has (gpu-provision attach %s "
					"--gpus any:N or model:TEXT:N), or keep it off those nodes "
					"(HA group, migration target)",
					id);
	if ((reasons & GP_REASON_DRIVER) && len < size)
		len +=
		    (size_t)snprintf(fix + len, size - len,
				     "%sthe same driver version on every node, or each node's "
				     "user space at each start (gpu-provision attach %s --inject)",
				     len ? "; " : "", id);
	if ((reasons & GP_REASON_HMM) && len < size)
		len += (size_t)snprintf(fix + len, size - len,
					"%son those nodes gpu-provision prepare --persist and a "
					"reboot: nvidia_uvm with uvm_disable_hmm=1 from boot",
					len ? "; " : "");
	if ((reasons & GP_REASON_NO_DRIVER) && len < size)
		snprintf(fix + len, size - len,
			 "%sload the NVIDIA driver there, or keep it off "
			 "those nodes",
			 len ? "; " : "");
}

static void subject_findings(const struct gp_cluster_check *cc, struct gp_cluster_subject *s)
{
	const struct gp_cluster_ct *ct = s->ct;
	char names[256], text[768];
	unsigned int reasons;
	struct gp_finding *x;

	collect(cc, s, GP_START_NO, false, names, sizeof(names), text, sizeof(text), &reasons);
	if (names[0] && (x = gp_findings_add(&s->f, GP_FINDING_CLUSTER_START_REFUSED))) {
		GP_SET(x->summary, "%s (on %s) cannot start on %s %s", ct->id, ct->node,
		       strchr(names, ',') ? "nodes" : "node", names);
		GP_SET(x->evidence, "devices = %s; %s", ct->conf.devices, text);
		refusal_fix(ct->id, reasons, x->fix, sizeof(x->fix));
	}
	collect(cc, s, GP_START_YES, true, names, sizeof(names), text, sizeof(text), &reasons);
	if (names[0] && (x = gp_findings_add(&s->f, GP_FINDING_CLUSTER_START_DIFFERS))) {
		GP_SET(x->summary, "%s (on %s) would start on %s %s, not quite as on %s", ct->id,
		       ct->node, strchr(names, ',') ? "nodes" : "node", names, ct->node);
		GP_SET(x->evidence, "%s", text);
		GP_SET(x->fix, "nothing, if that is meant; the same driver version on every node "
			       "(and prepare --persist where HMM is on) makes every start alike");
	}
}

static int judge_subject(struct gp_cluster_check *cc, struct gp_cluster_subject *s)
{
	const struct gp_cluster_node *home = gp_cluster_node(&cc->cl, s->ct->node);

	s->starts = calloc(cc->cl.nnodes ? cc->cl.nnodes : 1, sizeof(*s->starts));
	if (!s->starts)
		return -ENOMEM;
	for (size_t i = 0; i < cc->cl.nnodes; i++)
		gp_cluster_judge(s->ct, home ? home->inv : NULL, &cc->cl.nodes[i], &s->starts[i]);
	subject_findings(cc, s);
	return 0;
}

int gp_check_cluster(const struct gp_check_run *run, const char *only, struct gp_cluster_check *cc)
{
	int r;

	memset(cc, 0, sizeof(*cc));
	r = gp_cluster_read(run->ctx, &cc->cl);
	if (r < 0)
		return r;
	nodes_findings(run, cc);
	cc->subj = calloc(cc->cl.ncts ? cc->cl.ncts : 1, sizeof(*cc->subj));
	if (!cc->subj)
		return gp_error_errno(-ENOMEM, "Failed to judge the cluster's containers");
	for (size_t i = 0; i < cc->cl.ncts; i++) {
		struct gp_cluster_subject *s = &cc->subj[cc->n];

		if (only && strcmp(only, cc->cl.cts[i].id) != 0)
			continue;
		s->ct = &cc->cl.cts[i];
		cc->n++;
		r = judge_subject(cc, s);
		if (r < 0)
			return gp_error_errno(r, "Failed to judge the cluster's containers");
	}
	return 0;
}

void gp_check_cluster_free(struct gp_cluster_check *cc)
{
	for (size_t i = 0; cc->subj && i < cc->n; i++)
		free(cc->subj[i].starts);
	free(cc->subj);
	cc->subj = NULL;
	cc->n = 0;
	gp_cluster_free(&cc->cl);
}

void gp_check_ini_node_local(const struct gp_check_run *run, const char *name,
			     struct gp_findings *f)
{
	_cleanup_free_ char *local = gp_local_ini_path(run->ctx->confdir, name);
	_cleanup_free_ char *cluster = gp_ini_path(run->ctx, name);
	struct gp_finding *x;
	bool both;

	if (!local || !cluster || strcmp(local, cluster) == 0 || access(local, F_OK) != 0)
		return; /* no Proxmox VE root (inis live in confdir), or nothing left behind */
	x = gp_findings_add(f, GP_FINDING_INI_NODE_LOCAL);
	if (!x)
		return;
	both = access(cluster, F_OK) == 0;
	GP_SET(x->summary, "%s's ini is still in this node's %s", name, run->ctx->confdir);
	if (both)
		GP_SET(x->evidence, "%s is there beside the cluster's %s, which is the one read",
		       local, cluster);
	else
		GP_SET(x->evidence,
		       "%s is read here because the cluster filesystem has no %s: on any other "
		       "node %s starts without its ini",
		       local, cluster, name);
	GP_SET(x->fix, "gpu-provision sync %s: it writes the ini to %s and removes this copy", name,
	       GP_CLUSTER_DIR);
}
