/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision check NAME: a container's config, read without starting it. */
#include <lxc/lxccontainer.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "base/paths.h"
#include "base/util.h"
#include "check/check.h"
#include "check/recipe.h"
#include "check/rootfsread.h"
#include "config/applied.h"
#include "config/ini.h"
#include "config/pveconf.h"
#include "plan/plan.h"
#include "plan/planner.h"

/*
 * The config file of the container: its Proxmox VE config, or what liblxc names, or where
 * liblxc keeps one it cannot load (LXC 7's refusal of lxc.cgroup.* keys is a finding).
 */
static int config_path(const struct gp_check_run *run, const char *name, char *out, size_t size)
{
	struct lxc_container *c;
	char *path;

	if (run->ctx->pve) {
		_cleanup_free_ char *p = gp_pve_config_path(run->ctx->root, name);

		snprintf(out, size, "%s", p ? p : "");
		return p ? 0 : -ENOMEM;
	}
	c = lxc_container_new(name, run->ctx->lxcpath);
	path = c && c->is_defined(c) ? c->config_file_name(c) : NULL;
	if (c)
		lxc_container_put(c);
	else
		path = gp_lxc_config_file(run->ctx->lxcpath, name);
	snprintf(out, size, "%s", path ? path : "");
	free(path);
	return path ? 0 : -ENOENT;
}

/* A Proxmox config must parse as Proxmox reads it: one that does not is not checked. */
static int check_parses(const char *path)
{
	_cleanup_free_ char *buf = NULL;
	struct gp_pveconf c;
	size_t len;
	int r = gp_read_file(path, GP_PVE_CONFIG_MAX, &buf, &len);

	if (r < 0)
		return r == -ENOENT ? r : gp_error_errno(r, "Failed to read \"%s\"", path);
	if (gp_pveconf_parse(buf, len, &c) < 0)
		return gp_error_at(-GP_EBADCONF, path,
				   "line %u is not \"key: value\", a comment or a "
				   "[section]: its checks are skipped",
				   c.bad_line);
	return 0;
}

static char *read_applied(const struct gp_check_run *run, const char *name)
{
	_cleanup_free_ char *path = gp_applied_path_to_read(run->ctx, name);

	return path ? gp_applied_peek(path) : NULL;
}

static bool is_gpu_hook(const struct gp_cfgline *l)
{
	return strncmp(l->key, "lxc.hook.", 9) == 0 && strstr(l->value, "gpu-hook");
}

static void check_hooks(const struct gp_cfglines *c, const char *name, const struct gp_ini *conf,
			struct gp_findings *f)
{
	struct gp_finding *x;
	bool any = false;

