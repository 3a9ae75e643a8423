/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/attach.c. */
#ifndef GP_ATTACH_H
#define GP_ATTACH_H

#include <stdbool.h>

struct gp_attach_opts {
	const char *root;    /* --root, or NULL */
	const char *confdir; /* where <name>.ini lives */
	const char *lxcpath; /* --lxcpath, or NULL for LXC's default */
	const char *name;
	const char *gpus;	  /* selectors; NULL reuses the ini's */
	const char *caps;	  /* NULL keeps the ini's caps when gpus is NULL */
	const char *hook;	  /* absolute path of gpu-hook */
	const char *mode;	  /* Proxmox: "hook" (default) or "devn" */
	int inject;		  /* [driver] inject: 1 yes, -1 no, 0 the ini's (a new one: yes) */
	const char *capabilities; /* [driver] capabilities, or NULL for the ini's */
	bool pve;		  /* Proxmox VE even without <root>/etc/pve/lxc */
	bool adopt;		  /* take over the NVIDIA lines a recipe wrote (lib/takeover.c) */
	bool dry_run;
	bool quiet;	 /* sync: report changes, not each attach */
	bool assume_new; /* create --dry-run: the Proxmox config does not exist yet */
};

/* What an attach changed in the container's config. */
struct gp_attach_changes {
	size_t removed, added; /* lines */
	bool changed;
};

/*
 * attach: writes <confdir>/<name>.ini and puts into the container's LXC config the
 * hook lines and exact device rules for today's majors. detach takes all of it out.
 * Both are idempotent. Return 0, -EINVAL for bad input (already explained), or
 * another -errno when an operation failed. changes (may be NULL) says what attach did.
 */
int gp_attach(const struct gp_attach_opts *o, struct gp_attach_changes *changes);
/*
 * adopt: attach with o->adopt, printing what it did (or, dry run, would do) as a diff,
 * and keeping the config as it was before as "<config>.gpu-provision-adopt.bak".
 */
int gp_adopt(const struct gp_attach_opts *o);
int gp_detach(const struct gp_attach_opts *o);

#endif
