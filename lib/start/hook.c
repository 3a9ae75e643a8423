/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The three moments of a start: pre-start, autodev/mount, post-stop. */
#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/ctx.h"
#include "base/paths.h"
#include "base/proc.h"
#include "base/util.h"
#include "config/applied.h"
#include "config/cfglines.h"
#include "config/ini.h"
#include "config/lxcconf.h"
#include "host/host.h"
#include "plan/alloc.h"
#include "plan/planfile.h"
#include "start/cdi.h"
#include "start/hook.h"
#include "start/inject.h"
#include "start/mount.h"
#include "start/nodes.h"
#include "start/procgpus.h"

static int remove_state(const char *path)
{
	if (!path)
		return -ENOMEM;
	if (unlink(path) < 0 && errno != ENOENT)
		return gp_error_errno(-errno, "Failed to remove \"%s\"", path);
	return 0;
}

/* The start's plan, injection record and CDI spec removed: 0 or -errno (said). */
static int drop_state(const struct gp_ctx *ctx, const char *name)
{
	_cleanup_free_ char *inject = gp_inject_path(ctx->root, name);
	_cleanup_free_ char *plan = gp_plan_path(ctx->root, name);
	_cleanup_free_ char *cdi = gp_cdi_path(ctx->root, name);
	int r = remove_state(inject), p = remove_state(plan), c = remove_state(cdi);

	return r < 0 ? r : p < 0 ? p : c;
}

/* The driver's files this start injects into inj, when the ini asks for them: 1, else 0. */
static int write_injection(const struct gp_ctx *ctx, const char *name, const struct gp_ini *conf,
			   const char *version, struct gp_inject *inj)
{
	_cleanup_free_ char *path = gp_inject_path(ctx->root, name);
	int r;

	if (!path)
		return -ENOMEM;
	if (conf->inject != GP_INJECT_YES)
		return remove_state(path);
	r = gp_inject_select(ctx, version, conf->capabilities, inj);
	if (r == 0)
		r = gp_inject_write(path, inj);
	if (r == 0)
		r = gp_inject_stage(ctx->root, name, inj);
	return r < 0 ? r : 1;
}

/* The CDI spec of the start (lib/start/cdi.h), where it injects and the ini wants one. */
static int write_cdi(const struct gp_ctx *ctx, const char *name, const struct gp_host *host,
		     const struct gp_plan *plan, const struct gp_inject *inj)
{
	_cleanup_free_ char *path = gp_cdi_path(ctx->root, name), *spec = NULL;

	if (!path)
		return -ENOMEM;
	if (!inj || plan->ngpus == 0) /* a spec of no device: one CDI would refuse */
		return remove_state(path);
	spec = gp_cdi_spec(host, plan, inj);
	if (!spec)
		return -ENOMEM;
	if (strlen(spec) > GP_CDI_FILE_MAX) { /* what the mount hook reads */
		gp_warn("the CDI spec of this start would be %zu bytes, more than the %d the "
			"hook reads: none is written; the container's Podman or Docker gets no "
			"nvidia.com/gpu device (give it fewer GPUs or files, or set cdi = no)",
			strlen(spec), GP_CDI_FILE_MAX);
		return remove_state(path);
	}
	return gp_write_run_file(path, spec);
}

/* What one walk of the container's config finds: its device rules, a recipe's binds. */
struct config_scan {
	struct gp_cg_rules rules;
	const char *prefix;
	const struct gp_ctx *ctx;
	const char *name;
	const struct gp_plan *plan;
	int binds;
	bool idmapped; /* lxc.idmap: an unprivileged container, which cannot mknod */
};

/* "dev/X" or "/dev/X" onto a node of the plan (or nvidia-caps, the caps' directory). */
static const char *planned_target(const struct gp_plan *plan, const char *value)
{
	char copy[1024], *w[2], norm[256];
	const char *t = norm;

	if (strlen(value) >= sizeof(copy))
		return NULL;
	memcpy(copy, value, strlen(value) + 1);
	if (gp_split_words(copy, w, 2) < 2 || strlen(w[1]) >= 256)
		return NULL;
	gp_cfg_mount_target(w[1], norm, sizeof(norm));
	if (strncmp(t, "dev/", 4) != 0)
		return NULL;
	t += 4;
	for (size_t i = 0; i < plan->n; i++) {
		const char *n = plan->nodes[i].name, *slash = strchr(n, '/');

		if (strcmp(t, n) == 0 ||
		    (slash && strlen(t) == (size_t)(slash - n) && strncmp(t, n, strlen(t)) == 0))
			return plan->nodes[i].name;
	}
	return NULL;
}

