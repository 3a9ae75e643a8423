/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision [OPTIONS] COMMAND [ARGS]: options are accepted after COMMAND too. */
#include <getopt.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "commands.h"
#include "exitcode.h"
#include "paths.h"
#include "util.h"

static const struct gp_command commands[] = {
	{ "host", "show the host's driver, GPUs, majors and uvm state", gp_cmd_host },
	{ "create", "NAME --template T | ID --ostemplate VOLID: a new container with GPUs",
	  gp_cmd_create },
	{ "attach", "NAME --gpus SEL [--caps CAPS]: give a container GPUs", gp_cmd_attach },
	{ "detach", "NAME: take them away again", gp_cmd_detach },
	{ "prepare", "[--persist]: load nvidia_uvm as the HMM policy wants, make the nodes",
	  gp_cmd_prepare },
	{ "probe", "NAME: run cuInit inside the running container and explain the result",
	  gp_cmd_probe },
	{ "sync", "NAME|--all: rewrite rules and plans for today's majors and GPUs", gp_cmd_sync },
	{ "list", "the containers with GPUs, their mode, state and last probe", gp_cmd_list },
	{ "check", "[NAME|--all]: diagnose the host, the configs and the running containers",
	  gp_cmd_check },
	{ "findings", "[--format markdown]: every finding check can raise, and its fix",
	  gp_cmd_findings },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: gpu-provision [OPTIONS] COMMAND [ARGS]\n\nCommands:\n");
	for (size_t i = 0; i < GP_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f,
		"\nOptions:\n"
		"  --root DIR      read and write the host's driver files under DIR\n"
		"  --lxcpath DIR   LXC's container directory (default: LXC's own)\n"
		"  --confdir DIR   per-container ini files (default %s)\n"
		"  --gpus SEL      all, indexes, GPU-UUIDs or PCI addresses, comma-separated\n"
		"  --caps CAPS     mig-config, mig-monitor, gpuM/giG, gpuM/giG/ciC\n"
		"  --dry-run       print what would change, change nothing\n"
		"  --persist       prepare: keep uvm_disable_hmm=1 across reboots (modprobe.d)\n"
		"  --container NAME  prepare: follow this container's [uvm] policy\n"
		"  --modules-only  prepare: the modules only, no device nodes\n"
		"  --timeout SECONDS  probe: the deadline (default: [probe] timeout, 30)\n"
		"  --mode hook|devn   Proxmox: raw lxc.* hook lines (default) or devN entries\n"
		"  --pve           treat containers as Proxmox VE's (found by /etc/pve/lxc)\n"
		"  --all           sync: every container with an ini\n"
		"  --template T    create: the lxc-create template (busybox, download, ...)\n"
		"  --config FILE   create: a base LXC config, as lxc-create -f\n"
		"  --ostemplate V  create on Proxmox VE: pct create's template volume\n"
		"  --unprivileged  create: map root to root's subordinate ids (/etc/subuid)\n"
		"  --rootfs-dev P  create: format P (device or image, checked with libblkid) for "
		"the rootfs\n"
		"  --force         create: format it even if it holds a filesystem\n"
		"  -- ARGS         create: arguments for the template, or options for pct\n"
		"  --json          machine-readable output\n"
		"  --format F      check: text, json or prometheus; findings: markdown\n"
		"  -h, --help      this text\n"
		"  -V, --version   the version\n",
		GP_CONFDIR);
}

static int absolute(const char *opt, const char *path, char **out)
{
	char buf[PATH_MAX];

	if (!realpath(path, buf))
		return gp_error_errno(-errno, "--%s \"%s\"", opt, path);
	*out = strdup(buf);
	return *out ? 0 : -ENOMEM;
}

/* How an option sets its field of struct gp_cli: the command line from one table. */
enum set_how { SET_STRING, SET_FLAG, SET_PATH, SET_FORMAT, SET_TIMEOUT };

struct cli_option {
	const char *name;
	enum set_how how;
	size_t field;
};

#define OPT(name, how, field)                                                                      \
	{                                                                                          \
		name, how, offsetof(struct gp_cli, field)                                          \
	}
