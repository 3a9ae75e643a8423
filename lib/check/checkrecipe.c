/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision check NAME: the NVIDIA lines a recipe put into the container's config. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/util.h"
#include "check/check.h"
#include "check/recipe.h"
#include "host/parse.h"
#include "config/ini.h"
#include "plan/plan.h"
#include "plan/planner.h"

struct recipe_check {
	const struct gp_check_run *check;
	const char *name;
	const struct gp_recipe *rec;
	const struct gp_ini *conf;
	struct gp_findings *f;
};

/* Appends sep (when buf already holds something) and a formatted item, as far as it fits. */
static void join(char *buf, size_t size, size_t *len, const char *sep, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void join(char *buf, size_t size, size_t *len, const char *sep, const char *fmt, ...)
{
	va_list ap;

	if (*len >= size)
		return;
	if (*len)
		*len += (size_t)snprintf(buf + *len, size - *len, "%s", sep);
	if (*len >= size)
		return;
	va_start(ap, fmt);
	*len += (size_t)vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
}

static void at(const struct recipe_check *c, const struct gp_recipe_line *l, char *out, size_t size)
{
	gp_cfgline_where(c->rec->cfg, l->cfg, out, size);
}

/* How a finding on a line of Proxmox's pending section says so. */
static const char *pending(const struct gp_recipe_line *l)
{
	return l->cfg->pending ? " (a pending change, applied at the next start)" : "";
}

static void fix_adopt(const struct recipe_check *c, struct gp_finding *x)
{
	GP_SET(x->fix,
	       "gpu-provision adopt %s --dry-run, then adopt %s: the recipe's lines go, gpu-hook "
	       "gives the nodes and today's rules at each start",
	       c->name, c->name);
}

/* Rules restrict nothing in an unprivileged Proxmox container (its userns config: "a"). */
static bool rules_matter(const struct recipe_check *c)
{
	return !(c->rec->cfg->pve && c->rec->unprivileged);
}

static bool same_stale(const struct gp_recipe_line *a, const struct gp_recipe_line *b)
{
	return a->stale && b->stale && a->rule.major == b->rule.major &&
	       a->cfg->pending == b->cfg->pending;
}

/* One finding per stale major, at its first line, naming all its lines. */
static void check_stale(const struct recipe_check *c, size_t i)
{
	const struct gp_majors *m = &c->check->hs.host.majors;
	const struct gp_recipe_line *l = &c->rec->v[i];
	char where[1024], lines[768] = "";
	struct gp_finding *x;
	size_t len = 0;

	for (size_t j = 0; j < i; j++)
		if (same_stale(&c->rec->v[j], l))
			return;
	if (!l->stale || !rules_matter(c) || !(x = gp_findings_add(c->f, GP_FINDING_RULE_STALE)))
		return;
	for (size_t j = i; j < c->rec->n; j++) {
		if (!same_stale(&c->rec->v[j], l))
			continue;
		at(c, &c->rec->v[j], where, sizeof(where));
		join(lines, sizeof(lines), &len, "; ", "%s", where);
	}
	GP_SET(x->summary, "%s%s allows major %ld, which no device has today: a stale NVIDIA major",
	       c->name, pending(l), l->rule.major);
	GP_SET(x->evidence, "%s; today nvidia is %d, nvidia-uvm %u, nvidia-caps %u", lines,
	       GP_MAJOR_NVIDIA, m->uvm, m->caps);
	fix_adopt(c, x);
}

/* A bind's source as the config names it: /dev/NODE, or the copy elsewhere it binds. */
static const char *shown(const struct recipe_check *c, const struct gp_recipe_line *l)
{
	static char out[sizeof(l->source) + 8];
	size_t n = c->check->ctx->root && !gp_root_is_host(c->check->ctx->root)
		       ? strlen(c->check->ctx->root)
		       : 0;

	snprintf(out, sizeof(out), "%s",
		 n && strncmp(l->source, c->check->ctx->root, n) == 0 ? l->source + n : l->source);
	return out;
}

static void check_node_missing(const struct recipe_check *c, const struct gp_recipe_line *l)
{
	struct gp_finding *x;
	char where[1024];

	if ((l->kind != GP_RECIPE_BIND && l->kind != GP_RECIPE_DEVN) || l->node_exists ||
	    !(x = gp_findings_add(c->f, GP_FINDING_RECIPE_NODE_MISSING)))
		return;
	at(c, l, where, sizeof(where));
	if (l->kind == GP_RECIPE_DEVN)
		GP_SET(x->summary,
		       "%s%s gives /dev/%s, which the host lacks: Proxmox refuses the "
		       "start (\"Device does not exist\")",
		       c->name, pending(l), l->node);
	else if (l->optional)
		GP_SET(x->summary,
		       "%s binds %s with optional, and the host lacks it: the "
		       "container starts without it%s",
		       c->name, shown(c, l),
		       strncmp(l->node, "nvidia-uvm", 10) == 0 ? " and cuInit fails (999)" : "");
	else
		GP_SET(x->summary, "%s binds %s, which the host lacks: the start fails", c->name,
		       shown(c, l));
	GP_SET(x->evidence, "%s", where);
	GP_SET(x->fix,
	       "gpu-provision prepare makes the nodes now (its boot unit at every boot); "
	       "gpu-provision adopt %s lets gpu-hook make them at each start",
	       c->name);
}

/* What a copy of a node kept outside /dev is today, against the number its name has. */
static void copy_now(const struct gp_recipe_line *l, char *out, size_t size)
{
	struct stat st;

	if (lstat(l->source, &st) < 0)
		snprintf(out, size, "the host has no such file");
	else if (S_ISCHR(st.st_mode))
		snprintf(out, size, "it is c %u:%u", major(st.st_rdev), minor(st.st_rdev));
	else
		snprintf(out, size, "it is no device node");
}

/* A bind from a copy of a node elsewhere (made once, by hand) that no longer is that node. */
static void check_copy(const struct recipe_check *c, const struct gp_recipe_line *l)
{
	unsigned int major, minor;
	char where[1024], now[64];
	struct gp_finding *x;

	if (l->kind != GP_RECIPE_UNSURE || !l->copy || !l->in_the_way || l->cfg->pending ||
	    !gp_recipe_node_rdev(&c->check->hs.host, l->node, &major, &minor) ||
	    !(x = gp_findings_add(c->f, GP_FINDING_BIND_COPY_STALE)))
		return;
	at(c, l, where, sizeof(where));
	copy_now(l, now, sizeof(now));
	GP_SET(x->summary, "%s binds %s onto dev/%s, but %s, and /dev/%s is c %u:%u today: %s",
	       c->name, l->source, l->node, now, l->node, major, minor,
	       access(l->source, F_OK) == 0 ? "the container gets another device there"
	       : l->optional		    ? "the container starts without the node"
					    : "the start fails");
	GP_SET(x->evidence, "%s", where);
	GP_SET(x->fix,
	       "bind /dev/%s itself, or gpu-provision adopt %s (take the line out first: it is "
	       "not known to be NVIDIA's node) and gpu-hook binds today's node at each start",
	       l->node, c->name);
}

/* The optional binds of nodes that exist: one finding for them all. */
static void check_optional(const struct recipe_check *c)
{
	struct gp_finding *x = NULL;
	size_t len = 0, n = 0;
	char where[1024];

	for (size_t i = 0; i < c->rec->n; i++) {
		const struct gp_recipe_line *l = &c->rec->v[i];

		if (l->kind != GP_RECIPE_BIND || !l->optional || !l->node_exists ||
		    (!x && !(x = gp_findings_add(c->f, GP_FINDING_OPTIONAL_MOUNT))))
			continue;
		at(c, l, where, sizeof(where));
		join(x->evidence, sizeof(x->evidence), &len, "; ", "%s", where);
		n++;
	}
	if (!x)
		return;
	GP_SET(x->summary,
	       "%s binds %zu NVIDIA node(s) with optional: one missing (uvm after a reboot) is "
	       "skipped silently",
	       c->name, n);
	fix_adopt(c, x);
}

/* The rules LXC enforces for this container (a Proxmox one starts from "deny a"). */
static void enforced_rules(const struct recipe_check *c, struct gp_cg_rules *rules)
{
	const char *prefix = gp_cgroup_key_prefix(c->check->rt.layout);

	memset(rules, 0, sizeof(*rules));
	rules->deny_all = c->rec->cfg->pve;
	for (size_t i = 0; i < c->rec->cfg->n; i++)
		if (!c->rec->cfg->v[i].pending)
			gp_cg_rules_add(rules, prefix, c->rec->cfg->v[i].key,
					c->rec->cfg->v[i].value);
}

/* The host node a bind gives, as a gp_devnode (a directory: nvidia-caps' first cap). */
static bool host_node(const struct recipe_check *c, const struct gp_recipe_line *l,
		      struct gp_devnode *n)
{
	struct stat st;

	if (lstat(l->source, &st) < 0)
		return false;
	snprintf(n->name, sizeof(n->name), "%s", l->node);
	n->major = S_ISCHR(st.st_mode) ? major(st.st_rdev) : c->check->hs.host.majors.caps;
	n->minor = S_ISCHR(st.st_mode) ? minor(st.st_rdev) : 1;
	return S_ISCHR(st.st_mode) || (S_ISDIR(st.st_mode) && n->major);
}

static bool is_uvm(const struct gp_recipe_line *l)
{
	return strcmp(l->node, "nvidia-uvm") == 0 || strcmp(l->node, "nvidia-uvm-tools") == 0;
}

/* A bound nvidia-uvm no rule lets the container open. */
static bool uvm_denied(const struct recipe_check *c, const struct gp_cg_rules *rules)
{
	for (size_t i = 0; i < c->rec->n; i++) {
		const struct gp_recipe_line *l = &c->rec->v[i];
		struct gp_devnode node = { 0 };

		if (l->kind == GP_RECIPE_BIND && strcmp(l->node, "nvidia-uvm") == 0 &&
		    l->node_exists && !l->cfg->pending && host_node(c, l, &node) &&
		    !gp_cg_rules_allow(rules, &node))
			return true;
	}
	return false;
}

/* A bind or devN of the config gives a path under /dev that starts with node. */
static bool config_gives(const struct gp_cfglines *cfg, const char *node)
{
	char src[256];

	for (size_t i = 0; i < cfg->n; i++)
		if (gp_cfg_source(&cfg->v[i], src, sizeof(src)) && strstr(src, "/dev/") &&
		    strncmp(strstr(src, "/dev/") + 5, node, strlen(node)) == 0)
			return true;
	return false;
}

/* The NVIDIA device other than the GPUs and uvm whose major the rule names, given no node. */
static bool other_nvidia_major(const struct recipe_check *c, const struct gp_recipe_line *l)
{
	const struct gp_majors *m = &c->check->hs.host.majors;
	const struct {
		unsigned int major;
		const char *node;
	} other[] = {
		{ m->caps, "nvidia-caps" },
		{ m->caps_imex, "nvidia-caps-imex-channels" },
		{ m->nvlink, "nvidia-nvlink" },
		{ m->nvswitch, "nvidia-nvswitch" },
	};

	if (l->kind != GP_RECIPE_RULE || l->rule.type != 'c' || l->cfg->pending)
		return false;
	for (size_t i = 0; i < GP_ARRAY_SIZE(other); i++) {
		if (!other[i].major || (long)other[i].major != l->rule.major)
			continue;
		return !config_gives(c->rec->cfg, other[i].node); /* else the device's rule */
	}
	return false;
}

/*
 * uvm bound and denied beside a rule on another NVIDIA device's major that the config gives
 * no node of: the rule was written for uvm, whose major was that one under an earlier driver.
 */
static bool check_other_major(const struct recipe_check *c, const struct gp_cg_rules *rules)
{
	char where[1024], owner[64] = "another device", lines[768] = "";
	struct gp_finding *x;
	size_t len = 0;
	long major = -1;

	if (!rules_matter(c) || !uvm_denied(c, rules))
		return false;
	for (size_t i = 0; i < c->rec->n; i++) {
		const struct gp_recipe_line *l = &c->rec->v[i];

		if (!other_nvidia_major(c, l) || (major >= 0 && l->rule.major != major))
			continue;
		major = l->rule.major;
		at(c, l, where, sizeof(where));
		join(lines, sizeof(lines), &len, "; ", "%s", where);
	}
	if (major < 0 || !(x = gp_findings_add(c->f, GP_FINDING_RULE_OTHER_NVIDIA_MAJOR)))
		return false;
	gp_parse_major_name(c->rec->devices, (unsigned int)major, owner, sizeof(owner));
	GP_SET(x->summary,
	       "%s allows major %ld for nvidia-uvm, but %ld is %s's today and uvm's is %u: uvm is "
	       "denied and cuInit fails (999)",
	       c->name, major, major, owner, c->check->hs.host.majors.uvm);
	GP_SET(x->evidence, "%s; /proc/devices: %ld %s", lines, major, owner);
	fix_adopt(c, x);
	return true;
}

/* Device rules of an unprivileged Proxmox container: allowed "a" before them, inert. */
static bool is_enforced_rule(const struct recipe_check *c, const struct gp_recipe_line *l)
{
	const char *prefix = gp_cgroup_key_prefix(c->check->rt.layout);

	return (l->kind == GP_RECIPE_RULE || l->kind == GP_RECIPE_OPEN_ALL ||
		(l->kind == GP_RECIPE_UNSURE && strstr(l->cfg->key, ".devices."))) &&
	       !l->cfg->pending && strncmp(l->cfg->key, prefix, strlen(prefix)) == 0;
}

static void check_inert(const struct recipe_check *c)
{
	char where[1024], lines[768] = "";
	struct gp_finding *x;
	size_t len = 0, n = 0;

	if (rules_matter(c))
		return;
	for (size_t i = 0; i < c->rec->n; i++) {
		if (!is_enforced_rule(c, &c->rec->v[i]))
			continue;
		at(c, &c->rec->v[i], where, sizeof(where));
		join(lines, sizeof(lines), &len, "; ", "%s", where);
		n++;
	}
	if (!n || !(x = gp_findings_add(c->f, GP_FINDING_RULES_INERT)))
		return;
	GP_SET(x->summary,
	       "%s is an unprivileged Proxmox container: pve-container allows every device "
	       "there, so its %zu NVIDIA device rule(s) change nothing; it reaches what is bound, "
	       "at the nodes' modes",
	       c->name, n);
	GP_SET(x->evidence,
	       "%s; pve-container's userns.conf.d/01-pve.conf: "
	       "lxc.cgroup2.devices.allow = a",
	       lines);
	GP_SET(x->fix, "take them out (gpu-provision adopt %s does, with the rest of the recipe)",
	       c->name);
}

/* The nodes bound with no rule that lets the container open them: one finding for them all. */
static bool node_given(const struct gp_recipe *r, const char *node)
{
	for (size_t i = 0; i < r->n; i++)
		if ((r->v[i].kind == GP_RECIPE_BIND || r->v[i].kind == GP_RECIPE_DEVN) &&
		    strcmp(r->v[i].node, node) == 0)
			return true;
	return false;
}

/*
 * A GPU an exact rule of today's config names that no bind or devN gives: where the bound
 * GPU node is denied, the GPU the recipe was meant for (a script wrote nvidia0 anyway).
 */
static const struct gp_gpu *gpu_ruled_not_given(const struct recipe_check *c)
{
	const struct gp_host *h = &c->check->hs.host;

	for (size_t i = 0; i < c->rec->n; i++) {
		const struct gp_recipe_line *l = &c->rec->v[i];

		if (l->kind != GP_RECIPE_RULE || l->cfg->pending || l->rule.type != 'c' ||
		    l->rule.major != GP_MAJOR_NVIDIA || l->rule.minor < 0)
			continue;
		for (size_t g = 0; g < h->ngpus; g++) {
			char node[32];

			snprintf(node, sizeof(node), "nvidia%u", h->gpus[g].minor);
			if ((long)h->gpus[g].minor == l->rule.minor && !node_given(c->rec, node))
				return &h->gpus[g];
		}
	}
	return NULL;
}

/* The summary of recipe-rule-missing; a GPU node denied beside a rule for another GPU. */
static void say_rule_missing(const struct recipe_check *c, const char *nodes, size_t n, bool uvm,
			     bool gpu_denied, struct gp_finding *x)
{
	const struct gp_gpu *meant = gpu_denied ? gpu_ruled_not_given(c) : NULL;

	GP_SET(x->summary, "%s binds %s, but no %s rule lets it open %s%s%s", c->name, nodes,
	       gp_cgroup_key_prefix(c->check->rt.layout), n > 1 ? "them" : "it",
	       uvm ? ": cuInit fails (999)" : "",
	       meant ? "; its rules name another GPU, which it does not bind: its node was "
		       "written where that GPU was chosen"
		     : "");
	if (!meant) {
		fix_adopt(c, x);
		return;
	}
	GP_SET(x->fix,
	       "gpu-provision adopt %s --gpus %d --dry-run, then without --dry-run: GPU %d (%s, "
	       "c %d:%u) is the one its rules name; adopt alone takes the bound node's",
	       c->name, meant->index, meant->index, meant->pci, GP_MAJOR_NVIDIA, meant->minor);
}

static void check_rule_missing(const struct recipe_check *c, const struct gp_cg_rules *rules,
			       bool uvm_said)
{
	char nodes[160] = "", where[1024];
	size_t len = 0, nlen = 0, n = 0;
	struct gp_finding *x = NULL;
	bool uvm = false, gpu = false;

	for (size_t i = 0; i < c->rec->n && rules_matter(c); i++) {
		const struct gp_recipe_line *l = &c->rec->v[i];
		struct gp_devnode node = { 0 };

		if (l->kind != GP_RECIPE_BIND || !l->node_exists || l->cfg->pending ||
		    (uvm_said && is_uvm(l)) || !host_node(c, l, &node) ||
		    gp_cg_rules_allow(rules, &node) ||
		    (!x && !(x = gp_findings_add(c->f, GP_FINDING_RECIPE_RULE_MISSING))))
			continue;
		at(c, l, where, sizeof(where));
		join(x->evidence, sizeof(x->evidence), &len, "; ", "%s", where);
		join(nodes, sizeof(nodes), &nlen, ", ", "%s (c %u:%u)", l->node, node.major,
		     node.minor);
		uvm |= strcmp(l->node, "nvidia-uvm") == 0;
		gpu |= l->gpu_minor >= 0;
		n++;
	}
	if (x)
		say_rule_missing(c, nodes, n, uvm, gpu, x);
}

static void check_uvm_tools(const struct recipe_check *c)
{
	struct gp_finding *x;

	if (!node_given(c->rec, "nvidia-uvm") || node_given(c->rec, "nvidia-uvm-tools") ||
	    !(x = gp_findings_add(c->f, GP_FINDING_UVM_TOOLS_MISSING)))
		return;
	GP_SET(x->summary, "%s gets /dev/nvidia-uvm but not /dev/nvidia-uvm-tools", c->name);
	GP_SET(x->evidence, "%s binds or gives nvidia-uvm and no nvidia-uvm-tools",
	       c->rec->cfg->files[0]);
	GP_SET(x->fix,
	       "profilers and CUDA debuggers (Nsight, cuda-gdb) need it: gpu-provision adopt %s "
	       "gives both",
	       c->name);
}

static bool is_hooks_nvidia(const struct gp_recipe_line *l)
{
	return l->kind == GP_RECIPE_HOOK && strstr(l->cfg->value, "/hooks/nvidia") != NULL;
}

/* LXC's hooks/nvidia in a privileged container: hooks-nvidia-privileged says it. */
static bool exits_privileged(const struct recipe_check *c, const struct gp_recipe_line *l)
{
	return !c->rec->unprivileged && is_hooks_nvidia(l) && !l->cfg->pending;
}

static void check_other_hook(const struct recipe_check *c, const struct gp_recipe_line *l)
{
	struct gp_finding *x;
	char where[1024];

	if (l->kind != GP_RECIPE_HOOK || exits_privileged(c, l) ||
	    !(x = gp_findings_add(c->f, GP_FINDING_OTHER_GPU_HOOK)))
		return;
	at(c, l, where, sizeof(where));
	GP_SET(x->summary, "%s runs another GPU tool's hook%s", c->name,
	       c->rec->gpu_hook ? " as well as gpu-hook: both give the GPUs" : "");
	GP_SET(x->evidence, "%s", where);
	if (c->conf)
		GP_SET(x->fix,
		       "take the line out: gpu-hook does its work (gpu-provision adopt %s "
		       "does it for you)",
		       c->name);
	else
		fix_adopt(c, x);
}

/* LXC's hooks/nvidia exits in a privileged container: "only works in unprivileged mode". */
static void check_hooks_nvidia(const struct recipe_check *c, const struct gp_recipe_line *l)
{
	struct gp_finding *x;
	char where[1024];

	if (!exits_privileged(c, l) ||
	    !(x = gp_findings_add(c->f, GP_FINDING_HOOKS_NVIDIA_PRIVILEGED)))
		return;
	at(c, l, where, sizeof(where));
	GP_SET(x->summary,
	       "%s is privileged, and LXC's hooks/nvidia exits there (\"This hook currently only "
	       "works in unprivileged mode\"): the start fails",
	       c->name);
	GP_SET(x->evidence, "%s; no lxc.idmap%s", where,
	       c->rec->cfg->pve ? " nor unprivileged: 1" : "");
	fix_adopt(c, x);
}

/* The GPUs the container is meant to have: its ini's, or those its recipe binds. */
static void intended(const struct recipe_check *c, bool chosen[GP_MAX_GPUS])
{
	const struct gp_host *h = &c->check->hs.host;
	struct gp_log_capture quiet;
	struct gp_ini from_recipe;
	struct gp_plan *plan = malloc(sizeof(*plan));

	memset(chosen, 0, sizeof(bool) * GP_MAX_GPUS);
	if (!plan)
		return;
	gp_log_capture_start(&quiet);
	gp_ini_init(&from_recipe);
	if (c->conf ||
	    gp_recipe_selection(c->rec, h, from_recipe.devices, sizeof(from_recipe.devices)) == 0)
		gp_plan_for_conf(c->check->ctx->root, h, c->conf ? c->conf : &from_recipe,
				 GP_WHERE_NONE, chosen, plan);
	gp_log_capture_stop(&quiet);
	free(plan);
}

static bool rule_reaches(const struct gp_cg_rule *r, unsigned int minor)
{
	return r->type == 'a' || (r->type == 'c' && (r->major < 0 || r->major == GP_MAJOR_NVIDIA) &&
				  (r->minor < 0 || r->minor == (long)minor));
}

static bool any_chosen(const bool chosen[GP_MAX_GPUS], size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (chosen[i])
			return true;
	return false;
}

/* A privileged container's rule that lets it open (after mknod) GPUs it is not meant to have. */
static void check_opens(const struct recipe_check *c, const struct gp_cg_rules *rules,
			const bool chosen[GP_MAX_GPUS], const struct gp_recipe_line *l)
{
	const struct gp_host *h = &c->check->hs.host;
	const char *prefix = gp_cgroup_key_prefix(c->check->rt.layout);
	char list[384] = "", where[1024];
	struct gp_finding *x;
	size_t len = 0, n = 0;

	/* Wildcards only: an exact minor says which GPU the container is meant to have. */
	if ((l->kind != GP_RECIPE_RULE && l->kind != GP_RECIPE_OPEN_ALL) || l->rule.minor >= 0 ||
	    l->cfg->pending || strncmp(l->cfg->key, prefix, strlen(prefix)) != 0)
		return;
	for (size_t i = 0; i < h->ngpus; i++) {
		struct gp_devnode node = { .major = GP_MAJOR_NVIDIA, .minor = h->gpus[i].minor };

		if (chosen[i] || !rule_reaches(&l->rule, node.minor) ||
		    !gp_cg_rules_allow(rules, &node))
			continue;
		join(list, sizeof(list), &len, ", ", "%d (%s)", h->gpus[i].index, h->gpus[i].pci);
		n++;
	}
	if (!n || !(x = gp_findings_add(c->f, GP_FINDING_RULE_OPENS_GPUS)))
		return;
	at(c, l, where, sizeof(where));
	if (!any_chosen(chosen, h->ngpus))
		GP_SET(x->summary,
		       "%s can open every GPU of the host (%zu): neither an ini nor "
		       "its binds say which it is meant to have",
		       c->name, n);
	else
		GP_SET(x->summary, "%s can open %zu GPU(s) it is not meant to have: %s", c->name, n,
		       list);
	GP_SET(x->evidence, "%s; a privileged container can mknod any node its rules allow", where);
	if (l->kind == GP_RECIPE_OPEN_ALL)
		GP_SET(x->fix, "take the line out (it opens every device of the host); gpu-hook "
			       "writes exact rules for the GPUs given");
	else
		fix_adopt(c, x);
}

/* Lines of a list of recipe lines in one field: "file:line: text; ..." */
static size_t list_lines(const struct recipe_check *c, bool (*pick)(const struct gp_recipe_line *),
			 char *out, size_t size)
{
	char where[1024];
	size_t len = 0, n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < c->rec->n; i++) {
		if (!pick(&c->rec->v[i]))
			continue;
		at(c, &c->rec->v[i], where, sizeof(where));
		join(out, size, &len, "; ", "%s", where);
		n++;
	}
	return n;
}