	for (size_t i = 0; i < c->n; i++) {
		char bin[512], at[1024];

		if (!is_gpu_hook(&c->v[i]))
			continue;
		any = true;
		if (sscanf(c->v[i].value, "%511s", bin) != 1 || access(bin, X_OK) == 0 ||
		    !(x = gp_findings_add(f, GP_FINDING_HOOK_BINARY_MISSING)))
			continue;
		gp_cfgline_where(c, &c->v[i], at, sizeof(at));
		GP_SET(x->summary, "%s's %s names %s, which is not there", name, c->v[i].key, bin);
		GP_SET(x->evidence, "%s", at);
		GP_SET(x->fix, "make install, then gpu-provision sync %s", name);
	}
	if (conf && strcmp(conf->mode, "devn") != 0 && !any &&
	    (x = gp_findings_add(f, GP_FINDING_HOOK_MISSING))) {
		GP_SET(x->summary, "%s has GPUs in its ini but no gpu-hook in its config", name);
		GP_SET(x->evidence, "%s has no lxc.hook.* line naming gpu-hook", c->files[0]);
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
static void check_stale_rules(const struct gp_check_run *run, const char *name,
			      const struct gp_ini *conf, char *applied, struct gp_findings *f)
{
	struct gp_log_capture quiet;
	struct gp_plan plan;
	int r;

	if (!conf || !applied)
		return;
	/* A selection that fails today is another finding's: no plan, nothing to compare. */
	gp_log_capture_start(&quiet);
	r = gp_plan_for_conf(run->ctx->root, &run->hs.host, conf, GP_WHERE_NONE, NULL, &plan);
	gp_log_capture_stop(&quiet);
	if (r < 0)
		return;
	for (char *save = NULL, *l = strtok_r(applied, "\n", &save); l;
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
		       run->hs.host.majors.uvm, run->hs.host.majors.caps);
		GP_SET(x->fix, "gpu-provision sync %s  (rewrites the rules for today's majors)",
		       name);
	}
}

/* True when the v1 device rule has its cgroup2 twin (as LXC's common.conf writes both). */
static bool has_v2_twin(const struct gp_cfglines *c, const struct gp_cfgline *l)
{
	char twin[96];

	snprintf(twin, sizeof(twin), "lxc.cgroup2.devices.%s", l->key + 19);
	for (size_t j = 0; j < c->n; j++)
		if (strcmp(c->v[j].key, twin) == 0 && strcmp(c->v[j].value, l->value) == 0)
			return true;
	return false;
}

static bool is_v1_key(const char *key)
{
	return strncmp(key, "lxc.cgroup.", 11) == 0;
}

/*
 * The one finding a config's v1 keys earn, by what they do: LXC 7 refuses the start; on a
 * v2 host a device rule without its cgroup2 twin is not enforced; Proxmox VE 9 warns.
 */
static enum gp_finding_id v1_key_finding(const struct gp_check_run *run,
					 const struct gp_cfglines *c, const struct gp_cfgline *l)
{
	if (run->rt.lxc_major >= GP_LXC_V2_ONLY)
		return GP_FINDING_CGROUP_V1_LXC7;
	if (run->rt.layout == GP_CG_V2 && strncmp(l->key, "lxc.cgroup.devices.", 19) == 0 &&
	    !has_v2_twin(c, l))
		return GP_FINDING_CGROUP_V1_KEYS;
	if (run->rt.pve >= 9)
		return GP_FINDING_CGROUP_V1_PVE9;
	return GP_FINDING_COUNT;
}

static void say_v1_keys(const struct gp_check_run *run, enum gp_finding_id id, const char *at,
			const char *name, struct gp_finding *x)
{
	if (id == GP_FINDING_CGROUP_V1_LXC7)
		GP_SET(x->summary,
		       "%s uses lxc.cgroup.* keys, which LXC %s refuses: it does "
		       "not start",
		       name, run->rt.lxc);
	else if (id == GP_FINDING_CGROUP_V1_KEYS)
		GP_SET(x->summary, "%s uses lxc.cgroup.devices.* on a cgroup v2 host: not enforced",
		       name);
	else
		GP_SET(x->summary,
		       "%s uses lxc.cgroup.* keys, which Proxmox VE %u's pve-container warns of",
		       name, run->rt.pve);
	GP_SET(x->evidence, "%s", at);
	GP_SET(x->fix,
	       "write them as lxc.cgroup2.*; gpu-provision adopt %s replaces NVIDIA's, sync %s "
	       "rewrites its own",
	       name, name);
}

/* A config's v1 keys: the line that earns the gravest finding, once for the config. */
static void check_v1_keys(const struct gp_check_run *run, const struct gp_cfglines *c,
			  const char *name, struct gp_findings *f)
{
	static const enum gp_finding_id gravest_first[] = { GP_FINDING_CGROUP_V1_LXC7,
							    GP_FINDING_CGROUP_V1_KEYS,
							    GP_FINDING_CGROUP_V1_PVE9 };
	struct gp_finding *x;
	char at[1024];

	for (size_t k = 0; k < GP_ARRAY_SIZE(gravest_first); k++)
		for (size_t i = 0; i < c->n; i++) {
			const struct gp_cfgline *l = &c->v[i];

			if (!is_v1_key(l->key) || v1_key_finding(run, c, l) != gravest_first[k])
				continue;
			if (!(x = gp_findings_add(f, gravest_first[k])))
				return;
			gp_cfgline_where(c, l, at, sizeof(at));
			say_v1_keys(run, gravest_first[k], at, name, x);
			return;
		}
}

static void check_node_mode(const struct gp_check_run *run, const char *name, bool unpriv,
			    struct gp_findings *f)
{
	struct gp_finding *x;

