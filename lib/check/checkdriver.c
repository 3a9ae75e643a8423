/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-provision check NAME: the driver's user space a container gets or carries. What the
 * ini asks to inject against the host's files, and the container's own driver libraries,
 * read from its rootfs's loader cache without running anything in it, never across a
 * mount of the container's and under a deadline (lib/check/rootfsread.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "base/paths.h"
#include "base/util.h"
#include "check/check.h"
#include "check/restart.h"
#include "check/rootfsread.h"
#include "config/ini.h"
#include "host/userspace.h"
#include "start/inject.h"

/* What the start would refuse for lack of the host's files: one finding per capability. */
static void check_capabilities(const struct gp_check_run *run, const char *name,
			       const struct gp_ini *conf, struct gp_findings *f)
{
	_cleanup_free_ struct gp_inject *inj = malloc(sizeof(*inj));
	struct gp_log_capture why;
	unsigned int lacking;
	struct gp_finding *x;

	if (!inj)
		return;
	gp_log_capture_start(&why);
	gp_inject_select(run->ctx, run->hs.host.version, conf->capabilities, inj);
	gp_log_capture_stop(&why);
	if (inj->untrusted[0] && (x = gp_findings_add(f, GP_FINDING_INJECT_FILE_UNTRUSTED))) {
		GP_SET(x->summary,
		       "%s would be given the host's %s, which others than root could "
		       "change: its start is refused",
		       name, inj->untrusted);
		GP_SET(x->evidence, "%s", why.text);
		GP_SET(x->fix,
		       "make the file and every directory above it root's and not group- "
		       "or world-writable (chown root, chmod go-w), or reinstall the driver");
	}
	lacking = gp_inject_lacking(inj, conf->capabilities);
	for (int c = 0; c < GP_CAP_COUNT; c++) {
		if (!(lacking & GP_CAP_BIT(c)) ||
		    !(x = gp_findings_add(f, GP_FINDING_INJECT_CAPABILITY_MISSING)))
			continue;
		GP_SET(x->summary, "%s asks to inject %s, which the host lacks at %s", name,
		       gp_capability_name(c), run->hs.host.version);
		GP_SET(x->evidence, "%s", why.text);
		GP_SET(x->fix,
		       "install the driver's %s libraries on the host (its version), or "
		       "gpu-provision attach %s --capabilities without %s",
		       gp_capability_name(c), name, gp_capability_name(c));
	}
}

/* Host libraries of another version: said once per check, for the first container. */
static void check_host_versions(const struct gp_check_run *run, struct gp_findings *f)
{
	_cleanup_free_ struct gp_userspace *u = malloc(sizeof(*u));
	char list[512] = "";
	size_t len = 0, n = 0;
	struct gp_log_capture quiet;
	struct gp_finding *x;

	if (!u)
		return;
	gp_log_capture_start(&quiet);
	if (gp_userspace_discover(run->ctx->root, run->hs.host.version, u) < 0)
		u->n = 0;
	gp_log_capture_stop(&quiet);
	for (size_t i = 0; i < u->n; i++) {
		if (u->v[i].matches || len >= sizeof(list))
			continue;
		len +=
		    (size_t)snprintf(list + len, sizeof(list) - len, "%s%s (%s)", n++ ? ", " : "",
				     u->v[i].path, u->v[i].version[0] ? u->v[i].version : "?");
	}
	if (n && (x = gp_findings_add(f, GP_FINDING_INJECT_OTHER_VERSION))) {
		GP_SET(x->summary, "%zu driver librar%s on the host not of the module's %s", n,
		       n == 1 ? "y" : "ies", run->hs.host.version);
		GP_SET(x->evidence, "%s", list);
		GP_SET(x->fix, "remove the old driver's files, or reinstall the driver, then "
			       "ldconfig");
	}
}

/* The container's own driver libraries of another version, from its loader cache. */
static void check_container_libraries(const struct gp_check_run *run, const char *name,
				      const struct gp_ini *conf, const struct gp_userspace *u,
				      struct gp_findings *f)
{
	const char *ours = GP_INJECT_LIBDIR "/";
	struct gp_finding *x;

	for (size_t i = 0; i < u->n; i++) {
		const struct gp_userspace_lib *l = &u->v[i];

		if (gp_userspace_lib_version(l) != GP_LIB_OTHER ||
		    strncmp(l->path, ours, strlen(ours)) == 0 ||
		    !(x = gp_findings_add(f, GP_FINDING_CONTAINER_DRIVER_VERSION)))
			continue;
		GP_SET(x->summary, "%s carries %s of driver %s; the kernel module is %s", name,
		       l->soname, l->version, run->hs.host.version);
		GP_SET(x->evidence, "the container's /etc/ld.so.cache: %s -> %s", l->path, l->real);
		if (conf->inject == GP_INJECT_YES)
			GP_SET(x->fix,
			       "remove the container's driver packages (the injection gives it "
			       "the host's): its start is refused until then");
		else
			GP_SET(x->fix,
			       "gpu-provision attach %s --inject, after removing the container's "
			       "driver packages; or install %s inside",
			       name, run->hs.host.version);
	}
}

