/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/ops/create.c. */
#ifndef GP_CREATE_H
#define GP_CREATE_H

#include <stdbool.h>

#include "ops/attach.h"

struct gp_create_opts {
	struct gp_attach_opts attach; /* name, paths, GPUs; gpus NULL: no GPUs yet */
	const char *template_name;    /* plain LXC: the lxc-create template */
	const char *config_file;      /* plain LXC: a base config (as lxc-create -f) */
	const char *ostemplate;	      /* Proxmox: pct create's template volume */
	bool unprivileged;
	const char *rootfs_dev; /* plain LXC: a block device or image file for the rootfs */
	bool force;		/* format rootfs_dev even if libblkid finds something */
	char **extra;		/* template or pct arguments, NULL-terminated */
};

/*
 * create: a new container (liblxc's create, or pct create on Proxmox VE, by argv), then
 * attach as attach does, in one step; on any failure nothing half-made is left. Long
 * steps show progress on a terminal, plain lines otherwise. 0, -GP_EBADCONF (the container exists,
 * a device refused, bad input: said) or -errno.
 */
int gp_create(const struct gp_create_opts *o);

#endif
