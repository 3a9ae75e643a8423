/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-hook: run by LXC as
 *   /bin/sh -c "exec gpu-hook [--root DIR] [--confdir DIR] NAME lxc TYPE [...]"
 * for TYPE pre-start, autodev (or mount) and post-stop.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/child.h"
#include "base/ctx.h"
#include "base/exitcode.h"
#include "base/paths.h"
#include "base/util.h"
#include "start/hook.h"

struct lxc_env {
	char rootfs[PATH_MAX];
	char config[PATH_MAX];
	char type[32];
};

static void keep(char *dst, size_t size, const char *name)
{
	const char *v = getenv(name);

	snprintf(dst, size, "%s", v && strlen(v) < size ? v : "");
}

/* Keeps what LXC told us, then drops the rest of the environment (LD_PRELOAD and all). */
static void clean_environment(struct lxc_env *env)
{
	keep(env->rootfs, sizeof(env->rootfs), "LXC_ROOTFS_MOUNT");
	keep(env->config, sizeof(env->config), "LXC_CONFIG_FILE");
	keep(env->type, sizeof(env->type), "LXC_HOOK_TYPE");
	clearenv();
	setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
	umask(022);
	if (chdir("/") < 0)
		gp_warn("Failed to chdir to /: %m");
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: gpu-hook [--root DIR] [--confdir DIR] NAME lxc TYPE\n"
		   "LXC hook that gives a container its NVIDIA GPUs; TYPE is pre-start,\n"
		   "autodev, mount or post-stop. Installed by gpu-provision attach.\n");
}

/* What a moment reads of the host for its context (lib/base/ctx.h). */
static unsigned int what_of(const char *type)
{
	if (strcmp(type, "pre-start") == 0)
		return GP_CTX_ALL;
	return strcmp(type, "post-stop") == 0 ? 0 : GP_CTX_OWNER;
}

static int run(const char *type, const struct gp_ctx *ctx, const char *name,
	       const struct lxc_env *env)
{
	if (strcmp(type, "pre-start") == 0)
		return gp_hook_pre_start(ctx, name, env->config[0] ? env->config : NULL);
	if (strcmp(type, "autodev") == 0 || strcmp(type, "mount") == 0)
		return gp_hook_mount(ctx, name, env->rootfs[0] ? env->rootfs : NULL);
	if (strcmp(type, "post-stop") == 0)
		return gp_hook_post_stop(ctx, name);
	gp_error("unknown hook type \"%s\"; use it as lxc.hook.pre-start, autodev, mount or "
		 "post-stop",
		 type);
	return -GP_EBADCONF;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "confdir", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	const char *root = NULL, *confdir = GP_CONFDIR, *name, *type;
	struct lxc_env env;
	struct gp_ctx ctx;
	int c, r;

	gp_stdio_ensure();
	clean_environment(&env);
	gp_log_prefix = "gpu-hook";
	gp_log_stdout = true;
	while ((c = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			root = optarg;
			break;
		case 'c':
			confdir = optarg;
			break;
		case 'h':
			usage(stdout);
			return GP_EXIT_OK;
		case 'V':
			printf("gpu-hook %s\n", GP_VERSION);
			return GP_EXIT_OK;
		default:
			usage(stderr);
			return GP_EXIT_USAGE;
		}
	}
	if (argc - optind < 1 || (argc - optind < 3 && !env.type[0])) {
		usage(stderr);
		return GP_EXIT_USAGE;
	}
	name = argv[optind];
	type = argc - optind >= 3 ? argv[optind + 2] : env.type;
	if (!gp_name_is_valid(name)) {
		gp_error("\"%s\" is not a container name this hook accepts", name);
		return GP_EXIT_USAGE;
	}
	/*
	 * LXC gives the config's path (LXC_CONFIG_FILE): the hook needs no lxcpath. Each moment
	 * reads what it uses: pre-start all, the mount hook the owner of injected files,
	 * post-stop nothing.
	 */
	gp_ctx_init(&ctx, root, confdir, NULL, false, what_of(type));
	r = run(type, &ctx, name, &env);
	if (r < 0)
		gp_error("%s: %s refused for container \"%s\"", type,
			 strcmp(type, "post-stop") ? "start" : "cleanup", name);
	return gp_exit_code(r);
}
