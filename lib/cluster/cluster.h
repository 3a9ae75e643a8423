/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/cluster/cluster.c. */
#ifndef GP_CLUSTER_H
#define GP_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/paths.h"
#include "cluster/nodefile.h"
#include "config/ini.h"

#define GP_CLUSTER_MAX_NODES 64		  /* Proxmox VE supports fewer (corosync) */
#define GP_PVE_NODES_DIR "/etc/pve/nodes" /* one directory per node of the cluster */

/* A container of the cluster with an ini in the cluster filesystem. */
struct gp_cluster_ct {
	char id[16];
	char node[GP_NODE_NAME_MAX]; /* whose nodes/<node>/lxc holds its config */
	int ini_status;		     /* gp_ini_load's: 0, or -errno */
	char ini_error[768];	     /* what the load said when it failed */
	struct gp_ini conf;	     /* its ini as written, not merged with any defaults */
};

/* One node of the cluster: a directory of /etc/pve/nodes, and what it published. */
struct gp_cluster_node {
	char name[GP_NODE_NAME_MAX];
	int status;    /* 0 published; -ENOENT none; -GP_EBADCONF or another -errno: unreadable */
	char why[384]; /* why it could not be read */
	struct gp_node_inv *inv; /* NULL unless status is 0 */
};

struct gp_cluster {
	char self[GP_NODE_NAME_MAX]; /* this node, from /etc/pve/local */
	struct gp_cluster_node nodes[GP_CLUSTER_MAX_NODES];
	size_t nnodes;
	size_t left_out; /* node directories past GP_CLUSTER_MAX_NODES */
	struct gp_cluster_ct *cts;
	size_t ncts;
};

/*
 * Reads the cluster under ctx's root: this node, every node directory and its published
 * file, every container whose config a node holds and whose ini the cluster holds, sorted.
 * Returns 0; -ENOENT when ctx knows no Proxmox VE node (no /etc/pve/local link naming
 * one), said by no one; another -errno when a directory cannot be read (said).
 */
struct gp_ctx;
int gp_cluster_read(const struct gp_ctx *ctx, struct gp_cluster *c);
void gp_cluster_free(struct gp_cluster *c);

/* The node of that name, or NULL. */
const struct gp_cluster_node *gp_cluster_node(const struct gp_cluster *c, const char *name);

#endif
