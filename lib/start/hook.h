/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/start/hook.c; gp_hook_uvm in lib/start/hookuvm.c. */
#ifndef GP_HOOK_H
#define GP_HOOK_H

#include "base/ctx.h"
#include "host/host.h"
#include "plan/cgroup.h"
#include "plan/plan.h"

/*
 * pre-start, in the host's namespaces: reads the ini and the host, chooses the GPUs
 * (alloc.c: under the allocation lock, a portable selection among those no other
 * running container holds), makes the host nodes, checks the container's device rules
 * (from its LXC config file) and writes the plan, owned by the hook's parent (LXC's
 * monitor). Returns 0, -GP_EBADCONF for a configuration to fix, another -errno otherwise;
 * a refused start leaves no plan.
 */
int gp_hook_pre_start(const struct gp_ctx *ctx, const char *name, const char *lxc_config);

/*
 * The [uvm] policy at pre-start, on the host as read for this start: nothing when the
 * modules are as it wants; else the change made by gpu-provision prepare, checked, and
 * host read again (with parts) since majors may be new. 0, or -GP_EREFUSED to refuse the
 * start.
 */
struct gp_ini;
int gp_hook_uvm(const struct gp_ctx *ctx, const char *name, const struct gp_ini *conf,
		struct gp_host *host, unsigned int parts);

/* autodev or mount, in the container's mount namespace: binds the plan's nodes. */
int gp_hook_mount(const struct gp_ctx *ctx, const char *name, const char *rootfs);

/* post-stop: removes the plan. */
int gp_hook_post_stop(const struct gp_ctx *ctx, const char *name);

/*
 * One walk of the LXC config at path (container name, host under root): -GP_EBADCONF when it
 * binds a planned node itself (a recipe's lxc.mount.entry, each named with its file:line,
 * on Proxmox the line of /etc/pve/lxc/<name>.conf); else -EACCES when its rules do not let
 * the container open every planned node, each missing rule named. 0 when all is well.
 */
int gp_hook_check_config(const struct gp_ctx *ctx, const char *path, enum gp_cg_layout layout,
			 const struct gp_plan *plan, const char *name);

#endif
