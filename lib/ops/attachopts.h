/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Header only: what attach, detach, adopt and sync are asked to do, and where. */
#ifndef GP_ATTACHOPTS_H
#define GP_ATTACHOPTS_H

#include <stdbool.h>

struct gp_ctx;
struct gp_runtime;

struct gp_attach_opts {
	const struct gp_ctx *ctx;    /* where: root, confdir, lxcpath, Proxmox VE */
	const struct gp_runtime *rt; /* LXC's version and the cgroup layout it enforces */
	const char *name;
	const char *gpus;	  /* selectors; NULL reuses the ini's */
	const char *caps;	  /* NULL keeps the ini's caps when gpus is NULL */
	const char *hook;	  /* absolute path of gpu-hook */
	const char *mode;	  /* Proxmox: "hook" (default) or "devn" */
	int inject;		  /* [driver] inject: 1 yes, -1 no, 0 the ini's (a new one: yes) */
	const char *capabilities; /* [driver] capabilities, or NULL for the ini's */
	int nesting; /* 1 give it, -1 take ours out, 0 keep what .applied records (nesting.c) */
	bool adopt;  /* take over the NVIDIA lines a recipe wrote (lib/ops/takeover.c) */
	bool dry_run;
	bool quiet;	 /* sync: report changes, not each attach */
	bool assume_new; /* create --dry-run: the Proxmox config does not exist yet */
};

#endif
