/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/paths.c: where everything lives, on the real host or under a --root. */
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

/* The per-container files in confdir, malloc'd (NULL when out of memory). */
char *gp_ini_path(const char *confdir, const char *name);     /* <name>.ini */
char *gp_applied_path(const char *confdir, const char *name); /* <name>.applied */
char *gp_hostconf_path(const char *confdir);		      /* gpu-provision.conf */
/* Proxmox VE's container configs: <root>/etc/pve/lxc, and <id>.conf in it (malloc'd). */
#define GP_PVE_LXC_DIR "/etc/pve/lxc"
char *gp_pve_config_path(const char *root, const char *id);
/* <root>/run/gpu-provision/<file>, malloc'd: "<name>.plan", "<name>.verdict",
 * "<name>.inject", "kconfig". */
char *gp_run_path(const char *root, const char *file);
char *gp_plan_path(const char *root, const char *name);
char *gp_verdict_path(const char *root, const char *name);
char *gp_inject_path(const char *root, const char *name);

/*
 * The program name beside the running binary, when it is there and executable (a build
 * tree, where all binaries sit in one folder), else in installed_dir. Returns 0 when the
 * chosen file is executable, -ENOENT otherwise; out holds the path either way.
 */
int gp_program_path(const char *name, const char *installed_dir, char *out, size_t size);

#endif
