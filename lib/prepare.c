/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host preparation: modules, parameters, nodes, persistence. What nvidia-modprobe does, and more.
 */
#include <stdio.h>
#include <string.h>

#include "ctconf.h"
#include "hmm.h"
#include "modules.h"
#include "nodes.h"
#include "paths.h"
#include "persist.h"
#include "plan.h"
#include "prepare.h"
#include "uvm.h"
#include "util.h"

static int load_policy(const struct gp_prepare_opts *o, struct gp_ctconf *conf)
{
	struct gp_ctconf host;
	int r = gp_hostconf_load(o->confdir, &host);

	if (r < 0)
		return -EINVAL;
	if (!o->container) {
		*conf = host;
		return 0;
	}
	r = gp_ctconf_load(o->confdir, o->container, conf);
	if (r == -ENOENT)
		gp_error("no %s/%s.ini: attach the container first", o->confdir, o->container);
	if (r < 0)
		return -EINVAL;
	gp_ctconf_merge_host(conf, &host);
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

/* Reads the whole state, judges HMM, and plans the module actions. */
static int assess(const struct gp_prepare_opts *o, const struct gp_ctconf *conf,
		  struct kmod_ctx **ctx, struct gp_uvm_plan *plan)
{
	_cleanup_free_ char *kmsg = NULL;
	struct gp_modules mods;
	struct gp_nvml nvml = { .status = -ENOENT };
	struct gp_host host;
	struct gp_hmm hmm;
	int r;

	r = gp_host_read(o->root, GP_HOST_ALL, &host);
	if (r < 0)
		return r;
	*ctx = gp_kmod_new(o->root, host.kernel_release);
	r = gp_modules_read(o->root, *ctx, &mods);
	if (r == 0 && o->nvml && !!gp_root_is_host(o->root) && host.driver_loaded)
		gp_nvml_addressing(GP_NVML_TIMEOUT_MS, &nvml);
	kmsg = gp_kmsg_read(o->root);
	if (r == 0) {
		gp_hmm_judge(&host, &mods, &nvml, kmsg, &hmm);
		gp_uvm_plan(conf->disable_hmm, conf->on_conflict, &mods, &hmm, plan);
		print_verdict(&hmm, plan);
	}
	gp_host_free(&host);
	return r;
}

static int make_nodes(const struct gp_prepare_opts *o)
{
	struct gp_plan plan;
	struct gp_host host;
	int r = gp_host_read(o->root, GP_HOST_MIG, &host);

	if (r < 0)
		return r;
	if (!host.driver_loaded) {
		gp_host_free(&host);
		gp_warn("the NVIDIA driver is not loaded: no device nodes to make");
		return o->dry_run ? 0 : -ENODEV;
	}
	r = gp_plan_all(o->root, &host, &plan);
	if (r == 0)
		r = gp_nodes_ensure(o->root, &plan, host.params.modify != 0, o->dry_run);
	if (r == 0)
		printf("nodes: %zu checked under %s/dev\n", plan.n,
		       !gp_root_is_host(o->root) ? o->root : "");
	gp_host_free(&host);
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
	r = gp_persist_disable_hmm(o->root, o->dry_run);
	if (r < 0)
		return r;
	printf("persist: %s %s\n", GP_MODPROBE_CONF, r ? "written" : "already says so");
	initramfs = gp_initramfs_has_nvidia(o->root);
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

int gp_prepare(const struct gp_prepare_opts *o)
{
	struct kmod_ctx *ctx = NULL;
	struct gp_uvm_plan plan;
	struct gp_ctconf conf;
	int r;

	r = load_policy(o, &conf);
	if (r == 0)
		r = assess(o, &conf, &ctx, &plan);
	if (r == 0) {
		if (!gp_root_is_host(o->root) && plan.n)
			printf("under --root %s module actions are printed, not done\n", o->root);
		r = gp_uvm_apply(o->root, ctx, &plan, o->dry_run || !gp_root_is_host(o->root));
	}
	gp_kmod_free(ctx);
	if (r == 0 && !o->modules_only)
		r = make_nodes(o);
	if (r == 0 && o->persist)
		r = persist(o, &plan);
	return r;
}