/* Where Proxmox's own config has the line LXC's generated config carries: "file:line". */
static void pve_place(const struct gp_ctx *ctx, const char *name, const char *key,
		      const char *value, char *out, size_t size)
{
	_cleanup_free_ char *rel = NULL, *path = NULL;
	struct gp_cfglines *c = NULL;

	if (asprintf(&rel, "/etc/pve/lxc/%s.conf", name) < 0 || !(path = gp_path(ctx->root, rel)) ||
	    access(path, F_OK) < 0 || gp_cfglines_read(path, true, &c) < 0)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (!c->v[i].pending && strcmp(c->v[i].key, key) == 0 &&
		    strcmp(c->v[i].value, value) == 0) {
			snprintf(out, size, "%s:%u", path, c->v[i].line);
			break;
		}
	free(c);
}

/* A recipe's bind of a node the hook binds: named now, not left to fail at autodev. */
static void find_bind(struct config_scan *s, const char *key, const char *value, const char *file,
		      unsigned int line)
{
	char where[PATH_MAX + 16];
	const char *node;

	if (strcmp(key, "lxc.mount.entry") != 0 || !(node = planned_target(s->plan, value)))
		return;
	snprintf(where, sizeof(where), "%s:%u", file, line);
	pve_place(s->ctx, s->name, key, value, where, sizeof(where));
	gp_error("%s: \"%s = %s\" binds /dev/%s itself, where gpu-hook binds it: the start would "
		 "fail on it",
		 where, key, value, node);
	s->binds++;
}

static int scan_line(const char *key, const char *value, const char *file, unsigned int line,
		     void *user)
{
	struct config_scan *s = user;
	int r = gp_cg_rules_add(&s->rules, s->prefix, key, value);

	s->idmapped |= strcmp(key, "lxc.idmap") == 0;
	find_bind(s, key, value, file, line);
	if (r == -E2BIG)
		return gp_error_errno(r,
				      "%s:%u: more than %d device allow or deny rules: the hook "
				      "reads no further; merge them (c 195:* rwm) or drop some",
				      file, line, GP_CG_MAX_RULES);
	if (r < 0)
		gp_warn("%s:%u: cannot read device rule \"%s = %s\"; ignored", file, line, key,
			value);
	return 0;
}

/* Every planned node's rule, once the config binds none of them itself. */
static int check_rules(const struct config_scan *s, const char *path)
{
	int missing = 0;

	if (s->binds) {
		gp_error("take such lines out with \"gpu-provision adopt %s\" (--dry-run first): "
			 "gpu-hook gives those nodes",
			 s->name);
		return -GP_EBADCONF;
	}
	if (!s->rules.deny_all)
		gp_warn("the container denies no device (no \"%s.deny = a\"): it can open every "
			"GPU of the host; include LXC's common.conf to confine it",
			s->prefix);
	for (size_t i = 0; i < s->plan->n; i++) {
		const struct gp_devnode *n = &s->plan->nodes[i];

		if (gp_cg_rules_allow(&s->rules, n))
			continue;
		gp_error("the container's config \"%s\" has no rule \"%s.allow = c %u:%u rwm\" for "
			 "/dev/%s, so it could not open it",
			 path, s->prefix, n->major, n->minor, n->name);
		missing++;
	}
	if (missing && s->ctx->pmxcfs)
		gp_error("%d device rule(s) missing for this node's majors or GPUs: run "
			 "gpu-provision prepare on each node of the cluster, then gpu-provision "
			 "sync %s, so that its rules cover every node",
			 missing, s->name);
	else if (missing)
		gp_error("%d device rule(s) missing for today's majors: run gpu-provision attach "
			 "%s again to rewrite them",
			 missing, s->name);
	return missing ? -EACCES : 0;
}

static int check_config(const struct gp_ctx *ctx, const char *path, enum gp_cg_layout layout,
			const struct gp_plan *plan, const char *name, bool *idmapped)
{
	struct config_scan *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	*s = (struct config_scan){
		.prefix = gp_cgroup_key_prefix(layout), .ctx = ctx, .name = name, .plan = plan
	};
	r = gp_lxcconf_walk(path, scan_line, s);
	if (r < 0 && r != -E2BIG) /* past the cap is said where it is found */
		gp_error("Failed to read the container config \"%s\": %s", path, gp_strerror(-r));
	if (r == 0)
		r = check_rules(s, path);
	*idmapped = s->idmapped;
	free(s);
	return r;
}

