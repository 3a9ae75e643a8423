/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision check NAME: a container's config, read without starting it. */
#include <lxc/lxccontainer.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ctconf.h"
#include "lxcconf.h"
#include "paths.h"
#include "plan.h"
#include "pveconf.h"
#include "util.h"

#define MAX_ENTRIES 512

struct entry {
	char key[96];
	char value[512];
};

struct entries {
	struct entry v[MAX_ENTRIES];
	size_t n;
	char path[4096];
	bool pve;
};

static int collect(const char *key, const char *value, const char *file, unsigned int line,
		   void *user)
{
	struct entries *e = user;

	(void)file;
	(void)line;
	if (e->n < MAX_ENTRIES) {
		snprintf(e->v[e->n].key, sizeof(e->v[0].key), "%s", key);
		snprintf(e->v[e->n].value, sizeof(e->v[0].value), "%s", value);
		e->n++;
	}
	return 0;
}

static int pve_line(struct entries *e, const char *line, size_t n)
{
	char copy[1024];
	char *colon;

	if (n >= sizeof(copy))
		return 0;
	memcpy(copy, line, n);
	copy[n] = '\0';
	colon = strchr(copy, ':');
	if (copy[0] == '#' || !colon)
		return 0;
	*colon = '\0';
	return collect(gp_strtrim(copy), gp_strtrim(colon + 1), NULL, 0, e);
}

static int read_pve(const struct gp_check_ctx *ctx, const char *name, struct entries *e)
{
	_cleanup_free_ char *path = gp_pve_config_path(ctx->root, name), *buf = NULL;
	const char *pos, *line;
	struct gp_pveconf c;
	size_t len, n;
	int r;

	if (!path)
		return -ENOMEM;
	snprintf(e->path, sizeof(e->path), "%s", path);
	if (access(path, F_OK) < 0 && errno == ENOENT)
		return -ENOENT; /* no such container: the caller says so */
	r = gp_read_file(path, 1u << 20, &buf, &len);
	if (r < 0)
		return r; /* said by the reader */
	if (gp_pveconf_parse(buf, len, &c) < 0)
		return gp_error_at(-EINVAL, path,
				   "line %u is not \"key: value\", a comment or a "
				   "[section]: its checks are skipped",
				   c.bad_line);
	for (pos = buf; gp_line_next(&pos, buf + c.current_end, &line, &n);)
		pve_line(e, line, n);
	e->pve = true;
	return 0;
}

static int read_lxc(const struct gp_check_ctx *ctx, const char *name, struct entries *e)
{
	struct lxc_container *c = lxc_container_new(name, ctx->lxcpath);
	char *path = c && c->is_defined(c) ? c->config_file_name(c) : NULL;
	int r;

	if (c)
		lxc_container_put(c);
	if (!path)
		return -ENOENT;
	snprintf(e->path, sizeof(e->path), "%s", path);
	free(path);
	r = gp_lxcconf_walk(e->path, collect, e);
	if (r < 0)
		return gp_error_errno(r, "Failed to read the config \"%s\"; its checks are skipped",
				      e->path);
	return 0;
}

static bool is_gpu_hook(const struct entry *en)
{
	return strncmp(en->key, "lxc.hook.", 9) == 0 && strstr(en->value, "gpu-hook");
}

static void check_hooks(const struct entries *e, const char *name, const struct gp_ctconf *conf,
			struct gp_findings *f)
{
	struct gp_finding *x;
	bool any = false;

	for (size_t i = 0; i < e->n; i++) {
		char bin[512];

		if (!is_gpu_hook(&e->v[i]))
			continue;
		any = true;
		if (sscanf(e->v[i].value, "%511s", bin) != 1 || access(bin, X_OK) == 0)
			continue;
		if ((x = gp_findings_add(f, GP_FINDING_HOOK_BINARY_MISSING))) {
			GP_SET(x->summary, "%s's %s names %s, which is not there", name,
			       e->v[i].key, bin);
			GP_SET(x->evidence, "%s: %s = %s", e->path, e->v[i].key, e->v[i].value);
			GP_SET(x->fix, "make install, then gpu-provision sync %s", name);
		}
	}
	if (conf && strcmp(conf->mode, "devn") != 0 && !any &&
	    (x = gp_findings_add(f, GP_FINDING_HOOK_MISSING))) {
		GP_SET(x->summary, "%s has GPUs in its ini but no gpu-hook in its config", name);
		GP_SET(x->evidence, "%s has no lxc.hook.* line naming gpu-hook", e->path);
		GP_SET(x->fix, "gpu-provision attach %s", name);
	}
}