/* A bind onto a node gpu-hook binds: the recipe's own node, or anything else there. */
static bool is_bind(const struct gp_recipe_line *l)
{
	return l->in_the_way && !l->cfg->pending;
}

/* With gpu-hook attached, a recipe's bind of a node is in the way of the hook's. */
static void check_conflict(const struct recipe_check *c)
{
	struct gp_finding *x;
	char lines[768];
	size_t n;

	if (!c->conf || strcmp(c->conf->mode, "devn") == 0 ||
	    !(n = list_lines(c, is_bind, lines, sizeof(lines))) ||
	    !(x = gp_findings_add(c->f, GP_FINDING_RECIPE_CONFLICT)))
		return;
	GP_SET(x->summary,
	       "%s binds %zu NVIDIA node(s) itself, where gpu-hook binds them: its "
	       "start is refused",
	       c->name, n);
	GP_SET(x->evidence, "%s", lines);
	fix_adopt(c, x);
}

/* NVIDIA_VISIBLE_DEVICES and NVIDIA_DRIVER_CAPABILITIES: what LXC's hooks/nvidia reads. */
static bool is_nvidia_env(const struct gp_recipe_line *l)
{
	return l->kind == GP_RECIPE_ENV && !l->cfg->pending &&
	       (strncmp(l->cfg->value, "NVIDIA_VISIBLE_DEVICES=", 23) == 0 ||
		strncmp(l->cfg->value, "NVIDIA_DRIVER_CAPABILITIES=", 27) == 0);
}

