/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where things live: the one place that builds the tool's paths. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/util.h"

bool gp_root_is_host(const char *root)
{
	return !root || !*root || strcmp(root, "/") == 0;
}

char *gp_path(const char *root, const char *rel)
{
	size_t n, m;
	char *p;

	if (gp_root_is_host(root))
		return strdup(rel);
	/* Not asprintf: the hook makes a score of these at each start. */
	n = strlen(root);
	m = strlen(rel);
	p = malloc(n + m + 1);
	if (p) {
		memcpy(p, root, n);
		memcpy(p + n, rel, m + 1);
	}
	return p;
}

int gp_read_file_at(const char *root, const char *rel, size_t max, char **buf, size_t *len)
{
	_cleanup_free_ char *path = gp_path(root, rel);

	if (!path)
		return -ENOMEM;
	return gp_read_file(path, max, buf, len);
}

static char *confdir_file(const char *confdir, const char *name, const char *ext)
{
	char *p;

	return asprintf(&p, "%s/%s%s", confdir, name, ext) < 0 ? NULL : p;
}

char *gp_cluster_node_path(const char *root, const char *node)
{
	char rel[PATH_MAX];

	if (snprintf(rel, sizeof(rel), GP_CLUSTER_DIR "/nodes/%s.json", node) >= (int)sizeof(rel))
		return NULL;
	return gp_path(root, rel);
}

char *gp_local_ini_path(const char *confdir, const char *name)
{
	return confdir_file(confdir, name, ".ini");
}

char *gp_local_applied_path(const char *confdir, const char *name)
{
	return confdir_file(confdir, name, ".applied");
}

char *gp_hostconf_path(const char *confdir)
{
	return confdir_file(confdir, GP_HOSTCONF_NAME, "");
}

char *gp_pve_config_path(const char *root, const char *id)
{
	char rel[PATH_MAX];

	if (snprintf(rel, sizeof(rel), GP_PVE_LXC_DIR "/%s.conf", id) >= (int)sizeof(rel))
		return NULL;
	return gp_path(root, rel);
}

char *gp_run_path(const char *root, const char *file)
{
	char rel[PATH_MAX];

	if (snprintf(rel, sizeof(rel), GP_RUNDIR "/%s", file) >= (int)sizeof(rel))
		return NULL;
	return gp_path(root, rel);
}

static char *run_file(const char *root, const char *name, const char *ext)
{
	char file[NAME_MAX + 1];

	if (snprintf(file, sizeof(file), "%s%s", name, ext) >= (int)sizeof(file))
		return NULL;
	return gp_run_path(root, file);
}

char *gp_plan_path(const char *root, const char *name)
{
	return run_file(root, name, ".plan");
}

char *gp_verdict_path(const char *root, const char *name)
{
	return run_file(root, name, ".verdict");
}

char *gp_inject_path(const char *root, const char *name)
{
	return run_file(root, name, ".inject");
}

char *gp_cdi_path(const char *root, const char *name)
{
	return run_file(root, name, ".cdi");
}

char *gp_reader_path(const char *root, const char *name)
{
	return run_file(root, name, ".reader");
}

char *gp_inject_stage_path(const char *root, const char *name)
{
	return run_file(root, name, ".driver");
}

/* The directory this program came from: beside /proc/self/exe, or kept by a sealed re-exec. */
static bool program_dir(char *dir, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", dir, size - 1);
	char *slash;

	if (n <= 0)
		return false;
	dir[n] = '\0';
	/* Run from a sealed copy (gp_child_reexec_sealed): the directory it came from. */
	if (strncmp(dir, "/memfd:", 7) == 0)
		return getenv("GP_PROGRAM_DIR") &&
		       snprintf(dir, size, "%s", getenv("GP_PROGRAM_DIR")) < (int)size;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	return slash != NULL;
}

int gp_program_path(const char *name, const char *installed_dir, char *out, size_t size)
{
	char dir[PATH_MAX];

	if (program_dir(dir, sizeof(dir)) && snprintf(out, size, "%s/%s", dir, name) < (int)size &&
	    access(out, X_OK) == 0)
		return 0;
	snprintf(out, size, "%s/%s", installed_dir, name);
	return access(out, X_OK) == 0 ? 0 : -ENOENT;
}
