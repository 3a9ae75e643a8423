/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/cluster/judge.c. */
#ifndef GP_JUDGE_H
#define GP_JUDGE_H

#include <stddef.h>

#include "cluster/cluster.h"
#include "cluster/nodefile.h"

enum gp_start { GP_START_YES, GP_START_NO, GP_START_UNKNOWN };

/* Why a start is refused, for the fix to name (a bit each). */
#define GP_REASON_SELECTION (1u << 0) /* the node lacks the GPUs its selection names */
#define GP_REASON_DRIVER (1u << 1)    /* another driver version, and it carries its own */
#define GP_REASON_HMM (1u << 2)	      /* HMM on there, which its policy must turn off */
#define GP_REASON_NO_DRIVER (1u << 3) /* no NVIDIA driver loaded there */

/* Whether a container could start on a node, and why not; what differs there if it can. */
struct gp_start_verdict {
	enum gp_start start;
	unsigned int reasons; /* GP_REASON_* of a refusal */
	char why[768];	      /* "; "-joined: why it cannot, or why that is unknown */
	char note[512];	      /* "; "-joined: what differs there, though it starts */
};

/*
 * The selection (an ini's devices: all, indexes, UUIDs, PCI addresses, comma-separated;
 * or any:N or model:TEXT:N alone, as lib/plan/alloc.c parses them) against a node's GPUs: 0 it
 * fits; 1 it does not and why says each reason ("; "-joined); -GP_EBADCONF for a selection
 * this judgement does not know (why says).
 */
int gp_selection_judge(const char *devices, const struct gp_node_inv *node, char *why, size_t size);

/*
 * Judges container ct on node (published; NULL when it did not): its selection, its
 * driver against the one of its home node (home: NULL when unknown), HMM there under the
 * container's policy (the node's defaults for a key the ini leaves out).
 */
void gp_cluster_judge(const struct gp_cluster_ct *ct, const struct gp_node_inv *home,
		      const struct gp_cluster_node *node, struct gp_start_verdict *v);

/* -1, 0 or 1 as driver version a is older than, the same as or newer than b (numerically). */
int gp_version_cmp(const char *a, const char *b);

#endif
