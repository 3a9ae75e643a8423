/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Implemented in lib/check/checkhost.c (the host), lib/check/checkconfig.c (a container's
 * config), lib/check/checkrecipe.c (its recipe lines), lib/check/checklines.c (its hooks
 * that break or harm), lib/check/checkdevn.c (its devN lines), lib/check/checkbinds.c (its
 * binds of whole directories), lib/check/checkrestart.c (its injected driver, the day after an
 * update), lib/check/checkselector.c (the GPUs its NVIDIA_VISIBLE_DEVICES
 * names), lib/check/checkdriver.c (the driver's user space it is given, and the read of its
 * rootfs) and lib/check/checktoolkit.c (what NVIDIA's container toolkit and Docker left in it).
 */
#ifndef GP_CHECK_H
#define GP_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/ctx.h"
#include "check/restart.h"
#include "diagnose/findings.h"
#include "driver/hoststate.h"
#include "driver/runtime.h"

/*
 * One run of check: where it looks (ctx), the runtime it judges for (LXC's version and the
 * cgroup layout, the capture's under --root), and what every check reads once.
 */
struct gp_check_run {
	const struct gp_ctx *ctx;
	struct gp_runtime rt;
	struct gp_host_state hs;
	char *cmdline;
};

/* Reads the host for the checks (NVML too on a real host). 0 or -errno. */
int gp_check_run_init(struct gp_check_run *run, const struct gp_ctx *ctx,
		      const struct gp_runtime *rt);
void gp_check_run_free(struct gp_check_run *run);

/* The host: driver, GPUs, firmware, modules, HMM, nodes, daemons, kernel log. */
void gp_check_host(const struct gp_check_run *run, struct gp_findings *f);

/*
 * One container's config and ini, without starting it: hooks, rules, mount entries,
 * modes. 0; -ENOENT when no such container exists, another -errno when its config
 * cannot be read (each said).
 */
int gp_check_container(const struct gp_check_run *run, const char *name, struct gp_findings *f);

/* True when the container has an ini, or its config gives it NVIDIA nodes by hand. */
bool gp_check_has_gpus(const struct gp_check_run *run, const char *name);

/*
 * The container's rootfs (a directory, or NULL where it is not one), read once for the checks
 * below (lib/check/rootfsread.h): NULL for none or no memory; gp_rootfs_read_free releases it.
 */
struct gp_rootfs_read;
struct gp_rootfs_read *gp_check_read_rootfs(const struct gp_check_run *run, const char *name,
					    const char *rootfs);

/*
 * The driver's user space of a container (lib/check/checkdriver.c): what its ini (conf, merged
 * with the host's defaults) asks to inject against the host's files, and the driver
 * libraries its rootfs carries itself, as r read them (NULL: not read).
 */
struct gp_ini;
void gp_check_driver(const struct gp_check_run *run, const char *name, const struct gp_ini *conf,
		     const char *rootfs, const struct gp_rootfs_read *r, struct gp_findings *f);

/*
 * What NVIDIA's container toolkit and Docker left in the container, as t read it (NULL: not
 * read): the toolkit's cgroup setup in an unprivileged container, Docker without CDI where
 * the start writes a spec (spec_ours), runtimes whose program is gone, NVIDIA's own specs
 * beside the start's or naming what the container lacks, and the files not read.
 */
struct gp_toolkit;
void gp_check_toolkit(const char *name, bool spec_ours, bool unprivileged,
		      const struct gp_toolkit *t, struct gp_findings *f);

/*
 * The lines of the container's config that give it NVIDIA GPUs by hand (lib/check/checkrecipe.c):
 * stale majors, rules that open other GPUs, nodes given without a rule or that do not
 * exist, other GPU tools' hooks, and what gpu-hook's start would clash with. conf is the
 * ini, NULL when the container has none.
 */
struct gp_recipe;
void gp_check_recipe(const struct gp_check_run *run, const char *name, const struct gp_recipe *rec,
		     const struct gp_ini *conf, struct gp_findings *f);

/*
 * The config's lines that are no rules or binds (lib/check/checklines.c): a hook whose
 * inline comment swallows its arguments, a hook that changes the host's NVIDIA nodes, a
 * privileged container unconfined with every capability, NVIDIA lines commented out.
 */
void gp_check_lines(const char *name, const struct gp_recipe *rec, struct gp_findings *f);

/*
 * Its Proxmox devN lines of NVIDIA nodes (lib/check/checkdevn.c): a directory given, one path
 * given twice, a mode that opens a node to every user the host keeps it from, or that shuts
 * out the container's users the host lets in.
 */
void gp_check_devn(const char *name, const struct gp_recipe *rec, struct gp_findings *f);

/*
 * Its NVIDIA_VISIBLE_DEVICES, where a hook reads it (lib/check/checkselector.c): each GPU
 * index, GPU or MIG UUID, MIG-GPU-UUID/GI/CI the host lacks today.
 */
void gp_check_selector(const struct gp_check_run *run, const char *name,
		       const struct gp_recipe *rec, struct gp_findings *f);

/*
 * Its binds of whole directories (lib/check/checkbinds.c): /dev/nvidia-caps or /dev/dri (every
 * GPU's nodes), the host's system library directory over the container's.
 */
void gp_check_binds(const struct gp_check_run *run, const char *name, const struct gp_recipe *rec,
		    struct gp_findings *f);

/*
 * Where it runs with the driver injected (lib/check/checkrestart.c, judged by restart.h):
 * files the host has replaced since its start, a module of another version loaded since,
 * or a host whose files are no longer at the loaded module's version (reboot first).
 */
enum gp_restart_need gp_check_restart(const struct gp_check_run *run, const char *name,
				      const struct gp_ini *conf, struct gp_findings *f);
/* The finding of a need judged (none for GP_RESTART_NONE). */
void gp_check_restart_say(const char *name, const struct gp_restart *r, const struct gp_host *host,
			  struct gp_findings *f);

#endif
