/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Implemented in lib/cluster/cluster.c (a node's published inventory, the cluster as the cluster
 * filesystem shows it, a container's start judged against a node, Proxmox's .rrd) and
 * lib/cluster/checkcluster.c (check's findings of it all).
 *
 * A Proxmox VE cluster shares /etc/pve (pmxcfs) and nothing else of ours: no daemon, no
 * ssh. Each node's prepare writes what it has to /etc/pve/gpu-provision/nodes/<node>.json;
 * any node reads every node's file and every container's ini there and judges.
 */
#ifndef GP_CLUSTER_H
#define GP_CLUSTER_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/paths.h"
#include "config/ini.h"
#include "diagnose/findings.h"
#include "host/host.h"

struct gp_host_state;

#define GP_CLUSTER_FORMAT 1		  /* the "format" of the files this code writes */
#define GP_CLUSTER_MAX_NODES 64		  /* Proxmox VE supports fewer (corosync) */
#define GP_CLUSTER_FILE_MAX (256 * 1024)  /* one node's file, far below pmxcfs's 1 MiB */
#define GP_RRD_MAX (8 * 1024 * 1024)	  /* /etc/pve/.rrd: one line per guest, node, storage */
#define GP_RRD_STALE_S 60		  /* pvestatd sends every 10 s: a minute is stale */
#define GP_PVE_RRD_FILE "/etc/pve/.rrd"	  /* pmxcfs's plug of the status of every guest */
#define GP_PVE_NODES_DIR "/etc/pve/nodes" /* one directory per node of the cluster */

/* What a node publishes of itself: its driver, GPUs, majors, HMM and defaults. */
struct gp_node_inv {
	char node[GP_NODE_NAME_MAX];
	long written;  /* seconds since the epoch */
	char tool[32]; /* the gpu-provision version that wrote it */
	bool driver_loaded;
	char version[32];
	enum gp_flavor flavor;
	struct gp_gpu gpus[GP_MAX_GPUS]; /* index, minor, pci, uuid, model, excluded */
	size_t ngpus;
	unsigned int major_nvidia, major_uvm, major_caps; /* 0: none */
	struct gp_major_set registered_majors;		  /* every character major there */
	bool uvm_loaded;
	enum gp_tristate uvm_disable_hmm;     /* the loaded module's parameter */
	enum gp_tristate hmm_active;	      /* now */
	enum gp_tristate hmm_would_be_active; /* with uvm_disable_hmm=N */
	/* The node's gpu-provision.conf: what an ini that leaves a key out gets there. */
	enum gp_hmm_policy disable_hmm;
	enum gp_conflict on_conflict;
	enum gp_inject_choice inject;
};

/* Fills inv from this node's host state, its defaults (gpu-provision.conf) and now. */
void gp_node_inv_from_state(const char *node, const struct gp_host_state *s,
			    const struct gp_ini *defaults, long now, struct gp_node_inv *inv);

/* inv as JSON (the layout README's "Proxmox VE clusters" shows); caller owns it. */
struct json_object *gp_node_inv_json(const struct gp_node_inv *inv);

/*
 * Parses a node's file held in buf (NUL-terminated) for the node named node (its file's
 * name): 0, or -GP_EBADCONF with why (path and the field) in why.
 */
int gp_node_inv_parse(const char *buf, const char *node, struct gp_node_inv *inv, char *why,
		      size_t size);

/*
 * Writes inv to <root>/etc/pve/gpu-provision/nodes/<node>.json (made first), atomically at
 * GP_CLUSTER_MODE. 0, or -errno said as a warning: pmxcfs refuses writes without quorum
 * (EACCES), and a node's own work must not fail for it.
 */
int gp_cluster_publish(const char *root, const struct gp_node_inv *inv);

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
 * Reads the cluster under root: this node, every node directory and its published file,
 * every container whose config a node holds and whose ini the cluster holds, sorted.
 * Returns 0; -ENOENT when root is no Proxmox VE node (no /etc/pve/local link), said by
 * no one; another -errno when a directory cannot be read (said).
 */
int gp_cluster_read(const char *root, const char *confdir, struct gp_cluster *c);
void gp_cluster_free(struct gp_cluster *c);

/* The node of that name, or NULL. */
const struct gp_cluster_node *gp_cluster_node(const struct gp_cluster *c, const char *name);

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

/*
 * A guest's state in Proxmox's /etc/pve/.rrd (buf, len bytes): pvestatd's status field,
 * upper-cased ("RUNNING", "STOPPED"). 0; -ENOENT when the file has no line for id;
 * -ESTALE when its line is older than GP_RRD_STALE_S at now; -GP_EBADCONF for a bad line.
 */
int gp_rrd_state(const char *buf, size_t len, const char *id, long now, char *state, size_t size);

/* --- check's findings of the cluster (lib/cluster/checkcluster.c) ------------------------------
 */

struct gp_check_ctx;

/* One GPU container of the cluster as check judges it: where it could start, its findings. */
struct gp_cluster_subject {
	const struct gp_cluster_ct *ct;
	struct gp_start_verdict *starts; /* one per node of the cluster, in its order */
	struct gp_findings f;		 /* cluster-start-refused, cluster-start-differs */
};

struct gp_cluster_check {
	struct gp_cluster cl;
	struct gp_findings f; /* the nodes': cluster-node-unpublished, cluster-inventory-stale */
	struct gp_cluster_subject *subj;
	size_t n;
};

/*
 * Reads the cluster from ctx's root and judges each GPU container (only that one when
 * only is not NULL) on every node. 0; -ENOENT when the root is no Proxmox VE node; another
 * -errno (said). Free with gp_check_cluster_free either way.
 */
int gp_check_cluster(const struct gp_check_ctx *ctx, const char *only, struct gp_cluster_check *cc);
void gp_check_cluster_free(struct gp_cluster_check *cc);

/* ini-node-local: a Proxmox VE container's ini still in this node's confdir. */
void gp_check_ini_node_local(const struct gp_check_ctx *ctx, const char *name,
			     struct gp_findings *f);

#endif
