/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/driver/runtime.c. */
#ifndef GP_RUNTIME_H
#define GP_RUNTIME_H

#include "base/ctx.h"
#include "plan/cgroup.h"

/* Where the cgroup layout was read. */
enum gp_layout_from {
	GP_LAYOUT_HOST,	   /* this host's /proc/self/mountinfo */
	GP_LAYOUT_CAPTURE, /* the --root capture's proc/self/mountinfo */
	GP_LAYOUT_ASSUMED, /* the capture has none: this host's, assumed */
};

/*
 * The container runtime a command writes for and judges by, read once per command: LXC's
 * version (liblxc's own, whatever the root), the cgroup layout LXC enforces device rules
 * in (the capture's under --root), and Proxmox VE's release where there is one.
 */
struct gp_runtime {
	char lxc[32];		  /* liblxc's version as it says it ("6.0.4"); "" unknown */
	unsigned int lxc_major;	  /* 0 unknown */
	enum gp_cg_layout layout; /* where LXC enforces device rules */
	enum gp_layout_from layout_from;
	unsigned int pve; /* Proxmox VE's release (8, 9) by its Debian's; 0 off it */
};

/* The first LXC release that knows no cgroup v1 and no lxc.cgroup.* key. */
#define GP_LXC_V2_ONLY 7

void gp_runtime_read(const struct gp_ctx *ctx, struct gp_runtime *rt);

/* Words for the layout ("cgroup v2") and for where it was read. */
const char *gp_runtime_layout_words(const struct gp_runtime *rt);
const char *gp_runtime_from_words(const struct gp_runtime *rt);

/*
 * 0 where LXC can enforce device rules on this layout; else says why not (LXC 7 on a
 * hybrid host) and returns -GP_EBADCONF: nothing may be written for a start that fails.
 */
int gp_runtime_can_start(const struct gp_runtime *rt);

/*
 * The config file liblxc keeps for container name under lxcpath (NULL: liblxc's own),
 * malloc'd; NULL when there is none or out of memory. For a config liblxc cannot load
 * (LXC 7 loads none with an lxc.cgroup.* key), which is still the container's.
 */
char *gp_lxc_config_file(const char *lxcpath, const char *name);

/* liblxc's pid of container name's init under lxcpath (NULL: liblxc's own), or -1 where it does not
 * run. */
int gp_lxc_init_pid(const char *lxcpath, const char *name);

#endif
