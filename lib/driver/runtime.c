/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The container runtime: LXC's version from liblxc, the cgroup layout, pve-container. */
#include <lxc/lxccontainer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/paths.h"
#include "base/util.h"
#include "driver/runtime.h"

#define MOUNTINFO_MAX (4u << 20)
#define DPKG_STATUS_MAX (64u << 20)

static void read_layout(const char *root, struct gp_runtime *rt)
{
	_cleanup_free_ char *buf = NULL;

	rt->layout_from = gp_root_is_host(root) ? GP_LAYOUT_HOST : GP_LAYOUT_CAPTURE;
	if (gp_read_file_at(root, "/proc/self/mountinfo", MOUNTINFO_MAX, &buf, NULL) < 0) {
		rt->layout_from = GP_LAYOUT_ASSUMED;
		rt->layout = gp_cgroup_layout();
		return;
	}
	rt->layout = gp_cgroup_layout_parse(buf);
}

/* Where a field ("\nVersion: ") begins in the stanza [s, end), or NULL. */
static const char *field_in(const char *s, const char *end, const char *field)
{
	const char *f = strstr(s, field);

	return f && f < end ? f + strlen(field) : NULL;
}

/* The major of an installed package's version in a dpkg status file, or 0. */
static unsigned int installed_major(const char *status, const char *package)
{
	char head[128];
	const char *s, *end, *version;

	snprintf(head, sizeof(head), "\nPackage: %s\n", package);
	s = strncmp(status, head + 1, strlen(head + 1)) == 0 ? status : strstr(status, head);
	if (!s)
		return 0;
	end = strstr(s + 1, "\n\n");
	end = end ? end : s + strlen(s);
	version = field_in(s, end, "\nVersion: ");
	if (!version || !field_in(s, end, "\nStatus: install ok installed\n"))
		return 0;
	return (unsigned int)strtoul(version, NULL, 10);
}

static unsigned int read_pve_container(const char *root)
{
	_cleanup_free_ char *buf = NULL;

	if (gp_read_file_at(root, "/var/lib/dpkg/status", DPKG_STATUS_MAX, &buf, NULL) < 0)
		return 0;
	return installed_major(buf, "pve-container");
}

void gp_runtime_read(const struct gp_ctx *ctx, struct gp_runtime *rt)
{
	const char *v = lxc_get_version();

	memset(rt, 0, sizeof(*rt));
	snprintf(rt->lxc, sizeof(rt->lxc), "%s", v ? v : "");
	rt->lxc_major = (unsigned int)strtoul(rt->lxc, NULL, 10);
	read_layout(ctx->root, rt);
	if (ctx->pve)
		rt->pve_container = read_pve_container(ctx->root);
}

const char *gp_runtime_layout_words(const struct gp_runtime *rt)
{
	return rt->layout == GP_CG_V1 ? "hybrid (devices controller on cgroup v1)" : "cgroup v2";
}

const char *gp_runtime_from_words(const struct gp_runtime *rt)
{
	switch (rt->layout_from) {
	case GP_LAYOUT_CAPTURE:
		return "the capture's proc/self/mountinfo";
	case GP_LAYOUT_ASSUMED:
		return "assumed: the capture has no proc/self/mountinfo, so this host's";
	default:
		return "/proc/self/mountinfo";
	}
}

int gp_runtime_can_start(const struct gp_runtime *rt)
{
	if (rt->lxc_major < GP_LXC_V2_ONLY || rt->layout != GP_CG_V1)
		return 0;
	gp_error("LXC %s starts no container here: the cgroup layout is %s, read from %s, and "
		 "LXC %u knows cgroup v2 only; boot with systemd.unified_cgroup_hierarchy=1 "
		 "(Debian's default since 11), or use LXC 6",
		 rt->lxc, gp_runtime_layout_words(rt), gp_runtime_from_words(rt), rt->lxc_major);
	return -GP_EBADCONF;
}
