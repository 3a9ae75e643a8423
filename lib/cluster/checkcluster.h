/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/cluster/checkcluster.c: check's findings of the cluster. */
#ifndef GP_CHECKCLUSTER_H
#define GP_CHECKCLUSTER_H

#include <stddef.h>

#include "cluster/cluster.h"
#include "cluster/judge.h"
#include "diagnose/findings.h"

struct gp_check_run;

/* One GPU container of the cluster as check judges it: where it could start, its findings. */
struct gp_cluster_subject {
	const struct gp_cluster_ct *ct;
	struct gp_start_verdict *starts; /* one per node of the cluster, in its order */
	struct gp_findings f;		 /* cluster-start-refused, cluster-start-differs */
};

struct gp_cluster_check {
	struct gp_cluster cl;
	struct gp_findings
	    f; /* the nodes': cluster-node-unpublished, -inventory-stale, -not-quorate */
	struct gp_cluster_subject *subj;
	size_t n;
};

/*
 * Reads the cluster from run's root and judges each GPU container (only that one when
 * only is not NULL) on every node. 0; -ENOENT when the root is no Proxmox VE node; another
 * -errno (said). Free with gp_check_cluster_free either way.
 */
int gp_check_cluster(const struct gp_check_run *run, const char *only, struct gp_cluster_check *cc);
void gp_check_cluster_free(struct gp_cluster_check *cc);

/* ini-node-local: a Proxmox VE container's ini still in this node's confdir. */
void gp_check_ini_node_local(const struct gp_check_run *run, const char *name,
			     struct gp_findings *f);

#endif
