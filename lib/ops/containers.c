/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which containers have GPUs, and which the host has at all. */
#include <dirent.h>
#include <lxc/lxccontainer.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/paths.h"
#include "base/util.h"
#include "ops/containers.h"

static int ini_name(const struct dirent *e)
{
	size_t n = strlen(e->d_name);
	char name[256];

	if (n <= 4 || strcmp(e->d_name + n - 4, ".ini") != 0 || n - 4 >= sizeof(name))
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)(n - 4), e->d_name);
	return gp_name_is_valid(name);
}

/* The names of dir's files that filter takes, without their suffix of cut bytes, sorted. */
static int file_names(const char *dir, int (*filter)(const struct dirent *), size_t cut,
		      char ***names)
{
	struct dirent **list = NULL;
	int n = scandir(dir, &list, filter, alphasort);

	*names = NULL;
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	*names = calloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; i < n; i++) {
		if (*names)
			(*names)[i] = strndup(list[i]->d_name, strlen(list[i]->d_name) - cut);
		free(list[i]);
	}
	free(list);
	return *names ? n : -ENOMEM;
}

static int pve_id(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 5 && n < 16 && strcmp(e->d_name + n - 5, ".conf") == 0 &&
	       strspn(e->d_name, "0123456789") == n - 5;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int pve_containers(const char *root, char ***names)
{
	_cleanup_free_ char *dir = gp_path(root, "/etc/pve/lxc");

	*names = NULL;
	return dir ? file_names(dir, pve_id, strlen(".conf"), names) : -ENOMEM;
}

/* Whether container name has an ini: the cluster's, or one a node kept in confdir. */
static bool has_ini(const struct gp_ctx *ctx, const char *name)
{
	_cleanup_free_ char *ini = gp_ini_path(ctx, name);
	_cleanup_free_ char *local = gp_local_ini_path(ctx->confdir, name);

	return (ini && access(ini, F_OK) == 0) || (local && access(local, F_OK) == 0);
}

int gp_containers_with_gpus(const struct gp_ctx *ctx, char ***names)
{
	int n, kept = 0;

	if (!ctx->pmxcfs)
		return file_names(ctx->confdir, ini_name, strlen(".ini"), names);
	/* This node's containers (Proxmox's lxc link) whose ini the cluster holds. */
	n = pve_containers(ctx->root, names);
	for (int i = 0; i < n; i++) {
		if (has_ini(ctx, (*names)[i]))
			(*names)[kept++] = (*names)[i];
		else
			free((*names)[i]);
	}
	if (n > 0)
		(*names)[kept] = NULL;
	return n < 0 ? n : kept;
}

int gp_containers_all(const struct gp_ctx *ctx, char ***names)
{
	const char *lxcpath = ctx->lxcpath;
	int n;

	if (ctx->pve)
		return pve_containers(ctx->root, names);
	n = list_defined_containers(lxcpath ? lxcpath : lxc_get_global_config_item("lxc.lxcpath"),
				    names, NULL);
	if (n < 0)
		return -EIO;
	if (n > 0)
		qsort(*names, (size_t)n, sizeof(char *), by_name);
	return n;
}

void gp_containers_free(char **names, int n)
{
	for (int i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}
