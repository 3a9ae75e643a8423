// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/error.h"
#include "base/trust.h"
#include "base/util.h"

static bool root_is_pve(const char *root)
{
	_cleanup_free_ char *dir = gp_path(root, GP_PVE_LXC_DIR);
	struct stat st;

	return dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* This node's name, from the /etc/pve/local link ("nodes/NAME"): gp_ctx's node_err. */
static int pve_node_name(const char *root, char name[GP_NODE_NAME_MAX])
{
	_cleanup_free_ char *link = gp_path(root, GP_PVE_LOCAL_LINK);
	char target[PATH_MAX];
	ssize_t n = link ? readlink(link, target, sizeof(target) - 1) : -1;
	const char *node;

	if (n < 0)
		return -ENOENT;
	target[n] = '\0';
	node = target + strlen("nodes/");
	if (strncmp(target, "nodes/", 6) != 0 || !*node || *node == '.' ||
	    strlen(node) >= GP_NODE_NAME_MAX ||
	    node[strspn(node, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-")])
		return -GP_EBADCONF;
	memcpy(name, node, strlen(node) + 1); /* shorter than GP_NODE_NAME_MAX: checked */
	return 0;
}

static uid_t owner_of(const char *root)
{
	struct stat st;

	if (gp_root_is_host(root))
		return gp_host_root_uid();
	/* A root that cannot be read trusts the host's: nothing is read below it anyway. */
	return stat(root, &st) == 0 ? st.st_uid : gp_host_root_uid();
}

void gp_ctx_init(struct gp_ctx *ctx, const char *root, const char *confdir, const char *lxcpath,
		 bool pve, unsigned int what)
{
	*ctx = (struct gp_ctx){ .root = root,
				.confdir = confdir,
				.lxcpath = lxcpath,
				.pmxcfs = (what & GP_CTX_CLUSTER) && root_is_pve(root),
				.node_err = -ENOENT,
				.owner = what & GP_CTX_OWNER ? owner_of(root) : (uid_t)-1 };
	ctx->pve = pve || ctx->pmxcfs;
	if (ctx->pmxcfs)
		ctx->node_err = pve_node_name(root, ctx->node);
	if (ctx->node_err < 0)
		ctx->node[0] = '\0';
}

/* <root>/etc/pve/gpu-provision/<name><ext>, malloc'd. */
static char *cluster_file(const struct gp_ctx *ctx, const char *name, const char *ext)
{
	char rel[PATH_MAX];

	if (snprintf(rel, sizeof(rel), GP_CLUSTER_DIR "/%s%s", name, ext) >= (int)sizeof(rel))
		return NULL;
	return gp_path(ctx->root, rel);
}

char *gp_ini_path(const struct gp_ctx *ctx, const char *name)
{
	return ctx->pmxcfs ? cluster_file(ctx, name, ".ini")
			   : gp_local_ini_path(ctx->confdir, name);
}

char *gp_applied_path(const struct gp_ctx *ctx, const char *name)
{
	return ctx->pmxcfs ? cluster_file(ctx, name, ".applied")
			   : gp_local_applied_path(ctx->confdir, name);
}

char *gp_applied_path_to_read(const struct gp_ctx *ctx, const char *name)
{
	char *path = gp_applied_path(ctx, name);

	if (path && ctx->pmxcfs && access(path, F_OK) != 0 && errno == ENOENT) {
		free(path);
		path = gp_local_applied_path(ctx->confdir, name);
	}
	return path;
}

unsigned int gp_container_file_mode(const struct gp_ctx *ctx)
{
	return ctx->pmxcfs ? GP_CLUSTER_MODE : 0644;
}
