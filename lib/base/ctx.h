/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/base/ctx.c: where one command or one start works, decided once. */
#ifndef GP_CTX_H
#define GP_CTX_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/paths.h"

/*
 * Where a command or a start works: the root it reads (the real host, or a capture under
 * --root), the confdir, the lxcpath, whether the containers are Proxmox VE's and on which
 * node, and whose files it trusts. gp_ctx_init fills it once, from the command line or the
 * hook's arguments, and nothing changes it after; a function that needs more of it than
 * the root takes it whole. Messages are not in it: a process has one destination for them
 * (lib/base/log.h), which its program sets before it makes a context.
 */
struct gp_ctx {
	const char *root;    /* NULL: the machine we run on; else a capture's top */
	const char *confdir; /* the host's defaults; off Proxmox VE each container's files */
	const char *lxcpath; /* where LXC keeps containers; NULL: LXC's default */
	bool pve;	     /* the containers are Proxmox VE's (asked, or pmxcfs is there) */
	bool pmxcfs;	     /* <root>/etc/pve/lxc is a directory: the cluster filesystem */
	char node[GP_NODE_NAME_MAX]; /* this Proxmox VE node's name, "" when node_err */
	/*
	 * 0; -ENOENT where root is no Proxmox VE node; -GP_EBADCONF where its /etc/pve/local
	 * link ("nodes/NAME") names none.
	 */
	int node_err;
	/*
	 * Whose files the owner rule trusts (an ini, an .applied, a file to inject): the
	 * host's root as this user namespace sees it (gp_host_root_uid) on the machine we
	 * run on; under a --root the owner of that directory, who can replace anything
	 * below it anyway, so that a capture of one's own is read as the host's would be.
	 */
	uid_t owner;
};

/*
 * Fills ctx; pve asks for Proxmox VE even where root holds no cluster filesystem. what says
 * which facts are read: GP_CTX_CLUSTER pmxcfs and the node (else none found), GP_CTX_OWNER
 * the owner (else (uid_t)-1, which owns nothing: every owner check fails). A command reads
 * all; the hook only what its moment uses, since it runs at every start.
 */
#define GP_CTX_CLUSTER 1u
#define GP_CTX_OWNER 2u
#define GP_CTX_ALL (GP_CTX_CLUSTER | GP_CTX_OWNER)
void gp_ctx_init(struct gp_ctx *ctx, const char *root, const char *confdir, const char *lxcpath,
		 bool pve, unsigned int what);

/*
 * A container's own files, malloc'd (NULL when out of memory): in the cluster filesystem
 * on Proxmox VE (<root>/etc/pve/gpu-provision/<id>.ini), in confdir elsewhere. The mode
 * they are written with: GP_CLUSTER_MODE there, 0644 in confdir.
 */
char *gp_ini_path(const struct gp_ctx *ctx, const char *name);	   /* .ini */
char *gp_applied_path(const struct gp_ctx *ctx, const char *name); /* .applied */
unsigned int gp_container_file_mode(const struct gp_ctx *ctx);
/*
 * The .applied to read: the cluster's, or on Proxmox VE where the cluster has none one a
 * node kept in confdir before (malloc'd).
 */
char *gp_applied_path_to_read(const struct gp_ctx *ctx, const char *name);

#endif