int gp_hook_check_config(const struct gp_ctx *ctx, const char *path, enum gp_cg_layout layout,
			 const struct gp_plan *plan, const char *name)
{
	bool idmapped;

	return check_config(ctx, path, layout, plan, name, &idmapped);
}

/*
 * A .applied line that is a character device rule ("...allow: c M:m rwm"): true, with its
 * major and minor (-1 for '*').
 */
static bool rule_device(const char *line, unsigned int *major, long *minor)
{
	const char *p = strstr(line, ".allow");
	char *end;
	unsigned long n;

	if (!p)
		return false;
	p += strspn(p + 6, " \t:=") + 6;
	if (p[0] != 'c' || p[1] != ' ' || !isdigit((unsigned char)p[2]))
		return false;
	n = strtoul(p + 2, &end, 10);
	if (*end != ':' || n >= GP_CHAR_MAJORS)
		return false;
	*major = (unsigned int)n;
	*minor = end[1] == '*'			  ? -1
		 : isdigit((unsigned char)end[1]) ? strtol(end + 1, NULL, 10)
						  : -1;
	return true;
}

/* What a rule of .applied may open here: no device, NVIDIA's fixed major, or this start's. */
static bool rule_fits_here(const struct gp_majors *m, const struct gp_plan *plan,
			   unsigned int major, long minor)
{
	if (!gp_major_set_has(&m->registered, major) ||
	    major == (m->nvidia ? m->nvidia : GP_MAJOR_NVIDIA))
		return true;
	for (size_t i = 0; i < plan->n; i++)
		if (plan->nodes[i].major == major && (long)plan->nodes[i].minor == minor)
			return true;
	return false;
}

/*
 * The rules attach wrote (.applied) cover every node's majors of nvidia-uvm and nvidia-caps,
 * which are dynamic: one whose major here is another device's (another driver's, another of
 * NVIDIA's, or a node this start does not give) would let the container open it. Refused.
 */
static int check_applied_majors(const struct gp_ctx *ctx, const char *name,
				const struct gp_majors *m, const struct gp_plan *plan)
{
	_cleanup_free_ char *path = gp_applied_path_to_read(ctx, name), *buf = NULL;
	char *save = NULL;
	int bad = 0, r = path ? gp_applied_read(ctx, path, &buf) : -ENOMEM;

	if (r == -ENOENT)
		return 0;
	for (char *t = r == 0 ? strtok_r(buf, "\n", &save) : NULL; t;
	     t = strtok_r(NULL, "\n", &save)) {
		unsigned int major;
		long minor;

		if (!rule_device(t, &major, &minor) || rule_fits_here(m, plan, major, minor))
			continue;
		gp_error(
		    "%s: \"%s\" opens a device of major %u, which here is none that this start "
		    "gives (/proc/devices): the container could open it. %s %s",
		    path, t, major,
		    ctx->pmxcfs
			? "Another node's majors differ from this one's, or the ini changed: "
			  "run gpu-provision prepare here, then gpu-provision sync"
			: "The majors or the ini changed since attach: run gpu-provision sync",
		    name);
		bad++;
	}
	return r < 0 ? r : bad ? -GP_EBADCONF : 0;
}

/* No ini: on Proxmox VE, say the node and where the cluster keeps it. */
static void say_no_ini(const struct gp_ctx *ctx, const char *name)
{
	_cleanup_free_ char *path = gp_ini_path(ctx, name);

	if (ctx->node_err == 0)
		gp_error("no %s (nor %s/%s.ini) on node %s: run gpu-provision attach %s --gpus "
			 "SEL, or detach it",
			 path ? path : GP_CLUSTER_DIR, ctx->confdir, name, ctx->node, name);
	else
		gp_error("no %s: run gpu-provision attach %s --gpus SEL, or detach it",
			 path ? path : ctx->confdir, name);
}

/*
 * The plan is owned by the hook's parent, LXC's monitor of this container (LXC runs a hook
 * as sh -c "exec HOOK ..."), which lives as long as the container: when it is gone, a plan
 * left by a start that died without its post-stop holds nothing.
 */
static int set_owner(struct gp_plan *plan)
{
	pid_t monitor = getppid();

	if (gp_proc_start_time(monitor, &plan->owner_start) < 0)
		return gp_error_errno(-ESRCH,
				      "Failed to read the start time of the hook's parent, LXC's "
				      "monitor, from \"/proc/%d/stat\"",
				      (int)monitor);
	plan->owner = monitor;
	return 0;
}

