/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/base/paths.c: where everything lives, on the real host or under a --root. */
#ifndef GP_PATHS_H
#define GP_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* Where make put things; the Makefile passes each, these are the same defaults. */
#ifndef GP_VERSION
#define GP_VERSION "0"
#endif
#ifndef GP_CONFDIR
#define GP_CONFDIR "/etc/gpu-provision"
#endif
#ifndef GP_SBINDIR
#define GP_SBINDIR "/usr/local/sbin"
#endif
#ifndef GP_LIBEXECDIR
#define GP_LIBEXECDIR "/usr/local/libexec/gpu-provision"
#endif

/* The host's defaults beside the per-container ini files. */
#define GP_HOSTCONF_NAME "gpu-provision.conf"
/* Runtime state (a tmpfs, gone at reboot): plans, probe verdicts, the kconfig cache. */
#define GP_RUNDIR "/run/gpu-provision"

/* True when root names the machine we run on: NULL, "" or "/". Any other is a capture. */
bool gp_root_is_host(const char *root);

/* Returns a malloc'd "root + rel" (rel starts with '/'); the real host's rel as it is. */
char *gp_path(const char *root, const char *rel);
/* The most a file of the host's own that a command reads whole holds (/proc, /sys, /etc). */
#define GP_HOST_FILE_MAX (1u << 20)

/* gp_read_file (lib/base/util.h) of rel under root. */
int gp_read_file_at(const char *root, const char *rel, size_t max, char **buf, size_t *len);

/*
 * Proxmox VE's cluster filesystem (pmxcfs): the container configs in <root>/etc/pve/lxc (a
 * link to this node's nodes/<node>/lxc), /etc/pve/local (a link to nodes/<node>), and the
 * container's own files of this tool in /etc/pve/gpu-provision, so that they follow it to
 * whichever node starts it. pmxcfs makes every file 0640 root:www-data and refuses any
 * other mode (its chmod), has no symlinks of ours and replaces a file atomically only by
 * rename.
 */
#define GP_PVE_LXC_DIR "/etc/pve/lxc"
#define GP_PVE_LOCAL_LINK "/etc/pve/local"
#define GP_CLUSTER_DIR "/etc/pve/gpu-provision"
#define GP_CLUSTER_MODE 0640
#define GP_NODE_NAME_MAX 64

/* <root>/etc/pve/lxc/<id>.conf, malloc'd. */
char *gp_pve_config_path(const char *root, const char *id);

/* The same in confdir whatever the host: where a Proxmox node kept them before. */
char *gp_local_ini_path(const char *confdir, const char *name);
char *gp_local_applied_path(const char *confdir, const char *name);
/* What node publishes of itself: <root>/etc/pve/gpu-provision/nodes/<node>.json, malloc'd. */
char *gp_cluster_node_path(const char *root, const char *node);
/* The host's defaults: node-local, in confdir. */
char *gp_hostconf_path(const char *confdir); /* gpu-provision.conf */
/* <root>/run/gpu-provision/<file>, malloc'd: "<name>.plan", "<name>.verdict",
 * "<name>.inject", "kconfig". */
char *gp_run_path(const char *root, const char *file);
char *gp_plan_path(const char *root, const char *name);
char *gp_verdict_path(const char *root, const char *name);
char *gp_inject_path(const char *root, const char *name);
/* <root>/run/gpu-provision/<name>.driver: the driver's directories staged for a start. */
char *gp_inject_stage_path(const char *root, const char *name);
/* <root>/run/gpu-provision/<name>.cdi: the CDI spec pre-start wrote for the mount hook. */
char *gp_cdi_path(const char *root, const char *name);
/* <root>/run/gpu-provision/<name>.reader: check's rootfs reader left waiting, if any. */
char *gp_reader_path(const char *root, const char *name);

/*
 * The program name beside the running binary, when it is there and executable (a build
 * tree, where all binaries sit in one folder), else in installed_dir. Returns 0 when the
 * chosen file is executable, -ENOENT otherwise; out holds the path either way.
 */
int gp_program_path(const char *name, const char *installed_dir, char *out, size_t size);

#endif