static const struct cli_option cli_options[] = {
	OPT("root", SET_PATH, root),
	OPT("lxcpath", SET_PATH, lxcpath),
	OPT("confdir", SET_STRING, confdir),
	OPT("gpus", SET_STRING, gpus),
	OPT("caps", SET_STRING, caps),
	OPT("dry-run", SET_FLAG, dry_run),
	OPT("json", SET_FLAG, json),
	OPT("persist", SET_FLAG, persist),
	OPT("container", SET_STRING, container),
	OPT("modules-only", SET_FLAG, modules_only),
	OPT("timeout", SET_TIMEOUT, timeout),
	OPT("mode", SET_STRING, mode),
	OPT("pve", SET_FLAG, pve),
	OPT("all", SET_FLAG, all),
	OPT("template", SET_STRING, template_name),
	OPT("config", SET_STRING, config_file),
	OPT("ostemplate", SET_STRING, ostemplate),
	OPT("rootfs-dev", SET_STRING, rootfs_dev),
	OPT("unprivileged", SET_FLAG, unprivileged),
	OPT("force", SET_FLAG, force),
	OPT("format", SET_FORMAT, format),
};
#define OPTION_BASE 256 /* getopt's value for cli_options[i] is OPTION_BASE + i */

static int set_format(const char *arg, struct gp_cli *cli)
{
	if (strcmp(arg, "text") && strcmp(arg, "json") && strcmp(arg, "prometheus") &&
	    strcmp(arg, "markdown")) {
		gp_error("--format \"%s\": use text, json, prometheus or markdown", arg);
		return -EINVAL;
	}
	cli->format = arg;
	cli->json |= strcmp(arg, "json") == 0;
	return 0;
}

static int set_option(const struct cli_option *opt, char *arg, struct gp_cli *cli)
{
	void *field = (char *)cli + opt->field;

	switch (opt->how) {
	case SET_STRING:
		*(const char **)field = arg;
		return 0;
	case SET_FLAG:
		*(bool *)field = true;
		return 0;
	case SET_PATH:
		return absolute(opt->name, arg, field);
	case SET_FORMAT:
		return set_format(arg, cli);
	case SET_TIMEOUT:
		if (gp_parse_uint(arg, &cli->timeout) == 0 && cli->timeout && cli->timeout <= 3600)
			return 0;
		gp_error("--timeout \"%s\": give whole seconds from 1 to 3600", arg);
		return -EINVAL;
	}
	return -EINVAL;
}

static int parse_options(int argc, char **argv, struct gp_cli *cli)
{
	struct option opts[GP_ARRAY_SIZE(cli_options) + 3] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
	};
	int c, r = 0;

	for (size_t i = 0; i < GP_ARRAY_SIZE(cli_options); i++)
		opts[i + 2] = (struct option){ cli_options[i].name,
					       cli_options[i].how == SET_FLAG ? no_argument
									      : required_argument,
					       NULL, OPTION_BASE + (int)i };
	while (r == 0 && (c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == 'V') {
			printf("gpu-provision %s\n", GP_VERSION);
			exit(0);
		}
		if (c < OPTION_BASE)
			return -EINVAL;
		r = set_option(&cli_options[c - OPTION_BASE], optarg, cli);
	}
	cli->args = argv + optind;
	cli->nargs = argc - optind;
	return r;
}

int main(int argc, char **argv)
{
	struct gp_cli cli = { .confdir = GP_CONFDIR };
	int r = -1;

	gp_stdio_ensure();
	if (parse_options(argc, argv, &cli) < 0 || cli.nargs < 1) {
		usage(stderr);
		return GP_EXIT_USAGE;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(commands); i++) {
		if (strcmp(cli.args[0], commands[i].name) != 0)
			continue;
		/* probe forks into containers: their processes must not see our file as exe. */
		if (strcmp(commands[i].name, "probe") == 0 && gp_child_reexec_sealed(argv) < 0)
			return GP_EXIT_FAILED;
		r = commands[i].run(&cli);
	}
	if (r < 0)
		gp_error("unknown command \"%s\"; see gpu-provision --help", cli.args[0]);
	free(cli.root);
	free(cli.lxcpath);
	return r < 0 ? GP_EXIT_USAGE : r;
}