/* Device rules for every GPU a portable selection may get: each one a mknod away. */
static void warn_privileged(const char *name, const struct gp_ini *conf)
{
	gp_warn("%s is privileged and devices = %s takes whichever GPUs are free, so its "
		"device rules allow every GPU it may get: it can make their nodes and open "
		"GPUs other containers hold; make it unprivileged (lxc.idmap), or select "
		"fixed GPUs",
		name, conf->devices);
}

/*
 * From the choice of GPUs to the plan on disk under the allocation lock, so that two
 * starts at once never take the same GPU, and a start that is refused writes no plan.
 */
/*
 * The container's device rules alone (its config walked with an empty plan), for a
 * portable selection to prefer the GPUs they cover; NULL when there is no config to read.
 */
static struct config_scan *rules_of(const struct gp_ctx *ctx, const char *path, const char *name,
				    enum gp_cg_layout layout)
{
	static const struct gp_plan none;
	struct config_scan *s = path ? calloc(1, sizeof(*s)) : NULL;

	if (!s)
		return NULL;
	*s = (struct config_scan){
		.prefix = gp_cgroup_key_prefix(layout), .ctx = ctx, .name = name, .plan = &none
	};
	if (gp_lxcconf_walk(path, scan_line, s) < 0) {
		free(s);
		return NULL; /* check_config says why, after */
	}
	return s;
}

static int plan_start(const struct gp_ctx *ctx, const char *name, const struct gp_ini *conf,
		      const struct gp_host *host, const char *lxc_config,
		      const struct gp_inject *cdi)
{
	_cleanup_free_ struct gp_plan *plan = malloc(sizeof(*plan));
	_cleanup_free_ struct config_scan *scan = NULL;
	_cleanup_free_ char *path = gp_plan_path(ctx->root, name);
	enum gp_cg_layout layout = gp_cgroup_layout(); /* a walk of the mount table: once */
	bool idmapped = true;
	int lock, r;

	if (!plan || !path)
		return -ENOMEM;
	if (gp_selection_is_portable(conf->devices))
		scan = rules_of(ctx, lxc_config, name, layout);
	lock = gp_alloc_lock(ctx->root, name);
	if (lock < 0)
		return lock;
	r = gp_alloc_plan(ctx, name, host, conf, scan ? &scan->rules : NULL, plan);
	if (r == 0)
		r = set_owner(plan);
	if (r == 0)
		r = gp_nodes_ensure(ctx->root, plan, host->params.modify != 0, false);
	if (r == 0 && !lxc_config) {
		gp_error("LXC_CONFIG_FILE is not set: gpu-hook must be run by LXC");
		r = -GP_EBADCONF;
	}
	if (r == 0)
		r = check_applied_majors(ctx, name, &host->majors, plan);
	if (r == 0)
		r = check_config(ctx, lxc_config, layout, plan, name, &idmapped);
	if (r == 0)
		r = gp_plan_write(path, plan);
	if (r == 0)
		r = write_cdi(ctx, name, host, plan, cdi);
	gp_alloc_unlock(ctx->root, lock);
	if (r == 0 && !idmapped && gp_selection_is_portable(conf->devices))
		warn_privileged(name, conf);
	return r;
}

/* The host is read once per start; again only when the policy loaded a module. */
static int prepare_host(const struct gp_ctx *ctx, const char *name, const struct gp_ini *conf,
			const char *lxc_config)
{
	unsigned int parts = conf->caps[0] ? GP_HOST_MIG : 0;
	/* Allocated only where the start injects: most starts need none of its 90 KiB. */
	_cleanup_free_ struct gp_inject *inj =
	    conf->inject == GP_INJECT_YES ? malloc(sizeof(*inj)) : NULL;
	struct gp_host host;
	int r, injected = 0;

	if (conf->inject == GP_INJECT_YES && !inj)
		return -ENOMEM;
	r = gp_host_read(ctx->root, parts, &host);
	if (r < 0)
		return r;
	r = gp_hook_uvm(ctx, name, conf, &host, parts);
	if (r == 0)
		r = injected = write_injection(ctx, name, conf, host.version, inj);
	if (r >= 0)
		r = plan_start(ctx, name, conf, &host, lxc_config,
			       injected && conf->cdi == GP_CDI_YES ? inj : NULL);
	gp_host_free(&host);
	return r;
}

