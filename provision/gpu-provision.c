/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision [OPTIONS] COMMAND [ARGS]: options are accepted after COMMAND too. */
#include <getopt.h>
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

	if (!realpath(path, buf)) {
		gp_error("%s \"%s\": %m", opt, path);
		return -errno;
	}
	*out = strdup(buf);
	return *out ? 0 : -ENOMEM;
}

static int parse_options(int argc, char **argv, struct gp_cli *cli)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "lxcpath", required_argument, NULL, 'P' },
		{ "confdir", required_argument, NULL, 'c' },
		{ "gpus", required_argument, NULL, 'g' },
		{ "caps", required_argument, NULL, 'C' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "persist", no_argument, NULL, 'p' },
		{ "container", required_argument, NULL, 'N' },
		{ "modules-only", no_argument, NULL, 'M' },
		{ "timeout", required_argument, NULL, 't' },
		{ "mode", required_argument, NULL, 'm' },
		{ "pve", no_argument, NULL, 'E' },
		{ "all", no_argument, NULL, 'a' },
		{ "template", required_argument, NULL, 'T' },
		{ "config", required_argument, NULL, 'F' },
		{ "ostemplate", required_argument, NULL, 'O' },
		{ "rootfs-dev", required_argument, NULL, 'R' },
		{ "unprivileged", no_argument, NULL, 'U' },
		{ "force", no_argument, NULL, 'f' },
		{ "format", required_argument, NULL, 'o' },
		{ 0 },
	};
	int c, r = 0;

	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1 && r == 0) {
		switch (c) {
		case 'r':
			r = absolute("--root", optarg, &cli->root);
			break;
		case 'P':
			r = absolute("--lxcpath", optarg, &cli->lxcpath);
			break;
		case 'c':
			cli->confdir = optarg;
			break;
		case 'g':
			cli->gpus = optarg;
			break;
		case 'C':
			cli->caps = optarg;
			break;
		case 'n':
			cli->dry_run = true;
			break;
		case 'j':
			cli->json = true;
			break;
		case 'p':
			cli->persist = true;
			break;
		case 'N':
			cli->container = optarg;
			break;
		case 'M':
			cli->modules_only = true;
			break;
		case 'm':
			cli->mode = optarg;
			break;
		case 'E':
			cli->pve = true;
			break;
		case 'a':
			cli->all = true;
			break;
		case 'T':
			cli->template_name = optarg;
			break;
		case 'F':
			cli->config_file = optarg;
			break;
		case 'O':
			cli->ostemplate = optarg;
			break;
		case 'R':
			cli->rootfs_dev = optarg;
			break;
		case 'U':
			cli->unprivileged = true;
			break;
		case 'f':
			cli->force = true;
			break;
		case 'o':
			if (strcmp(optarg, "text") && strcmp(optarg, "json") &&
			    strcmp(optarg, "prometheus") && strcmp(optarg, "markdown")) {
				gp_error("--format \"%s\": use text, json, prometheus or markdown",
					 optarg);
				return -EINVAL;
			}
			cli->format = optarg;
			cli->json |= strcmp(optarg, "json") == 0;
			break;
		case 't':
			if (gp_parse_uint(optarg, &cli->timeout) < 0 || cli->timeout == 0 ||
			    cli->timeout > 3600) {
				gp_error("--timeout \"%s\": give whole seconds from 1 to 3600",
					 optarg);
				return -EINVAL;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("gpu-provision %s\n", GP_VERSION);
			exit(0);
		default:
			return -EINVAL;
		}
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