static void check_musl(const char *name, struct gp_findings *f)
{
	struct gp_finding *x;

	if (!(x = gp_findings_add(f, GP_FINDING_INJECT_MUSL)))
		return;
	GP_SET(x->summary, "%s asks for the driver's user space, but its C library is musl", name);
	GP_SET(x->evidence, "its rootfs has " GP_MUSL_LOADER);
	GP_SET(x->fix, "gpu-provision attach %s --no-inject, or use a glibc distribution", name);
}

/* What could not be read of the rootfs, and whether a mount of the container's held it. */
static void rootfs_unread(const char *name, const char *rootfs, const struct gp_rootfs_read *r,
			  struct gp_findings *f)
{
	struct gp_finding *x = gp_findings_add(f, GP_FINDING_CONTAINER_ROOTFS_UNREAD);

	if (!x)
		return;
	GP_SET(x->summary, "%s's loader cache and C library were not read%s", name,
	       r->status == -ETIMEDOUT || r->stuck ? ": its rootfs did not answer" : "");
	GP_SET(x->evidence, "%s: %s", rootfs, r->why);
	if (r->status == -ETIMEDOUT || r->stuck)
		GP_SET(x->fix, "find the mount in the container that does not answer (a FUSE "
			       "or network filesystem) and unmount it, or stop its server");
	else
		GP_SET(x->fix, "make the container's /etc/ld.so.cache a regular file of its own "
			       "filesystem (ldconfig in the container writes one)");
}

/* Libraries the container's cache names behind a mount of its own: never followed. */
static void libraries_unfollowed(const char *name, const char *rootfs, const struct gp_userspace *u,
				 struct gp_findings *f)
{
	const char *first = NULL;
	struct gp_finding *x;
	size_t n = 0;

	for (size_t i = 0; i < u->n; i++)
		if (u->v[i].unfollowed && !n++)
			first = u->v[i].path;
	if (!n || !(x = gp_findings_add(f, GP_FINDING_CONTAINER_LIBRARIES_UNFOLLOWED)))
		return;
	GP_SET(x->summary,
	       "%s's loader cache names %zu driver librar%s behind a mount of the container's: "
	       "not read",
	       name, n, n == 1 ? "y" : "ies");
	GP_SET(x->evidence, "%s: the container's /etc/ld.so.cache names %s%s", rootfs, first,
	       n > 1 ? ", and more" : "");
	GP_SET(x->fix,
	       "nothing to do if the mount is meant to hold them; check does not follow "
	       "a path into a mount the container made (it may never answer): probe %s "
	       "reads them from inside",
	       name);
}

struct gp_rootfs_read *gp_check_read_rootfs(const struct gp_check_run *run, const char *name,
					    const char *rootfs)
{
	_cleanup_free_ char *record = NULL;

	if (!rootfs)
		return NULL;
	record = gp_reader_path(run->ctx->root, name);
	return gp_rootfs_read(rootfs, run->hs.host.version, GP_ROOTFS_READ_TIMEOUT_MS, record);
}

void gp_check_driver(const struct gp_check_run *run, const char *name, const struct gp_ini *conf,
		     const char *rootfs, const struct gp_rootfs_read *r, struct gp_findings *f)
{
	struct gp_finding *x;

	if (conf->inject == GP_INJECT_YES && strcmp(conf->mode, "devn") == 0 &&
	    (x = gp_findings_add(f, GP_FINDING_INJECT_DEVN))) {
		GP_SET(x->summary, "%s asks for injection in mode devn, where no hook runs", name);
		GP_SET(x->evidence, "%s: inject = yes, mode = devn", conf->path);
		GP_SET(x->fix, "gpu-provision attach %s --mode hook, or --no-inject", name);
	}
	/* Where it must not restart before the host, reboot-pending says why a start fails. */
	if (gp_check_restart(run, name, conf, f) != GP_RESTART_REBOOT_FIRST &&
	    conf->inject == GP_INJECT_YES && run->hs.host.driver_loaded)
		check_capabilities(run, name, conf, f);
	if (conf->inject == GP_INJECT_YES && run->hs.host.driver_loaded)
		check_host_versions(run, f);
	if (!rootfs || !run->hs.host.driver_loaded)
		return;
	if (r && r->status < 0)
		rootfs_unread(name, rootfs, r, f);
	if (r && r->status == 0) {
		libraries_unfollowed(name, rootfs, &r->u, f);
		check_container_libraries(run, name, conf, &r->u, f);
	}
	if (r && r->musl && conf->inject == GP_INJECT_YES)
		check_musl(name, f);
}