	if (!unpriv || !run->hs.host.driver_loaded || (run->hs.host.params.mode & 0006) == 0006 ||
	    !(x = gp_findings_add(f, GP_FINDING_UNPRIVILEGED_NODE_MODE)))
		return;
	GP_SET(x->summary, "%s is unprivileged and the nodes are mode %04o gid %u", name,
	       run->hs.host.params.mode, run->hs.host.params.gid);
	GP_SET(x->evidence,
	       "/proc/driver/nvidia/params: DeviceFileMode %u, DeviceFileGID %u; "
	       "the host group is not mapped into the container",
	       run->hs.host.params.mode, run->hs.host.params.gid);
	GP_SET(x->fix, "options nvidia NVreg_DeviceFileMode=0666 in modprobe.d, or map that group "
		       "into the container (lxc.idmap g ...)");
}

static void check_pve_duplicates(const struct gp_cfglines *c, const char *name,
				 struct gp_findings *f)
{
	for (size_t i = 0; c->pve && i < c->n; i++) {
		char node[256], src[256], a[1024], b[1024];

		if (strcmp(c->v[i].key, "lxc.mount.entry") == 0 ||
		    !gp_cfg_source(&c->v[i], node, sizeof(node)))
			continue;
		for (size_t j = 0; j < c->n; j++) {
			struct gp_finding *x;

			if (strcmp(c->v[j].key, "lxc.mount.entry") != 0 ||
			    !gp_cfg_source(&c->v[j], src, sizeof(src)) || strcmp(src, node) != 0 ||
			    !(x = gp_findings_add(f, GP_FINDING_PVE_DUPLICATE)))
				continue;
			gp_cfgline_where(c, &c->v[i], a, sizeof(a));
			gp_cfgline_where(c, &c->v[j], b, sizeof(b));
			GP_SET(x->summary, "%s gives %s twice: %s and lxc.mount.entry", name, node,
			       c->v[i].key);
			GP_SET(x->evidence, "%s; %s", a, b);
			GP_SET(x->fix,
			       "gpu-provision adopt %s takes both out and gives the node once",
			       name);
		}
	}
}

/* The container's ini: 0 read, -ENOENT none; one that is there and refused is a finding. */
static int load_ini(const struct gp_check_run *run, const char *name, struct gp_ini *conf,
		    struct gp_findings *f)
{
	struct gp_log_capture why;
	struct gp_finding *x;
	int r;

