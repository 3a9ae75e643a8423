/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The container runtime: LXC's version from liblxc, the cgroup layout, Proxmox VE's release. */
#include <lxc/lxccontainer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/paths.h"
#include "base/util.h"
#include "driver/runtime.h"

static void read_layout(const char *root, struct gp_runtime *rt)
{
	if (gp_root_is_host(root)) {
		rt->layout_from = GP_LAYOUT_HOST;
		rt->layout = gp_cgroup_layout();
		return;
	}
	rt->layout_from = GP_LAYOUT_CAPTURE;
	if (gp_cgroup_layout_at(root, &rt->layout) < 0) {
		rt->layout_from = GP_LAYOUT_ASSUMED;
		rt->layout = gp_cgroup_layout();
	}
}

/*
 * Proxmox VE's release by its Debian's, as <root>/etc/os-release says it (VERSION_ID="13":
 * Proxmox VE 9, "12": 8), or 0 where it says none.
 */
static unsigned int read_pve_release(const char *root)
{
	_cleanup_free_ char *buf = NULL;
	const char *v;
	unsigned long debian;

	if (gp_read_file_at(root, "/etc/os-release", 65536, &buf, NULL) < 0)
		return 0;
	v = strncmp(buf, "VERSION_ID=", 11) == 0 ? buf : strstr(buf, "\nVERSION_ID=");
	if (!v)
		return 0;
	v += v == buf ? 11 : 12;
	debian = strtoul(v + (*v == '"'), NULL, 10);
	return debian >= 5 ? (unsigned int)debian - 4 : 0;
}

void gp_runtime_read(const struct gp_ctx *ctx, struct gp_runtime *rt)
{
	const char *v = lxc_get_version();

	memset(rt, 0, sizeof(*rt));
	snprintf(rt->lxc, sizeof(rt->lxc), "%s", v ? v : "");
	rt->lxc_major = (unsigned int)strtoul(rt->lxc, NULL, 10);
	read_layout(ctx->root, rt);
	if (ctx->pve)
		rt->pve = read_pve_release(ctx->root);
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

char *gp_lxc_config_file(const char *lxcpath, const char *name)
{
	const char *dir = lxcpath ? lxcpath : lxc_get_global_config_item("lxc.lxcpath");
	char *path = NULL;

	if (!dir || asprintf(&path, "%s/%s/config", dir, name) < 0)
		return NULL;
	if (access(path, F_OK) == 0)
		return path;
	free(path);
	return NULL;
}

int gp_lxc_init_pid(const char *lxcpath, const char *name)
{
	struct lxc_container *c = lxc_container_new(name, lxcpath);
	int pid = -1;

	if (!c)
		return -1;
	if (c->is_running(c))
		pid = c->init_pid(c);
	lxc_container_put(c);
	return pid > 0 ? pid : -1;
}