static void check_env_unread(const struct recipe_check *c)
{
	struct gp_finding *x;
	char lines[768];
	size_t n;

	if (!(n = list_lines(c, is_nvidia_env, lines, sizeof(lines))) ||
	    gp_recipe_env_read(c->rec->cfg) ||
	    !(x = gp_findings_add(c->f, GP_FINDING_NVIDIA_ENV_UNREAD)))
		return;
	GP_SET(x->summary,
	       "%s sets %zu NVIDIA_* variable(s) for a hook, but no hook of its config reads them "
	       "(LXC's hooks/nvidia would): they give no GPU and change nothing",
	       c->name, n);
	GP_SET(x->evidence, "%s", lines);
	GP_SET(x->fix, "take the line(s) out; gpu-provision attach %s gives GPUs by its ini",
	       c->name);
}

static void check_lines(const struct recipe_check *c)
{
	struct gp_finding *x;
	char lines[768];
	size_t n;

	if (c->conf || !(n = list_lines(c, gp_recipe_gives_now, lines, sizeof(lines))) ||
	    !(x = gp_findings_add(c->f, GP_FINDING_RECIPE_LINES)))
		return;
	GP_SET(x->summary, "%s gets its GPUs from %zu line(s) of a recipe, not from gpu-provision",
	       c->name, n);
	GP_SET(x->evidence, "%s", lines);
	fix_adopt(c, x);
}

void gp_check_recipe(const struct gp_check_run *run, const char *name, const struct gp_recipe *rec,
		     const struct gp_ini *conf, struct gp_findings *f)
{
	struct recipe_check c = { run, name, rec, conf, f };
	struct gp_cg_rules *rules = malloc(sizeof(*rules));
	bool chosen[GP_MAX_GPUS];

	if (!rules)
		return;
	enforced_rules(&c, rules);
	intended(&c, chosen);
	check_conflict(&c);
	check_lines(&c);
	for (size_t i = 0; i < rec->n; i++) {
		check_stale(&c, i);
		check_node_missing(&c, &rec->v[i]);
		check_copy(&c, &rec->v[i]);
		check_other_hook(&c, &rec->v[i]);
		check_hooks_nvidia(&c, &rec->v[i]);
		if (!rec->unprivileged)
			check_opens(&c, rules, chosen, &rec->v[i]);
	}
	check_rule_missing(&c, rules, check_other_major(&c, rules));
	check_inert(&c);
	check_optional(&c);
	check_uvm_tools(&c);
	check_env_unread(&c);
	gp_check_selector(run, name, rec, f);
	free(rules);
}
