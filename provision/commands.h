/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Implemented in provision/<command>.c, one file per command; gp_cli_attach_opts in
 * provision/attach.c.
 */
#ifndef GP_COMMANDS_H
#define GP_COMMANDS_H

#include <stdbool.h>

#include "base/ctx.h"
#include "driver/runtime.h"

/*
 * What the command line said; each command reads what it needs, and where it works from
 * ctx, which main makes of --root, --confdir, --lxcpath and --pve once they are parsed,
 * and the runtime it writes for from rt, read then too.
 */
struct gp_cli {
	struct gp_ctx ctx;
	struct gp_runtime rt; /* LXC and the cgroup layout, read once with ctx */
	char *root;
	char *lxcpath;
	const char *confdir;
	const char *gpus;
	const char *caps;
	const char *container;
	bool dry_run;
	bool json;
	bool persist;
	bool modules_only;
	unsigned int timeout;
	bool deep;
	const char *nested;  /* probe --nested IMAGE */
	const char *runtime; /* its --runtime, NULL: podman, else docker */
	const char *mode;
	bool inject, no_inject;
	bool nesting, no_nesting;
	const char *capabilities;
	bool pve;
	bool all;
	bool cluster; /* list: every node's containers (Proxmox VE) */
	bool restart; /* sync: restart those whose injected driver the host replaced */
	const char *template_name;
	const char *config_file;
	const char *ostemplate;
	const char *rootfs_dev;
	bool unprivileged;
	bool force;
	const char *format;
	const char *output; /* check: the file to replace with the result */
	char **args;	    /* args[0] is the command */
	int nargs;
};

struct gp_command {
	const char *name;
	const char *synopsis; /* what follows the name in its usage line */
	const char *help;
	const char *options; /* the long options it reads, space-separated, as in --help */
	int (*run)(const struct gp_cli *cli);
};

/* The attach options the command line gives for container name, with hook the gpu-hook path. */
struct gp_attach_opts;
void gp_cli_attach_opts(const struct gp_cli *cli, const char *name, const char *hook,
			struct gp_attach_opts *o);

/* Each returns its exit code (exitcode.h): 0 well, 1 problem found, 2 bad usage or config, 3
 * failed. */
int gp_cmd_host(const struct gp_cli *cli);
int gp_cmd_attach(const struct gp_cli *cli);
int gp_cmd_adopt(const struct gp_cli *cli);
int gp_cmd_detach(const struct gp_cli *cli);
int gp_cmd_prepare(const struct gp_cli *cli);
int gp_cmd_probe(const struct gp_cli *cli);
int gp_cmd_sync(const struct gp_cli *cli);
int gp_cmd_list(const struct gp_cli *cli);
int gp_cmd_create(const struct gp_cli *cli);
int gp_cmd_check(const struct gp_cli *cli);
int gp_cmd_findings(const struct gp_cli *cli);

#endif
