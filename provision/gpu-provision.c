/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision [OPTIONS] COMMAND [ARGS]: options are accepted after COMMAND too. */
#include <getopt.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/child.h"
#include "base/exitcode.h"
#include "base/paths.h"
#include "base/util.h"
#include "commands.h"

/* Each command's options are the names of cli_options[] it reads (t-docs.sh holds --help,
 * each command's --help and gpu-provision(8) to these tables). */
#define ATTACH_OPTS                                                                                \
	"root lxcpath confdir pve gpus caps mode inject no-inject capabilities nesting "           \
	"no-nesting dry-run"
static const struct gp_command commands[] = {
	{ "host", "", "show the host's driver, GPUs, majors and uvm state", "root json",
	  gp_cmd_host },
	{ "create", "NAME --template T | ID --ostemplate VOLID [-- ARGS]",
	  "a new container with GPUs",
	  ATTACH_OPTS " template config ostemplate unprivileged rootfs-dev force", gp_cmd_create },
	{ "attach", "NAME [--gpus SEL] [--caps CAPS]", "give a container GPUs", ATTACH_OPTS,
	  gp_cmd_attach },
	{ "adopt", "NAME [--gpus SEL]",
	  "take over a container whose GPUs a recipe's lines give: out with them, attach",
	  ATTACH_OPTS, gp_cmd_adopt },
	{ "detach", "NAME", "take them away again", "root lxcpath confdir pve dry-run",
	  gp_cmd_detach },
	{ "prepare", "[--persist]", "load nvidia_uvm as the HMM policy wants, make the nodes",
	  "root confdir persist container modules-only dry-run", gp_cmd_prepare },
	{ "probe", "NAME [--deep] [--nested IMAGE]",
	  "run cuInit inside the running container and explain the result; --deep: prove "
	  "compute, NVML, video and Vulkan too; --nested: in a nested container of IMAGE",
	  "root lxcpath confdir timeout deep nested runtime json", gp_cmd_probe },
	{ "sync", "NAME|--all [--restart]",
	  "rewrite rules and plans for today's majors and GPUs; --restart: restart, one by one, "
	  "the running ones whose injected driver the host has replaced",
	  "root lxcpath confdir pve all restart timeout dry-run", gp_cmd_sync },
	{ "list", "[--cluster]",
	  "the containers with GPUs, their mode, state and last probe (deep too); --cluster: "
	  "every node's, with its node",
	  "root lxcpath confdir pve cluster json", gp_cmd_list },
	{ "check", "[NAME|--all]", "diagnose the host, the configs and the running containers",
	  "root lxcpath confdir pve all timeout deep nested runtime json format output",
	  gp_cmd_check },
	{ "findings", "[--format markdown]", "every finding check can raise, and its fix", "format",
	  gp_cmd_findings },
};

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
	const char *arg;  /* its argument in --help, NULL for a flag */
	const char *help; /* its line in --help */
};

/* OPT(name, how, field[, arg, help]) */
#define OPT(name, how, field, ...)                                                                 \
	{                                                                                          \
		name, how, offsetof(struct gp_cli, field), __VA_ARGS__                             \
	}
