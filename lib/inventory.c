/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which containers have GPUs, and what their last probe said. */
#include <dirent.h>
#include <lxc/lxccontainer.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ctconf.h"
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

int gp_inventory_names(const char *confdir, char ***names)
{
	return file_names(confdir, ini_name, strlen(".ini"), names);
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

int gp_verdict_save(const char *root, const char *name, const char *status)
{
	_cleanup_free_ char *path = gp_verdict_path(root, name);
	char line[64];
	int n;

	if (!path || gp_mkdir_parents(path) < 0)
		return -ENOMEM;
	n = snprintf(line, sizeof(line), "%s %ld\n", status, (long)time(NULL));
	return gp_write_file_atomic(path, line, (size_t)n, 0644, 0);
}

int gp_verdict_load(const char *root, const char *name, char *status, size_t size, long *when)
{
	_cleanup_free_ char *path = gp_verdict_path(root, name), *buf = NULL;
	char word[16];

	if (!path || gp_read_file(path, 128, &buf, NULL) < 0)
		return -ENOENT;
	if (sscanf(buf, "%15s %ld", word, when) != 2 ||
	    (strcmp(word, "ok") && strcmp(word, "failed") && strcmp(word, "timeout")))
		return -EINVAL;
	snprintf(status, size, "%s", word);
	return 0;
}
