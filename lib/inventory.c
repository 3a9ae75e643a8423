/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which containers have GPUs, and what their last probe said. */
#include <dirent.h>
#include <lxc/lxccontainer.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctconf.h"
#include "deep.h"
#include "inventory.h"
#include "paths.h"
#include "util.h"

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
static bool has_ini(const char *root, const char *confdir, const char *name)
{
	_cleanup_free_ char *ini = gp_ini_path(root, confdir, name);
	_cleanup_free_ char *local = gp_local_ini_path(confdir, name);

	return (ini && access(ini, F_OK) == 0) || (local && access(local, F_OK) == 0);
}

int gp_inventory_names(const char *root, const char *confdir, char ***names)
{
	int n, kept = 0;

	if (!gp_root_is_pve(root))
		return file_names(confdir, ini_name, strlen(".ini"), names);
	/* This node's containers (Proxmox's lxc link) whose ini the cluster holds. */
	n = pve_containers(root, names);
	for (int i = 0; i < n; i++) {
		if (has_ini(root, confdir, (*names)[i]))
			(*names)[kept++] = (*names)[i];
		else
			free((*names)[i]);
	}
	if (n > 0)
		(*names)[kept] = NULL;
	return n < 0 ? n : kept;
}

int gp_inventory_containers(const char *root, const char *lxcpath, bool pve, char ***names)
{
	int n;

	if (pve)
		return pve_containers(root, names);
	n = list_defined_containers(lxcpath ? lxcpath : lxc_get_global_config_item("lxc.lxcpath"),
				    names, NULL);
	if (n < 0)
		return -EIO;
	if (n > 0)
		qsort(*names, (size_t)n, sizeof(char *), by_name);
	return n;
}

void gp_inventory_free(char **names, int n)
{
	for (int i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

int gp_verdict_save(const char *root, const char *name, const char *status, const char *deep)
{
	_cleanup_free_ char *path = gp_verdict_path(root, name);
	char text[384];
	int n;

	if (!path || gp_mkdir_parents(path) < 0)
		return -ENOMEM;
	if (deep && !deep[0])
		deep = NULL; /* no device was judged: a plain verdict */
	n = snprintf(text, sizeof(text), "%s %ld\n%s%s%s", status, (long)time(NULL),
		     deep ? "deep " : "", deep ? deep : "", deep ? "\n" : "");
	if (n < 0 || (size_t)n >= sizeof(text))
		return -E2BIG;
	return gp_write_file_atomic(path, text, (size_t)n, 0644, 0);
}

/* "compute=ok,nvml=failed,...": every capability once, in order, with a known status. */
static bool deep_summary_is_valid(const char *s)
{
	for (int c = 0; c < GP_DEEP_COUNT; c++) {
		const char *cap = gp_deep_cap_name((enum gp_deep_cap)c), *end;
		enum gp_deep_status st;
		char word[16];
		size_t n;

		if (c && *s++ != ',')
			return false;
		if (strncmp(s, cap, strlen(cap)) != 0 || s[strlen(cap)] != '=')
			return false;
		s += strlen(cap) + 1;
		end = s + strcspn(s, ",");
		n = (size_t)(end - s);
		if (n >= sizeof(word))
			return false;
		memcpy(word, s, n);
		word[n] = '\0';
		if (gp_deep_status_parse(word, &st) < 0)
			return false;
		s = end;
	}
	return *s == '\0';
}

int gp_verdict_load(const char *root, const char *name, struct gp_verdict *v)
{
	_cleanup_free_ char *path = gp_verdict_path(root, name), *buf = NULL;
	char word[16], deep[256];
	int used = 0;

	memset(v, 0, sizeof(*v));
	if (!path || gp_read_file(path, 512, &buf, NULL) < 0)
		return -ENOENT;
	if (sscanf(buf, "%15s %ld\n%n", word, &v->when, &used) != 2 ||
	    (strcmp(word, "ok") && strcmp(word, "failed") && strcmp(word, "timeout")))
		return -EINVAL;
	snprintf(v->status, sizeof(v->status), "%s", word);
	if (buf[used] == '\0')
		return 0;
	if (sscanf(buf + used, "deep %255s", deep) != 1 || !deep_summary_is_valid(deep))
		return -EINVAL;
	snprintf(v->deep, sizeof(v->deep), "%s", deep);
	return 0;
}