static const struct cli_option cli_options[] = {
	OPT("root", SET_PATH, root, "DIR", "read and write the host's driver files under DIR"),
	OPT("lxcpath", SET_PATH, lxcpath, "DIR", "LXC's container directory (default: LXC's own)"),
	OPT("confdir", SET_STRING, confdir, "DIR",
	    "per-container ini files (default " GP_CONFDIR ")"),
	OPT("gpus", SET_STRING, gpus, "SEL",
	    "all, indexes, GPU-UUIDs or PCI addresses, comma-separated"),
	OPT("caps", SET_STRING, caps, "CAPS", "mig-config, mig-monitor, gpuM/giG, gpuM/giG/ciC"),
	OPT("dry-run", SET_FLAG, dry_run, NULL, "print what would change, change nothing"),
	OPT("json", SET_FLAG, json, NULL, "machine-readable output"),
	OPT("persist", SET_FLAG, persist, NULL,
	    "keep uvm_disable_hmm=1 across reboots (modprobe.d)"),
	OPT("container", SET_STRING, container, "NAME", "follow this container's [uvm] policy"),
	OPT("modules-only", SET_FLAG, modules_only, NULL, "the modules only, no device nodes"),
	OPT("timeout", SET_TIMEOUT, timeout, "SECONDS",
	    "the probe's deadline (default: [probe] timeout, 30); sync --restart: a "
	    "container's shutdown's (default 30)"),
	OPT("deep", SET_FLAG, deep, NULL,
	    "prove each capability too: a kernel, NVML, NVDEC, NVENC, Vulkan (default: [probe] "
	    "deep)"),
	OPT("nested", SET_STRING, nested, "IMAGE",
	    "probe, check: probe in a nested container of IMAGE (in the container's store) "
	    "through its Podman or Docker and the start's CDI spec"),
	OPT("runtime", SET_STRING, runtime, "podman|docker",
	    "--nested's runtime (default: podman, docker where podman is absent)"),
	OPT("mode", SET_STRING, mode, "hook|devn",
	    "Proxmox: raw lxc.* hook lines (default) or devN entries"),
	OPT("inject", SET_FLAG, inject, NULL,
	    "give the container the host's driver user space at each start (the default)"),
	OPT("no-inject", SET_FLAG, no_inject, NULL,
	    "do not: the container carries its own, of the host's version"),
	OPT("capabilities", SET_STRING, capabilities, "LIST",
	    "what to inject: compute, utility, video, graphics, display (default: compute, "
	    "utility)"),
	OPT("nesting", SET_FLAG, nesting, NULL,
	    "let a runtime inside run (Docker, Podman): Proxmox features nesting=1, or LXC's "
	    "generated AppArmor profile with allow_nesting"),
	OPT("no-nesting", SET_FLAG, no_nesting, NULL, "take out the nesting attach gave"),
	OPT("pve", SET_FLAG, pve, NULL, "treat containers as Proxmox VE's (found by /etc/pve/lxc)"),
	OPT("all", SET_FLAG, all, NULL, "every container with an ini"),
	OPT("restart", SET_FLAG, restart, NULL,
	    "sync: restart the running containers whose injected driver the host has replaced "
	    "(check: driver-replaced, driver-version-stale)"),
	OPT("cluster", SET_FLAG, cluster, NULL,
	    "Proxmox VE: the GPU containers of every node of the cluster"),
	OPT("template", SET_STRING, template_name, "T",
	    "the lxc-create template (busybox, download, ...)"),
	OPT("config", SET_STRING, config_file, "FILE", "a base LXC config, as lxc-create -f"),
	OPT("ostemplate", SET_STRING, ostemplate, "V",
	    "on Proxmox VE: pct create's template volume"),
	OPT("unprivileged", SET_FLAG, unprivileged, NULL,
	    "map root to root's subordinate ids (/etc/subuid)"),
	OPT("rootfs-dev", SET_STRING, rootfs_dev, "P",
	    "format P (device or image, checked with libblkid) for the rootfs"),
	OPT("force", SET_FLAG, force, NULL, "format it even if it holds a filesystem"),
	OPT("format", SET_FORMAT, format, "F",
	    "check: text, json or prometheus; findings: markdown"),
	OPT("output", SET_STRING, output, "FILE",
	    "check: write the result to FILE atomically (temp + rename)"),
};
#define OPTION_BASE 256 /* getopt's value for cli_options[i] is OPTION_BASE + i */

/* Whether the space-separated list names word. */
static bool lists(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *s = list; (s = strstr(s, word)); s += n) {
		if ((s == list || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\0'))
			return true;
	}
	return false;
}

/* The commands that take opt, ", "-joined, when not most of them do. */
static void taken_by(const struct cli_option *opt, char *buf, size_t size)
{
	size_t len = 0, n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < GP_ARRAY_SIZE(commands); i++) {
		if (lists(commands[i].options, opt->name) && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", n++ ? ", " : "",
						commands[i].name);
	}
	if (n * 2 > GP_ARRAY_SIZE(commands))
		buf[0] = '\0';
}

