/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host preparation: modules, parameters, nodes, persistence. What nvidia-modprobe does, and more.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/ctx.h"
#include "base/paths.h"
#include "base/util.h"
#include "cluster/cluster.h"
#include "config/ini.h"
#include "driver/hoststate.h"
#include "driver/persist.h"
#include "driver/uvmapply.h"
#include "ops/prepare.h"
#include "plan/plan.h"
#include "plan/planner.h"
#include "plan/uvm.h"
#include "start/nodes.h"

static int load_policy(const struct gp_prepare_opts *o, struct gp_ini *conf)
{
	struct gp_ini host;
	int r = gp_hostconf_load(o->ctx, &host);

	if (r < 0)
		return -GP_EBADCONF;
	if (!o->container) {
		*conf = host;
		return 0;
	}
	r = gp_ini_load(o->ctx, o->container, conf);
	if (r == -ENOENT)
		gp_error("%s has no ini: attach the container first", o->container);
	if (r < 0)
		return -GP_EBADCONF;
	gp_ini_merge_host(conf, &host);
	return 0;
}

static const char *tristate_word(enum gp_tristate t)
{
	return t == GP_YES ? "yes" : t == GP_NO ? "no" : "unknown";
}

static void print_verdict(const struct gp_hmm *hmm, const struct gp_uvm_plan *plan)
{
	printf("HMM: active %s, would be with uvm_disable_hmm=N: %s (from %s)\n",
	       tristate_word(hmm->active), tristate_word(hmm->would_be_active), hmm->source);
	for (size_t i = 0; i < hmm->n; i++)
		printf("  - %s\n", hmm->evidence[i]);
	printf("policy: nvidia_uvm %s uvm_disable_hmm=1\n",
	       plan->want_disable ? "wants" : "does not need");
}

/* Reads the host's state, judges HMM, and plans the module actions. */
static int plan_modules(const struct gp_prepare_opts *o, const struct gp_ini *conf,
			struct gp_host_state *s, struct gp_uvm_plan *plan)
{
	int r = gp_host_state_read(o->ctx->root, o->nvml ? GP_STATE_NVML : 0, s);

	if (r < 0)
		return r;
	if (s->mods_status < 0)
		return s->mods_status;
	gp_uvm_plan(conf->disable_hmm, conf->on_conflict, &s->mods, &s->hmm, plan);
	print_verdict(&s->hmm, plan);
	return 0;
}

/* Every host node, for the host as read; read again when modules were loaded (new majors). */
static int make_nodes(const struct gp_prepare_opts *o, struct gp_host_state *s, bool reloaded)
{
	struct gp_host *host = &s->host;
	struct gp_plan plan;
	int r;

	if (reloaded) {
		gp_host_free(host);
		r = gp_host_read(o->ctx->root, GP_HOST_MIG, host);
		if (r < 0)
			return r;
	}
	if (!host->driver_loaded) {
		gp_warn("the NVIDIA driver is not loaded: no device nodes to make");
		return o->dry_run ? 0 : -ENODEV;
	}
	r = gp_plan_all(o->ctx->root, host, &plan);
	if (r == 0)
		r = gp_nodes_ensure(o->ctx->root, &plan, host->params.modify != 0, o->dry_run);
	if (r == 0)
		printf("nodes: %zu checked under %s/dev\n", plan.n,
		       !gp_root_is_host(o->ctx->root) ? o->ctx->root : "");
	return r;
}

static int persist(const struct gp_prepare_opts *o, const struct gp_uvm_plan *plan)
{
	enum gp_tristate initramfs;
	int r;

	if (!plan->want_disable) {
		printf("persist: HMM needs no disabling on this host; %s left as it is\n",
		       GP_MODPROBE_CONF);
		return 0;
	}
	r = gp_persist_disable_hmm(o->ctx->root, o->dry_run);
	if (r < 0)
		return r;
	printf("persist: %s %s\n", GP_MODPROBE_CONF, r ? "written" : "already says so");
	initramfs = gp_initramfs_has_nvidia(o->ctx->root);
	if (initramfs == GP_YES)
		printf("persist: the initramfs loads NVIDIA modules: run update-initramfs -u\n");
	else
		printf("persist: %s\n",
		       initramfs == GP_NO
			   ? "the initramfs loads no NVIDIA module: no update-initramfs needed"
			   : "no initramfs-tools or dracut configuration found: if "
			     "your initramfs loads nvidia_uvm, rebuild it");
	return 0;
}

/*
 * On a Proxmox VE node: what it has, for every node's check (lib/cluster/cluster.c). The state as
 * prepare leaves it: read again after a module changed. A failure is a warning (said): the
 * cluster filesystem refuses writes without quorum, and the node's own work is done.
 */
static void publish(const struct gp_prepare_opts *o, struct gp_host_state *s, bool changed)
{
	const char *node = o->ctx->node;
	struct gp_node_inv *inv;
	struct gp_ini defaults;

	if (o->dry_run || o->ctx->node_err < 0)
		return;
	if (changed) {
		gp_host_state_free(s);
		if (gp_host_state_read(o->ctx->root, o->nvml ? GP_STATE_NVML : 0, s) < 0)
			return;
	}
	inv = malloc(sizeof(*inv));
	if (!inv || gp_hostconf_load(o->ctx, &defaults) < 0) {
		free(inv);
		return;
	}
	gp_node_inv_from_state(node, s, &defaults, (long)time(NULL), inv);
	if (gp_cluster_publish(o->ctx->root, inv) == 0)
		printf("cluster: this node's GPUs published as %s" GP_CLUSTER_DIR
		       "/nodes/%s.json\n",
		       gp_root_is_host(o->ctx->root) ? "" : o->ctx->root, node);
	free(inv);
}

int gp_prepare(const struct gp_prepare_opts *o)
{
	bool print_only = o->dry_run || !gp_root_is_host(o->ctx->root);
	struct gp_host_state s = { 0 };
	struct gp_uvm_plan plan = { 0 };
	struct gp_ini conf;
	bool read;
	int r;

	r = load_policy(o, &conf);
	if (r == 0)
		r = plan_modules(o, &conf, &s, &plan);
	read = r == 0;
	if (r == 0) {
		if (!gp_root_is_host(o->ctx->root) && plan.n)
			printf("under --root %s module actions are printed, not done\n",
			       o->ctx->root);
		r = gp_uvm_apply(o->ctx->root, s.kmod, &plan, print_only);
	}
	if (r == 0 && !o->modules_only)
		r = make_nodes(o, &s, plan.n && !print_only);
	if (r == 0 && o->persist)
		r = persist(o, &plan);
	if (read)
		publish(o, &s, plan.n && !print_only);
	gp_host_state_free(&s);
	return r;
}
