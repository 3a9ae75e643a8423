/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Implemented in lib/cluster/nodefile.c.
 *
 * A Proxmox VE cluster shares /etc/pve (pmxcfs) and nothing else of ours: no daemon, no
 * ssh. Each node's prepare writes what it has to /etc/pve/gpu-provision/nodes/<node>.json;
 * any node reads every node's file and every container's ini there and judges.
 */
#ifndef GP_NODEFILE_H
#define GP_NODEFILE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/paths.h"
#include "config/ini.h"
#include "host/host.h"

struct gp_host_state;

#define GP_CLUSTER_FORMAT 1		 /* the "format" of the files this code writes */
#define GP_CLUSTER_FILE_MAX (256 * 1024) /* one node's file, far below pmxcfs's 1 MiB */

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

/* inv as JSON (the layout docs/proxmox.md shows); caller owns it. */
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

#endif