static bool rule_wanted(const struct gp_plan *plan, unsigned int major, unsigned int minor)
{
	for (size_t i = 0; i < plan->n; i++)
		if (plan->nodes[i].major == major && plan->nodes[i].minor == minor)
			return true;
	return false;
}

/* The rules attach wrote (the .applied record) against today's plan of the same ini. */
static void check_stale_rules(const struct gp_check_ctx *ctx, const char *name,
			      const struct gp_ctconf *conf, struct gp_findings *f)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	struct gp_log_capture quiet;
	struct gp_plan plan;
	int r;

	if (!conf || !(path = gp_applied_path(ctx->confdir, name)) ||
	    gp_read_file(path, 1u << 20, &buf, NULL) < 0)
		return;
	/* A selection that fails today is another finding's: no plan, nothing to compare. */
	gp_log_capture_start(&quiet);
	r = gp_plan_for_conf(ctx->root, &ctx->hs.host, conf, GP_WHERE_NONE, NULL, &plan);
	gp_log_capture_stop(&quiet);
	if (r < 0)
		return;
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		const char *c = strstr(l, "devices.allow");
		unsigned int major, minor;
		struct gp_finding *x;

		if (!c || !(c = strstr(c, "c ")) || sscanf(c, "c %u:%u", &major, &minor) != 2 ||
		    rule_wanted(&plan, major, minor) ||
		    !(x = gp_findings_add(f, GP_FINDING_RULE_STALE)))
			continue;
		GP_SET(x->summary, "%s allows c %u:%u, which is no NVIDIA node today", name, major,
		       minor);
		GP_SET(x->evidence,
		       "%s (written by attach); today nvidia-uvm is %u, nvidia-caps %u", l,
		       ctx->hs.host.majors.uvm, ctx->hs.host.majors.caps);
		GP_SET(x->fix, "gpu-provision sync %s  (rewrites the rules for today's majors)",
		       name);
	}
}

/* True when the v1 device rule at i has its cgroup2 twin (as LXC's common.conf writes both). */
static bool has_v2_twin(const struct entries *e, size_t i)
{
	char twin[96];

	snprintf(twin, sizeof(twin), "lxc.cgroup2.devices.%s", e->v[i].key + 19);
	for (size_t j = 0; j < e->n; j++)
		if (strcmp(e->v[j].key, twin) == 0 && strcmp(e->v[j].value, e->v[i].value) == 0)
			return true;
	return false;
}

static void check_entries(const struct gp_check_ctx *ctx, const struct entries *e, const char *name,
			  struct gp_findings *f)
{
	bool unpriv = false, v1 = false;
	struct gp_finding *x;

	for (size_t i = 0; i < e->n; i++) {
		const struct entry *en = &e->v[i];

		unpriv |= strcmp(en->key, "lxc.idmap") == 0 ||
			  (strcmp(en->key, "unprivileged") == 0 && strcmp(en->value, "1") == 0);
		if (strncmp(en->key, "lxc.cgroup.devices.", 19) == 0 && ctx->layout == GP_CG_V2 &&
		    !v1 && !has_v2_twin(e, i) &&
		    (x = gp_findings_add(f, GP_FINDING_CGROUP_V1_KEYS))) {
			v1 = true;
			GP_SET(x->summary,
			       "%s uses lxc.cgroup.devices.* on a cgroup v2 host: not enforced",
			       name);
			GP_SET(x->evidence, "%s: %s = %s", e->path, en->key, en->value);
			GP_SET(
			    x->fix,
			    "write them as lxc.cgroup2.devices.*; gpu-provision sync %s does for "
			    "its own",
			    name);
		}
		if (strcmp(en->key, "lxc.mount.entry") == 0 &&
		    strncmp(en->value, "/dev/nvidia", 11) == 0 && strstr(en->value, "optional") &&
		    (x = gp_findings_add(f, GP_FINDING_OPTIONAL_MOUNT))) {
			GP_SET(x->summary,
			       "%s binds an NVIDIA node with optional: a missing node is skipped "
			       "silently",
			       name);
			GP_SET(x->evidence, "%s: lxc.mount.entry = %s", e->path, en->value);
			GP_SET(x->fix,
			       "drop the line and let gpu-hook bind it: gpu-provision attach %s",
			       name);
		}
	}
	if (unpriv && ctx->hs.host.driver_loaded && (ctx->hs.host.params.mode & 0006) != 0006 &&
	    (x = gp_findings_add(f, GP_FINDING_UNPRIVILEGED_NODE_MODE))) {
		GP_SET(x->summary, "%s is unprivileged and the nodes are mode %04o gid %u", name,
		       ctx->hs.host.params.mode, ctx->hs.host.params.gid);
		GP_SET(x->evidence,
		       "/proc/driver/nvidia/params: DeviceFileMode %u, DeviceFileGID %u; "
		       "the host group is not mapped into the container",
		       ctx->hs.host.params.mode, ctx->hs.host.params.gid);
		GP_SET(x->fix,
		       "options nvidia NVreg_DeviceFileMode=0666 in modprobe.d, or map that group "
		       "into the container (lxc.idmap g ...)");
	}
}

