/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cluster as Proxmox VE's cluster filesystem shows it: its nodes and GPU containers. */
#include <dirent.h>
#include <string.h>

#include "base/ctx.h"
#include "base/util.h"
#include "cluster/cluster.h"

static const char node_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-";

/* A node name as gp_ctx_init takes one: what a file or directory of ours may be named. */
static bool node_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n && n < GP_NODE_NAME_MAX && name[0] != '.' &&
	       name[strspn(name, node_chars)] == '\0';
}

/* --- the cluster as /etc/pve shows it ------------------------------------------------- */

static int is_node_dir(const struct dirent *e)
{
	return node_name_ok(e->d_name);
}

static int is_ct_conf(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 5 && n < 16 && strcmp(e->d_name + n - 5, ".conf") == 0 &&
	       strspn(e->d_name, "0123456789") == n - 5;
}

/* A node's published file: read, parsed, kept in node->inv; why it is not, in node->why. */
static void read_inventory(const char *root, struct gp_cluster_node *node)
{
	_cleanup_free_ char *path = gp_cluster_node_path(root, node->name);
	_cleanup_free_ char *buf = NULL;
	char why[256];

	node->status = path ? gp_read_file(path, GP_CLUSTER_FILE_MAX, &buf, NULL) : -ENOMEM;
	if (node->status < 0) {
		snprintf(node->why, sizeof(node->why), "\"%s\": %s", path ? path : node->name,
			 node->status == -EFBIG ? "larger than 256 KiB"
						: gp_strerror(-node->status));
		return;
	}
	node->inv = malloc(sizeof(*node->inv));
	if (!node->inv) {
		node->status = -ENOMEM;
		snprintf(node->why, sizeof(node->why), "out of memory");
		return;
	}
	node->status = gp_node_inv_parse(buf, node->name, node->inv, why, sizeof(why));
	if (node->status < 0) {
		snprintf(node->why, sizeof(node->why), "\"%s\": %s", path, why);
		free(node->inv);
		node->inv = NULL;
	}
}

static int read_nodes(const char *root, struct gp_cluster *c)
{
	_cleanup_free_ char *dir = gp_path(root, GP_PVE_NODES_DIR);
	struct dirent **list = NULL;
	int n = dir ? scandir(dir, &list, is_node_dir, alphasort) : -1;

	if (n < 0)
		return gp_error_errno(dir ? -errno : -ENOMEM, "Failed to read \"%s\"",
				      dir ? dir : GP_PVE_NODES_DIR);
	for (int i = 0; i < n; i++) {
		if (c->nnodes < GP_CLUSTER_MAX_NODES)
			snprintf(c->nodes[c->nnodes++].name, GP_NODE_NAME_MAX, "%.*s",
				 GP_NODE_NAME_MAX - 1, list[i]->d_name);
		else
			c->left_out++;
		free(list[i]);
	}
	free(list);
	return 0;
}

static int add_ct(struct gp_cluster *c, const struct gp_ctx *ctx, const char *node, const char *id)
{
	_cleanup_free_ char *ini = gp_ini_path(ctx, id);
	struct gp_cluster_ct *grown, *ct;
	struct gp_log_capture said;

	if (!ini)
		return -ENOMEM;
	if (access(ini, F_OK) != 0)
		return 0; /* no GPUs of ours, or an ini still on its node only */
	grown = realloc(c->cts, (c->ncts + 1) * sizeof(*c->cts));
	if (!grown)
		return -ENOMEM;
	c->cts = grown;
	ct = &c->cts[c->ncts++];
	memset(ct, 0, sizeof(*ct));
	/* Both checked before: an ID of digits (pve_id), a node's name (gp_ctx's node).
	 */
	memcpy(ct->id, id, strnlen(id, sizeof(ct->id) - 1));
	memcpy(ct->node, node, strnlen(node, sizeof(ct->node) - 1));
	gp_log_capture_start(&said);
	ct->ini_status = gp_ini_load(ctx, id, &ct->conf);
	gp_log_capture_stop(&said);
	if (ct->ini_status < 0)
		snprintf(ct->ini_error, sizeof(ct->ini_error), "%s",
			 said.len ? said.text : gp_strerror(-ct->ini_status));
	return 0;
}

/* The containers whose config node holds (nodes/<node>/lxc/<id>.conf) with a cluster ini. */
static int read_containers(const struct gp_ctx *ctx, const char *node, struct gp_cluster *c)
{
	char rel[256];
	_cleanup_free_ char *dir = NULL;
	struct dirent **list = NULL;
	int n, r = 0;

	snprintf(rel, sizeof(rel), GP_PVE_NODES_DIR "/%s/lxc", node);
	dir = gp_path(ctx->root, rel);
	n = dir ? scandir(dir, &list, is_ct_conf, alphasort) : -1;
	if (n < 0)
		return errno == ENOENT ? 0 : gp_error_errno(-errno, "Failed to read \"%s\"", dir);
	for (int i = 0; i < n; i++) {
		list[i]->d_name[strlen(list[i]->d_name) - 5] = '\0';
		if (r == 0)
			r = add_ct(c, ctx, node, list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return r;
}

static int by_id(const void *a, const void *b)
{
	const struct gp_cluster_ct *x = a, *y = b;
	size_t lx = strlen(x->id), ly = strlen(y->id);

	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x->id, y->id);
}

int gp_cluster_read(const struct gp_ctx *ctx, struct gp_cluster *c)
{
	int r;

	memset(c, 0, sizeof(*c));
	if (ctx->node_err < 0)
		return -ENOENT;
	snprintf(c->self, sizeof(c->self), "%s", ctx->node);
	r = read_nodes(ctx->root, c);
	for (size_t i = 0; r == 0 && i < c->nnodes; i++) {
		read_inventory(ctx->root, &c->nodes[i]);
		r = read_containers(ctx, c->nodes[i].name, c);
	}
	if (r < 0) {
		gp_cluster_free(c);
		return r;
	}
	if (c->ncts > 1)
		qsort(c->cts, c->ncts, sizeof(*c->cts), by_id);
	return 0;
}

void gp_cluster_free(struct gp_cluster *c)
{
	for (size_t i = 0; i < c->nnodes; i++) {
		free(c->nodes[i].inv);
		c->nodes[i].inv = NULL;
	}
	free(c->cts);
	c->cts = NULL;
	c->ncts = 0;
}

const struct gp_cluster_node *gp_cluster_node(const struct gp_cluster *c, const char *name)
{
	for (size_t i = 0; i < c->nnodes; i++)
		if (strcmp(c->nodes[i].name, name) == 0)
			return &c->nodes[i];
	return NULL;
}
