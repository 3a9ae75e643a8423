/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision check NAME: binds of whole directories, devices' or libraries', by hand. */
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "base/paths.h"
#include "base/util.h"
#include "check/check.h"
#include "check/recipe.h"
#include "config/cfglines.h"

/* A bind of today's config: its host source and its target under the rootfs, "/" trimmed. */
static bool bind_of(const struct gp_cfgline *l, char *src, size_t ssize, char *dst, size_t dsize)
{
	char target[512], raw[512], options[512] = "";
	size_t n;

	if (strcmp(l->key, "lxc.mount.entry") != 0 || l->pending ||
	    sscanf(l->value, "%*s %511s %*s %511s", raw, options) < 1 ||
	    !gp_cfg_source(l, src, ssize))
		return false;
	gp_cfg_mount_target(raw, target, sizeof(target));
	snprintf(dst, dsize, "%s", target);
	for (char *p = src; (n = strlen(p)) > 1 && p[n - 1] == '/';)
		p[n - 1] = '\0';
	while ((n = strlen(dst)) > 0 && dst[n - 1] == '/')
		dst[n - 1] = '\0';
	return gp_cfg_mount_option(options, "bind") || gp_cfg_mount_option(options, "rbind");
}

/* The device nodes a directory of the host holds today (under root): what the bind gives. */
static size_t nodes_in(const char *root, const char *dir)
{
	_cleanup_free_ char *path = gp_path(root, dir);
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	if (!path || !(d = opendir(path)))
		return 0;
	while ((e = readdir(d)))
		n += e->d_type == DT_CHR;
	closedir(d);
	return n;
}

/* /dev/dri and /dev/nvidia-caps: every GPU's nodes, those a driver adds later too. */
static void check_device_dir(const struct gp_check_run *run, const char *name,
			     const struct gp_recipe *rec, const struct gp_cfgline *l,
			     const char *src, struct gp_findings *f)
{
	bool caps = strcmp(src, "/dev/nvidia-caps") == 0;
	struct gp_finding *x;
	char where[1024];

	if ((!caps && strcmp(src, "/dev/dri") != 0) ||
	    !(x = gp_findings_add(f, GP_FINDING_BIND_DEVICE_DIR)))
		return;
	gp_cfgline_where(rec->cfg, l, where, sizeof(where));
	GP_SET(x->summary,
	       "%s binds the whole %s: %zu node(s) today, %s, and every one added later", name, src,
	       nodes_in(run->ctx->root, src),
	       caps ? "the MIG config cap (root in a privileged container reconfigures every GPU's "
		      "MIG) and each instance's access cap of every GPU"
		    : "the cards and render nodes of every GPU of the host, another driver's too");
	GP_SET(x->evidence, "%s", where);
	if (caps)
		GP_SET(x->fix,
		       "gpu-provision adopt %s: gpu-hook gives the chosen GPUs' nodes and the MIG "
		       "caps the ini names (caps =) at each start",
		       name);
	else
		GP_SET(x->fix,
		       "bind the chosen GPU's render node only, by its PCI address "
		       "(/dev/dri/by-path/pci-ADDRESS-render; its card node only for a display)");
}

/* The host's system library directories: a bind of one hides the container's whole. */
static bool system_libdir(const char *path)
{
	static const char *const dirs[] = { "/lib",
					    "/lib64",
					    "/usr/lib",
					    "/usr/lib64",
					    "/lib/*-linux-gnu*",
					    "/usr/lib/*-linux-gnu*" };

	for (size_t i = 0; i < GP_ARRAY_SIZE(dirs); i++)
		if (fnmatch(dirs[i], path, FNM_PATHNAME) == 0)
			return true;
	return false;
}

/* A plain LXC config's rootfs directory (dir:/path or /path), or NULL. */
static const char *rootfs_dir(const struct gp_cfglines *cfg)
{
	for (size_t i = cfg->n; i-- > 0;) {
		const char *v = cfg->v[i].value;

		if (strcmp(cfg->v[i].key, "lxc.rootfs.path") != 0 || cfg->v[i].pending)
			continue;
		if (strncmp(v, "dir:", 4) == 0)
			v += 4;
		return v[0] == '/' ? v : NULL;
	}
	return NULL;
}

/*
 * The container has files of its own where the bind goes: a Proxmox VE container always
 * (pct makes it from an OS template); a plain LXC one where its rootfs directory holds
 * entries there, read beneath it with no link out and no mount crossed. LXC's busybox
 * template binds the host's libraries over empty directories: nothing of its own hidden.
 */
static bool hides_own(const struct gp_recipe *rec, const char *dst)
{
	const char *rootfs = rootfs_dir(rec->cfg);
	_cleanup_close_ int top = -1, fd = -1;
	struct dirent *e;
	bool any = false;
	DIR *d;

	if (rec->cfg->pve)
		return true;
	if (!rootfs || (top = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (fd = gp_openat2(top, dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0,
			     RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)) < 0 ||
	    !(d = fdopendir(fd)))
		return false;
	fd = -1; /* the DIR holds it now */
	while (!any && (e = readdir(d)))
		any = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return any;
}

static void check_libdir(const char *name, const struct gp_recipe *rec, const struct gp_cfgline *l,
			 const char *src, const char *dst, struct gp_findings *f)
{
	struct gp_finding *x;
	char where[1024], slash[520];

	snprintf(slash, sizeof(slash), "/%s", dst);
	if (!system_libdir(src) || !system_libdir(slash) || !hides_own(rec, dst) ||
	    !(x = gp_findings_add(f, GP_FINDING_BIND_HOST_LIBDIR)))
		return;
	gp_cfgline_where(rec->cfg, l, where, sizeof(where));
	GP_SET(x->summary,
	       "%s binds the host's %s over its own %s: every program in the container runs "
	       "with the host's C library and libraries, not its own, and breaks where they "
	       "differ (another distribution, a host upgrade)",
	       name, src, slash);
	GP_SET(x->evidence, "%s", where);
	GP_SET(x->fix,
	       "take the line out; gpu-provision adopt %s: gpu-hook gives the driver's libraries "
	       "at the module's version, file by file, beside the container's own",
	       name);
}

void gp_check_binds(const struct gp_check_run *run, const char *name, const struct gp_recipe *rec,
		    struct gp_findings *f)
{
	char src[512], dst[512];

	for (size_t i = 0; i < rec->cfg->n; i++) {
		const struct gp_cfgline *l = &rec->cfg->v[i];

		if (!bind_of(l, src, sizeof(src), dst, sizeof(dst)))
			continue;
		check_device_dir(run, name, rec, l, src, f);
		check_libdir(name, rec, l, src, dst, f);
	}
}