static void check_pve_duplicates(const struct entries *e, const char *name, struct gp_findings *f)
{
	for (size_t i = 0; e->pve && i < e->n; i++) {
		char node[128];

		if (strncmp(e->v[i].key, "dev", 3) != 0 ||
		    sscanf(e->v[i].value, "%127[^,]", node) != 1)
			continue;
		for (size_t j = 0; j < e->n; j++) {
			struct gp_finding *x;

			if (strcmp(e->v[j].key, "lxc.mount.entry") != 0 ||
			    strncmp(e->v[j].value, node, strlen(node)) != 0 ||
			    e->v[j].value[strlen(node)] != ' ' ||
			    !(x = gp_findings_add(f, GP_FINDING_PVE_DUPLICATE)))
				continue;
			GP_SET(x->summary, "%s gives %s twice: %s and lxc.mount.entry", name, node,
			       e->v[i].key);
			GP_SET(x->evidence, "%s: %s: %s; lxc.mount.entry: %s", e->path, e->v[i].key,
			       e->v[i].value, e->v[j].value);
			GP_SET(
			    x->fix,
			    "keep one of them (gpu-provision attach %s --mode devn or --mode hook "
			    "writes one set)",
			    name);
		}
	}
}

/* The container's ini: 0 read, -ENOENT none; one that is there and refused is a finding. */
static int load_ini(const struct gp_check_ctx *ctx, const char *name, struct gp_ctconf *conf,
		    struct gp_findings *f)
{
	struct gp_log_capture why;
	struct gp_finding *x;
	int r;

	gp_log_capture_start(&why);
	r = gp_ctconf_load(ctx->confdir, name, conf);
	gp_log_capture_stop(&why);
	if (r == 0 || r == -ENOENT || !(x = gp_findings_add(f, GP_FINDING_INI_INVALID)))
		return r;
	GP_SET(x->summary, "the ini of %s is refused: its start would be too", name);
	GP_SET(x->evidence, "%s", why.text);
	GP_SET(x->fix,
	       "correct the file as the message says, or gpu-provision attach %s --gpus SEL "
	       "to write it anew",
	       name);
	return r;
}

/* A plain LXC container's rootfs when it is a directory ("dir:/path" or "/path"). */
static const char *rootfs_dir(const struct entries *e)
{
	for (size_t i = 0; !e->pve && i < e->n; i++) {
		const char *v = e->v[i].value;

		if (strcmp(e->v[i].key, "lxc.rootfs.path") != 0)
			continue;
		if (strncmp(v, "dir:", 4) == 0)
			v += 4;
		return v[0] == '/' ? v : NULL;
	}
	return NULL;
}

int gp_check_container(const struct gp_check_ctx *ctx, const char *name, struct gp_findings *f)
{
	struct entries *e = calloc(1, sizeof(*e));
	struct gp_ctconf conf, host;
	bool attached;
	int r;

	if (!e)
		return -ENOMEM;
	r = ctx->pve ? read_pve(ctx, name, e) : read_lxc(ctx, name, e);
	if (r == -ENOENT)
		gp_error("no config for container \"%s\" (%s)", name,
			 e->path[0] ? e->path : "liblxc");
	if (r < 0) {
		free(e);
		return r;
	}
	attached = load_ini(ctx, name, &conf, f) == 0;
	check_hooks(e, name, attached ? &conf : NULL, f);
	check_stale_rules(ctx, name, attached ? &conf : NULL, f);
	check_entries(ctx, e, name, f);
	check_pve_duplicates(e, name, f);
	if (attached && gp_hostconf_load(ctx->confdir, &host) == 0) {
		gp_ctconf_merge_host(&conf, &host);
		gp_check_driver(ctx, name, &conf, rootfs_dir(e), f);
	}
	free(e);
	return 0;
}