static void print_option(FILE *f, const struct cli_option *opt, bool with_commands)
{
	char flag[64], cmds[128] = "";

	snprintf(flag, sizeof(flag), "--%s%s%s", opt->name, opt->arg ? " " : "",
		 opt->arg ? opt->arg : "");
	if (with_commands)
		taken_by(opt, cmds, sizeof(cmds));
	fprintf(f, "  %-20s %s%s%s%s\n", flag, opt->help ? opt->help : "", cmds[0] ? " [" : "",
		cmds, cmds[0] ? "]" : "");
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: gpu-provision [OPTIONS] COMMAND [ARGS]\n"
		   "       gpu-provision COMMAND --help\n\nCommands:\n");
	for (size_t i = 0; i < GP_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s%s%s\n", commands[i].name, commands[i].synopsis,
			commands[i].synopsis[0] ? ": " : "", commands[i].help);
	fprintf(f, "\nOptions (before or after the command; [the commands that take one]):\n");
	for (size_t i = 0; i < GP_ARRAY_SIZE(cli_options); i++)
		print_option(f, &cli_options[i], true);
	fprintf(f, "  %-20s %s\n  %-20s %s\n  %-20s %s\n", "-- ARGS",
		"create: arguments for the template, or options for pct", "-h, --help",
		"this text; COMMAND --help: that command's alone", "-V, --version", "the version");
}

/* COMMAND --help: its usage line and the options it takes, one line each. */
static void command_usage(FILE *f, const struct gp_command *cmd)
{
	fprintf(f, "Usage: gpu-provision %s%s%s\n%s\n\nOptions:\n", cmd->name,
		cmd->synopsis[0] ? " " : "", cmd->synopsis, cmd->help);
	for (size_t i = 0; i < GP_ARRAY_SIZE(cli_options); i++) {
		if (lists(cmd->options, cli_options[i].name))
			print_option(f, &cli_options[i], false);
	}
	fprintf(f, "  %-20s %s\n", "-h, --help", "this text");
}

static const struct gp_command *find_command(const char *name)
{
	for (size_t i = 0; i < GP_ARRAY_SIZE(commands); i++) {
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	}
	return NULL;
}

static int set_format(const char *arg, struct gp_cli *cli)
{
	if (strcmp(arg, "text") && strcmp(arg, "json") && strcmp(arg, "prometheus") &&
	    strcmp(arg, "markdown")) {
		gp_error("--format \"%s\": use text, json, prometheus or markdown", arg);
		return -GP_EBADCONF;
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
		return -GP_EBADCONF;
	}
	return -GP_EBADCONF;
}

/* --help is answered once every option is read: "COMMAND --help" needs the command. */
static int parse_options(int argc, char **argv, struct gp_cli *cli, bool *help)
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
			*help = true;
			continue;
		}
		if (c == 'V') {
			printf("gpu-provision %s\n", GP_VERSION);
			exit(0);
		}
		if (c < OPTION_BASE)
			return -GP_EBADCONF;
		r = set_option(&cli_options[c - OPTION_BASE], optarg, cli);
	}
	cli->args = argv + optind;
	cli->nargs = argc - optind;
	return r;
}

/* --help alone: every command and option; COMMAND --help: that command's. */
static int help(const struct gp_cli *cli)
{
	const struct gp_command *cmd;

	if (cli->nargs < 1) {
		usage(stdout);
		return GP_EXIT_OK;
	}
	cmd = find_command(cli->args[0]);
	if (!cmd) {
		gp_error("unknown command \"%s\"; see gpu-provision --help", cli->args[0]);
		return GP_EXIT_USAGE;
	}
	command_usage(stdout, cmd);
	return GP_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct gp_cli cli = { .confdir = GP_CONFDIR };
	const struct gp_command *cmd;
	bool want_help = false;
	int r;

	gp_stdio_ensure();
	if (parse_options(argc, argv, &cli, &want_help) < 0 || (cli.nargs < 1 && !want_help)) {
		usage(stderr);
		return GP_EXIT_USAGE;
	}
	if (want_help) {
		r = help(&cli);
	} else if (!(cmd = find_command(cli.args[0]))) {
		gp_error("unknown command \"%s\"; see gpu-provision --help", cli.args[0]);
		r = GP_EXIT_USAGE;
	} else if (strcmp(cmd->name, "probe") == 0 && gp_child_reexec_sealed(argv) < 0) {
		/* probe forks into containers: their processes must not see our file as exe. */
		r = GP_EXIT_FAILED;
	} else {
		gp_ctx_init(&cli.ctx, cli.root, cli.confdir, cli.lxcpath, cli.pve, GP_CTX_ALL);
		gp_runtime_read(&cli.ctx, &cli.rt);
		r = cmd->run(&cli);
	}
	free(cli.root);
	free(cli.lxcpath);
	return r;
}