int gp_hook_pre_start(const struct gp_ctx *ctx, const char *name, const char *lxc_config)
{
	struct gp_ini conf, host;
	int r;

	r = gp_ini_load(ctx, name, &conf);
	if (r == -ENOENT)
		say_no_ini(ctx, name);
	if (r == 0)
		r = gp_hostconf_load(ctx, &host);
	if (r < 0)
		return -GP_EBADCONF;
	gp_ini_merge_host(&conf, &host);
	r = prepare_host(ctx, name, &conf, lxc_config);
	/* LXC runs no post-stop for a start its pre-start refused: nothing of it stays. */
	if (r < 0)
		gp_hook_post_stop(ctx, name);
	return r;
}

static int read_plan(const struct gp_ctx *ctx, const char *name, struct gp_plan *plan)
{
	_cleanup_free_ char *path = gp_plan_path(ctx->root, name);
	int r;

	if (!path)
		return -ENOMEM;
	r = gp_plan_read(path, plan);
	if (r == -GP_EBADCONF)
		gp_error("the plan \"%s\" is damaged; restart the container", path);
	else if (r < 0)
		gp_error("Failed to read the plan \"%s\": %s (did the pre-start hook run?)", path,
			 gp_strerror(-r));
	return r;
}

struct start {
	const struct gp_ctx *ctx;
	const char *name, *rootfs;
	const struct gp_plan *plan;
};

/* The CDI spec pre-start wrote into *spec (malloc'd), or NULL without one: 0 or -errno (said). */
static int read_cdi(const struct gp_ctx *ctx, const char *name, char **spec)
{
	_cleanup_free_ char *path = gp_cdi_path(ctx->root, name);
	int r;

	*spec = NULL;
	if (!path)
		return -ENOMEM;
	r = gp_read_file(path, GP_CDI_FILE_MAX, spec, NULL);
	if (r == -ENOENT)
		return 0;
	return r < 0 ? gp_error_errno(r, "Failed to read \"%s\"", path) : 0;
}

/* What pre-start chose to inject: none without the file. */
static int inject(void *arg)
{
	const struct start *st = arg;
	const char *name = st->name, *rootfs = st->rootfs;
	_cleanup_free_ char *path = gp_inject_path(st->ctx->root, name), *cdi = NULL;
	_cleanup_free_ struct gp_inject *inj = malloc(sizeof(*inj));
	int r;

	if (!path || !inj)
		return -ENOMEM;
	r = gp_inject_read(path, inj);
	if (r == -ENOENT)
		return 0;
	if (r == -GP_EBADCONF) {
		gp_error("\"%s\" is damaged; restart the container", path);
		return r;
	}
	if (r < 0)
		return gp_error_errno(r, "Failed to read \"%s\"", path);
	r = read_cdi(st->ctx, name, &cdi);
	return r < 0 ? r : gp_inject_mount(st->ctx, name, rootfs, inj, cdi);
}

/* After the binds: the injection, then /proc's GPU list, which cannot refuse the start. */
static int after_binds(void *arg)
{
	const struct start *st = arg;
	int r = inject(arg);

	if (r == 0)
		gp_procgpus_mask(st->rootfs, st->plan);
	return r;
}

int gp_hook_mount(const struct gp_ctx *ctx, const char *name, const char *rootfs)
{
	struct gp_plan plan;
	struct start st = { ctx, name, rootfs, &plan };
	int r;

	if (!rootfs || rootfs[0] != '/') {
		gp_error("LXC_ROOTFS_MOUNT is not set: gpu-hook must be run by LXC");
		return -GP_EBADCONF;
	}
	r = read_plan(ctx, name, &plan);
	if (r < 0)
		return r;
	/* The rest after the binds: a refused injection takes them back too. */
	r = gp_mount_plan(rootfs, ctx->root, &plan, after_binds, &st);
	/*
	 * A refused start's plan and injection record go here already (an unprivileged
	 * container's hook may not remove them: the next pre-start rewrites them). The staged
	 * tree is the host's, which this namespace only holds a copy of: LXC's post-stop, which
	 * it runs after an aborted start too (5.0.2's lxc_end), takes it away there.
	 */
	if (r < 0)
		drop_state(ctx, name);
	return r;
}

int gp_hook_post_stop(const struct gp_ctx *ctx, const char *name)
{
	int s = gp_inject_unstage(ctx->root, name), r = drop_state(ctx, name);

	return s < 0 ? s : r;
}