	gp_log_capture_start(&why);
	r = gp_ini_load(run->ctx, name, conf);
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

/*
 * The container's rootfs as a directory to read: a plain LXC one ("dir:/path" or
 * "/path"), or a running container's through its init (nothing in it is run).
 */
static const char *rootfs_dir(const struct gp_check_run *run, const char *name,
			      const struct gp_cfglines *c, char *buf, size_t size)
{
	int pid;

	for (size_t i = 0; !c->pve && i < c->n; i++) {
		const char *v = c->v[i].value;

		if (strcmp(c->v[i].key, "lxc.rootfs.path") != 0)
			continue;
		if (strncmp(v, "dir:", 4) == 0)
			v += 4;
		if (v[0] == '/' && access(v, F_OK) == 0)
			return v;
	}
	/* The running container is the real one, under --root too (LXC is never read there). */
	if ((pid = gp_lxc_init_pid(run->ctx->lxcpath, name)) <= 0)
		return NULL;
	snprintf(buf, size, "/proc/%d/root", pid);
	return buf;
}

/* Each start of the container writes a CDI spec into its /etc/cdi (lib/start/cdi.c). */
static bool writes_spec(const struct gp_ini *conf)
{
	return conf->inject == GP_INJECT_YES && conf->cdi == GP_CDI_YES &&
	       strcmp(conf->mode, "devn") != 0;
}

/* Today's config gives the container NVIDIA nodes by hand. */
static bool gives_gpus(const struct gp_recipe *rec)
{
	for (size_t i = 0; i < rec->n; i++)
		if (gp_recipe_gives_nodes(&rec->v[i]) && !rec->v[i].cfg->pending)
			return true;
	return false;
}

static int check_config(const struct gp_check_run *run, const char *name, const char *path,
			struct gp_findings *f)
{
	_cleanup_free_ char *applied = read_applied(run, name);
	struct gp_ini conf, host;
	struct gp_recipe *rec = malloc(sizeof(*rec));
	char proc[64];
	bool attached;
	int r;

	if (!rec)
		return -ENOMEM;
	r = gp_recipe_read(run->ctx->root, &run->hs.host, path, run->ctx->pve, applied, rec);
	if (r < 0) {
		free(rec);
		return r;
	}
	attached = load_ini(run, name, &conf, f) == 0;
	check_hooks(rec->cfg, name, attached ? &conf : NULL, f);
	check_stale_rules(run, name, attached ? &conf : NULL, applied, f);
	check_v1_keys(run, rec->cfg, name, f);
	if (attached || gives_gpus(rec))
		check_node_mode(run, name, rec->unprivileged, f);
	check_pve_duplicates(rec->cfg, name, f);
	gp_check_recipe(run, name, rec, attached ? &conf : NULL, f);
	gp_check_lines(name, rec, f);
	gp_check_devn(name, rec, f);
	gp_check_binds(run, name, rec, f);
	if (!attached)
		gp_ini_init(&conf);
	if (gp_hostconf_load(run->ctx, &host) == 0) {
		const char *rootfs = rootfs_dir(run, name, rec->cfg, proc, sizeof(proc));
		struct gp_rootfs_read *read = gp_check_read_rootfs(run, name, rootfs);

		gp_ini_merge_host(&conf, &host);
		gp_check_driver(run, name, &conf, rootfs, read, f);
		gp_check_toolkit(name, attached && writes_spec(&conf), rec->unprivileged,
				 read ? &read->toolkit : NULL, f);
		gp_rootfs_read_free(read);
	}
	gp_recipe_free(rec);
	free(rec);
	return 0;
}

int gp_check_container(const struct gp_check_run *run, const char *name, struct gp_findings *f)
{
	char path[PATH_MAX];
	int r = config_path(run, name, path, sizeof(path));

	if (r == 0 && run->ctx->pve)
		r = check_parses(path);
	if (r == -ENOENT)
		gp_error("no config for container \"%s\" (%s)", name, path[0] ? path : "liblxc");
	return r < 0 ? r : check_config(run, name, path, f);
}

bool gp_check_has_gpus(const struct gp_check_run *run, const char *name)
{
	_cleanup_free_ char *ini = gp_ini_path(run->ctx, name);
	struct gp_recipe *rec;
	char path[PATH_MAX];
	bool gives = false;

	if (ini && access(ini, F_OK) == 0)
		return true;
	if (config_path(run, name, path, sizeof(path)) < 0 || !(rec = malloc(sizeof(*rec))))
		return false;
	if (gp_recipe_read(run->ctx->root, &run->hs.host, path, run->ctx->pve, NULL, rec) == 0) {
		gives = gives_gpus(rec);
		gp_recipe_free(rec);
	}
	free(rec);
	return gives;
}
