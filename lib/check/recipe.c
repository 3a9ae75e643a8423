/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Recipe lines: what a container's config gives of NVIDIA's by hand, line by line. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/paths.h"
#include "base/util.h"
#include "check/recipe.h"
#include "host/parse.h"
#include "plan/vendors.h"

/* Other GPU tools' hooks: LXC's own nvidia hook and the NVIDIA Container Toolkit's. */
static const char *const other_hooks[] = {
	"/hooks/nvidia",
	"nvidia-container-cli",
	"nvidia-container-runtime-hook",
	"nvidia-ctk",
};

static const char *const hook_variables[] = {
	"NVIDIA_VISIBLE_DEVICES=",
	"NVIDIA_DRIVER_CAPABILITIES=",
	"NVIDIA_REQUIRE_",
	"NVIDIA_DISABLE_REQUIRE=",
};

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool any_of(const char *s, const char *const *list, size_t n, bool prefix)
{
	for (size_t i = 0; i < n; i++)
		if (prefix ? starts_with(s, list[i]) : strstr(s, list[i]) != NULL)
			return true;
	return false;
}

/* A node gpu-hook can give, as a recipe names it: nvidia0, nvidiactl, nvidia-caps (dir). */
static bool node_known(const char *node)
{
	return gp_devnode_name_is_valid(node) || strcmp(node, "nvidia-caps") == 0;
}

/* "/dev/X" (or "<root>/dev/X" under a root prefix): X, else NULL. */
static const char *dev_node(const char *root, const char *path)
{
	size_t n = root && !gp_root_is_host(root) ? strlen(root) : 0;

	if (n && strncmp(path, root, n) == 0)
		path += n;
	return starts_with(path, "/dev/nvidia") ? path + 5 : NULL;
}

/* The host's path of a bind's or devN's source: under root for /dev, else as written. */
static void host_source(const char *root, const char *path, char *out, size_t size)
{
	_cleanup_free_ char *p = NULL;

	if (strncmp(path, "/dev/", 5) == 0 && (p = gp_path(root, path)))
		path = p;
	snprintf(out, size, "%s", path);
}

static bool node_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISDIR(st.st_mode));
}

bool gp_recipe_node_rdev(const struct gp_host *h, const char *node, unsigned int *major,
			 unsigned int *minor)
{
	char extra;

	*major = GP_MAJOR_NVIDIA;
	if (sscanf(node, "nvidia%u%c", minor, &extra) == 1)
		return true;
	if (strcmp(node, "nvidiactl") == 0 || strcmp(node, "nvidia-modeset") == 0) {
		*minor = strcmp(node, "nvidiactl") == 0 ? GP_MINOR_NVIDIACTL : GP_MINOR_MODESET;
		return true;
	}
	*major = h->majors.uvm;
	*minor = strcmp(node, "nvidia-uvm-tools") == 0;
	if (strcmp(node, "nvidia-uvm") == 0 || *minor)
		return *major != 0;
	*major = h->majors.caps;
	return *major && sscanf(node, "nvidia-caps/nvidia-cap%u%c", minor, &extra) == 1;
}

/* A copy of the node made elsewhere (a path outside /dev): that node's number, today. */
static bool is_copy_of(const struct gp_host *h, const char *path, const char *node)
{
	unsigned int major, minor;
	struct stat st;

	return gp_recipe_node_rdev(h, node, &major, &minor) && lstat(path, &st) == 0 &&
	       S_ISCHR(st.st_mode) && major(st.st_rdev) == major && minor(st.st_rdev) == minor;
}

static int gpu_minor(const char *node)
{
	unsigned int minor;
	char extra;

	return sscanf(node, "nvidia%u%c", &minor, &extra) == 1 ? (int)minor : -1;
}

/*
 * lxc.mount.entry = SRC TARGET TYPE OPTIONS: a node bound onto its own name under dev/,
 * from /dev, or from a copy of that very node elsewhere. Any other bind onto such a name
 * is in gpu-hook's way, but not known to give the node.
 */
static bool classify_bind(const char *root, const struct gp_host *host, const struct gp_cfgline *c,
			  struct gp_recipe_line *l)
{
	char src[256], target[256], norm[256], type[64], options[256] = "";
	const char *node, *t;

	if (sscanf(c->value, "%255s %255s %63s %255s", src, target, type, options) < 3)
		return false;
	node = dev_node(root, src);
	gp_cfg_mount_target(target, norm, sizeof(norm));
	t = starts_with(norm, "dev/") && node_known(norm + 4) ? norm + 4 : NULL;
	if (!node && !t)
		return false;
	snprintf(l->node, sizeof(l->node), "%.63s", t ? t : node);
	host_source(root, src, l->source, sizeof(l->source));
	l->optional = gp_cfg_mount_option(options, "optional");
	l->in_the_way = t != NULL;
	l->copy = !starts_with(src, "/dev/") && !node;
	l->gpu_minor = -1;
	if (t && ((node && strcmp(node, t) == 0) || (!node && is_copy_of(host, l->source, t)))) {
		l->kind = GP_RECIPE_BIND;
		l->gpu_minor = gpu_minor(t);
		return true;
	}
	l->kind = GP_RECIPE_UNSURE;
	l->why = t ? "binds onto an NVIDIA node's name something that is not that node today; "
		     "gpu-hook binds the node there"
		   : "binds an NVIDIA path gpu-hook does not give, or onto another name";
	return true;
}

/* devN: [path=]/dev/PATH[,gid=..,mode=..] */
static bool classify_devn(const char *root, const struct gp_cfgline *c, struct gp_recipe_line *l)
{
	char p[256];
	const char *node;

	if (strcmp(c->key, "lxc.mount.entry") == 0 || !gp_cfg_source(c, p, sizeof(p)) ||
	    !(node = dev_node(root, p)))
		return false;
	snprintf(l->node, sizeof(l->node), "%s", node);
	host_source(root, p, l->source, sizeof(l->source));
	l->gpu_minor = gpu_minor(node);
	l->kind = node_known(node) ? GP_RECIPE_DEVN : GP_RECIPE_UNSURE;
	l->why = "gives an NVIDIA path gpu-hook does not give";
	return true;
}

/* LXC's environment keys: lxc.environment, and LXC 7's .hooks (the hooks') and .runtime. */
static bool is_environment_key(const char *key)
{
	return strcmp(key, "lxc.environment") == 0 || strcmp(key, "lxc.environment.hooks") == 0 ||
	       strcmp(key, "lxc.environment.runtime") == 0;
}

static bool is_allow_key(const char *key)
{
	return strcmp(key, "lxc.cgroup.devices.allow") == 0 ||
	       strcmp(key, "lxc.cgroup2.devices.allow") == 0;
}

static bool nvidia_major(const struct gp_host *h, long major)
{
	const unsigned int m[] = { GP_MAJOR_NVIDIA,	h->majors.uvm,	  h->majors.caps,
				   h->majors.caps_imex, h->majors.nvlink, h->majors.nvswitch };

	for (size_t i = 0; i < GP_ARRAY_SIZE(m); i++)
		if (m[i] && (long)m[i] == major)
			return true;
	return false;
}

/* First pass: the rules that are NVIDIA's by today's majors, or reach everything. */
static bool classify_rule(const struct gp_host *host, const struct gp_cfgline *c,
			  struct gp_recipe_line *l)
{
	if (!is_allow_key(c->key) || gp_cg_rule_parse(c->value, &l->rule) < 0 ||
	    !(l->rule.r || l->rule.w))
		return false;
	if (l->rule.type == 'a' || (l->rule.type == 'c' && l->rule.major < 0)) {
		l->kind = GP_RECIPE_OPEN_ALL;
		l->why = "reaches every device, not only NVIDIA's: take it out yourself if only "
			 "the GPUs needed it";
		return true;
	}
	if (l->rule.type != 'c' || !nvidia_major(host, l->rule.major))
		return false;
	l->kind = GP_RECIPE_RULE;
	return true;
}

bool gp_recipe_mentions_nvidia(const struct gp_cfgline *c)
{
	return (starts_with(c->key, "lxc.") || starts_with(c->key, "dev")) &&
	       (strcasestr(c->value, "nvidia") || strcasestr(c->value, "libcuda"));
}

static bool classify_first(const char *root, const struct gp_host *host, const struct gp_cfgline *c,
			   struct gp_recipe_line *l)
{
	if (strcmp(c->key, "lxc.mount.entry") == 0 && classify_bind(root, host, c, l))
		return true;
	if (classify_devn(root, c, l))
		return true;
	if (classify_rule(host, c, l))
		return true;
	if (starts_with(c->key, "lxc.hook.") &&
	    any_of(c->value, other_hooks, GP_ARRAY_SIZE(other_hooks), false)) {
		l->kind = GP_RECIPE_HOOK;
		return true;
	}
	if (is_environment_key(c->key) &&
	    any_of(c->value, hook_variables, GP_ARRAY_SIZE(hook_variables), true)) {
		l->kind = GP_RECIPE_ENV;
		return true;
	}
	return false;
}

/* The majors Linux gives out dynamically, where NVIDIA's modules get theirs. */
static bool dynamic_major(long major)
{
	return (major >= 234 && major <= 254) || (major >= 384 && major <= 511);
}

/*
 * Second pass, knowing whether the config gives NVIDIA nodes: a rule on a dynamic major
 * no device has today is an NVIDIA major gone stale; one another device has now, maybe.
 */
static bool classify_second(const struct gp_recipe *r, const struct gp_cfgline *c, bool evidence,
			    struct gp_recipe_line *l)
{
	char owner[64];

	if (is_allow_key(c->key) && gp_cg_rule_parse(c->value, &l->rule) == 0 &&
	    l->rule.type == 'c' && dynamic_major(l->rule.major) && (l->rule.r || l->rule.w) &&
	    evidence) {
		if (gp_parse_major_name(r->devices, (unsigned int)l->rule.major, owner,
					sizeof(owner)) == -ENOENT &&
		    !r->other_devices) {
			l->kind = GP_RECIPE_RULE;
			l->stale = true;
			return true;
		}
		if (r->other_devices && l->kind != GP_RECIPE_UNSURE) {
			l->kind = GP_RECIPE_UNSURE;
			l->why =
			    "no NVIDIA major today, but the config gives other devices too: it "
			    "may be theirs; take it out yourself if it was NVIDIA's";
			return true;
		}
		l->kind = GP_RECIPE_UNSURE;
		l->why = "its major belongs to another device today: was it NVIDIA's once? take "
			 "it out yourself if so";
		return true;
	}
	if (!gp_recipe_mentions_nvidia(c))
		return false;
	l->kind = GP_RECIPE_UNSURE;
	l->why = "names NVIDIA but is no line gpu-hook replaces";
	return true;
}

static bool is_ours(const struct gp_cfgline *c, const char *applied)
{
	const char *pos = applied, *line;
	char text[1024];
	size_t n;

	if (starts_with(c->key, "lxc.hook.") && strstr(c->value, "gpu-hook"))
		return true;
	while (applied && gp_line_next(&pos, applied + strlen(applied), &line, &n)) {
		snprintf(text, sizeof(text), "%.*s", (int)n, line);
		if (gp_cfgline_is(c, text))
			return true;
	}
	return false;
}

/* What adopt may take out: the config's own file, its current section, whole lines. */
static void decide_removal(const struct gp_recipe *r, struct gp_recipe_line *l, bool hook)
{
	if (l->kind == GP_RECIPE_OPEN_ALL || l->kind == GP_RECIPE_UNSURE)
		return;
	if (l->kind == GP_RECIPE_ENV && !hook) {
		l->why = "no GPU hook of this config reads it";
		return;
	}
	if (l->cfg->file != 0)
		l->why = "in an included file: take it out there";
	else if (l->cfg->pending)
		l->why = l->kind == GP_RECIPE_DEVN
			     ? "a pending change: at the next start Proxmox gives the node too, "
			       "beside gpu-hook; pct set <id> --revert <key> drops it"
			     : "a pending change: left as it is; once Proxmox applies it, check "
			       "this container again";
	else if (l->cfg->too_long)
		l->why = "too long to be sure of";
	else
		l->removable = true;
	(void)r;
}

/*
 * Devices whose majors are fixed (DRI, fuse, tun, kvm, sound, USB serial, video4linux, misc's
 * nvram, a Coral PCIe's apex at 120): a rule on a dynamic major is never theirs.
 */
static const char *const static_devices[] = {
	"/dev/dri",    "/dev/fuse",   "/dev/net/tun", "/dev/kvm",     "/dev/snd",
	"/dev/ttyUSB", "/dev/ttyACM", "/dev/video",   "/dev/bus/usb", "/dev/null",
	"/dev/zero",   "/dev/fb",     "/dev/nvram",   "/dev/apex_",
};

/*
 * A bind or devN of another device (not NVIDIA's) whose major may be dynamic: one the host
 * gives a dynamic major today, or one it lacks (its module not loaded: no major to see).
 */
static bool other_device(const char *root, const struct gp_cfgline *c)
{
	char src[256], path[320];
	struct stat st;

	if (!gp_cfg_source(c, src, sizeof(src)) || !starts_with(src, "/dev/") ||
	    starts_with(src, "/dev/nvidia") ||
	    any_of(src, static_devices, GP_ARRAY_SIZE(static_devices), true))
		return false;
	host_source(root, src, path, sizeof(path));
	return lstat(path, &st) < 0 || (S_ISCHR(st.st_mode) && dynamic_major(major(st.st_rdev)));
}

static void note_privilege(struct gp_recipe *r, const struct gp_cfgline *c)
{
	if (c->pending)
		return; /* what today's start does */
	if (strcmp(c->key, "lxc.idmap") == 0 ||
	    (strcmp(c->key, "unprivileged") == 0 && strcmp(c->value, "1") == 0))
		r->unprivileged = true;
	if (starts_with(c->key, "lxc.hook.") && strstr(c->value, "gpu-hook"))
		r->gpu_hook = true;
}

/* In the config's order (the second pass added its lines at the end). */
static int by_place(const void *a, const void *b)
{
	const struct gp_cfgline *x = ((const struct gp_recipe_line *)a)->cfg,
				*y = ((const struct gp_recipe_line *)b)->cfg;

	return x < y ? -1 : x > y;
}

static void classify_all(const char *root, const struct gp_host *host, const char *applied,
			 struct gp_recipe *r)
{
	bool evidence = false, hook = false;
	struct gp_recipe_line l;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < r->cfg->n; i++) {
			const struct gp_cfgline *c = &r->cfg->v[i];
			bool first;

			if (r->n == GP_RECIPE_MAX) {
				r->left_out++;
				continue;
			}
			if (pass == 0) {
				note_privilege(r, c);
				r->other_devices |= !c->pending && other_device(root, c);
			}
			if (is_ours(c, applied))
				continue;
			l = (struct gp_recipe_line){ .cfg = c, .gpu_minor = -1 };
			first = classify_first(root, host, c, &l);
			if (pass == 0 && first) {
				evidence |=
				    l.kind != GP_RECIPE_OPEN_ALL && l.kind != GP_RECIPE_UNSURE;
				hook |= l.kind == GP_RECIPE_HOOK;
				r->v[r->n++] = l;
			} else if (pass == 1 && !first && classify_second(r, c, evidence, &l)) {
				r->v[r->n++] = l;
			}
		}
	}
	qsort(r->v, r->n, sizeof(r->v[0]), by_place);
	for (size_t i = 0; i < r->n; i++) {
		struct gp_recipe_line *x = &r->v[i];

		if (x->kind == GP_RECIPE_BIND || x->kind == GP_RECIPE_DEVN)
			x->node_exists = node_exists(x->source);
		decide_removal(r, x, hook);
	}
}

int gp_recipe_read(const char *root, const struct gp_host *host, const char *path, bool pve_config,
		   const char *applied, struct gp_recipe *r)
{
	_cleanup_free_ char *devices = NULL;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = gp_cfglines_read(path, pve_config, &r->cfg);
	if (ret < 0)
		return ret;
	if (gp_read_file_at(root, "/proc/devices", sizeof(r->devices) - 1, &devices, NULL) == 0)
		snprintf(r->devices, sizeof(r->devices), "%s", devices);
	classify_all(root, host, applied, r);
	r->left_out += r->cfg->left_out;
	return 0;
}

void gp_recipe_free(struct gp_recipe *r)
{
	free(r->cfg);
	r->cfg = NULL;
}

bool gp_recipe_gives_nodes(const struct gp_recipe_line *l)
{
	return l->kind == GP_RECIPE_BIND || l->kind == GP_RECIPE_DEVN ||
	       l->kind == GP_RECIPE_RULE || l->kind == GP_RECIPE_HOOK;
}

bool gp_recipe_gives_now(const struct gp_recipe_line *l)
{
	return (gp_recipe_gives_nodes(l) || l->in_the_way) && !l->cfg->pending;
}

void gp_recipe_where(const struct gp_recipe *r, const struct gp_recipe_line *l, char *out,
		     size_t size)
{
	snprintf(out, size, "%s:%u%s", gp_cfgline_file(r->cfg, l->cfg), l->cfg->line,
		 l->cfg->pending ? " (pending)" : "");
}

static int gpu_by_minor(const struct gp_host *host, unsigned int minor)
{
	for (size_t i = 0; i < host->ngpus; i++)
		if (host->gpus[i].minor == minor)
			return (int)i;
	return -1;
}

static int gpu_by_word(const struct gp_host *host, const char *word)
{
	unsigned int index;

	for (size_t i = 0; i < host->ngpus; i++)
		if (strcasecmp(host->gpus[i].uuid, word) == 0 ||
		    (gp_parse_uint(word, &index) == 0 && host->gpus[i].index == (int)index))
			return (int)i;
	return -1;
}

/* NVIDIA_VISIBLE_DEVICES=all | none | void | 0,1 | GPU-uuid,... */
static int choose_visible(const struct gp_recipe *r, const struct gp_recipe_line *l,
			  const struct gp_host *host, bool chosen[GP_MAX_GPUS], bool *every)
{
	const char *v = l->cfg->value + strlen("NVIDIA_VISIBLE_DEVICES=");
	char copy[512], where[PATH_MAX + 32];

	if (strcmp(v, "all") == 0) {
		*every = true;
		return 0;
	}
	snprintf(copy, sizeof(copy), "%s", v);
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		int g = gpu_by_word(host, gp_strtrim(t));

		if (strcmp(t, "none") == 0 || strcmp(t, "void") == 0)
			continue;
		if (g < 0) {
			gp_recipe_where(r, l, where, sizeof(where));
			gp_error("%s: NVIDIA_VISIBLE_DEVICES names \"%s\", which is no GPU of "
				 "this host: give --gpus",
				 where, t);
			return -GP_EBADCONF;
		}
		chosen[g] = true;
	}
	return 0;
}

static int choose_node(const struct gp_recipe *r, const struct gp_recipe_line *l,
		       const struct gp_host *host, bool chosen[GP_MAX_GPUS])
{
	char where[PATH_MAX + 32];
	int g;

	if (l->gpu_minor < 0)
		return 0; /* nvidiactl, nvidia-uvm: every GPU needs them */
	g = gpu_by_minor(host, (unsigned int)l->gpu_minor);
	if (g < 0) {
		gp_recipe_where(r, l, where, sizeof(where));
		gp_error("%s gives /dev/%s, which no GPU of this host has today: give --gpus",
			 where, l->node);
		return -GP_EBADCONF;
	}
	chosen[g] = true;
	return 0;
}

/*
 * "all" only where the recipe said all (NVIDIA_VISIBLE_DEVICES=all): binds of every GPU
 * the host has today are those GPUs, not the ones it may have tomorrow.
 */
static int format_selection(const struct gp_host *host, const bool chosen[GP_MAX_GPUS], bool every,
			    char *out, size_t size)
{
	size_t n = 0, len = 0;

	if (every) {
		snprintf(out, size, "all");
		return 0;
	}
	for (size_t i = 0; i < host->ngpus; i++)
		n += chosen[i];
	if (n == 0)
		return -ENOENT;
	out[0] = '\0';
	for (int index = 0; index < GP_MAX_GPUS; index++)
		for (size_t i = 0; i < host->ngpus; i++)
			if (chosen[i] && host->gpus[i].index == index && len < size)
				len += (size_t)snprintf(out + len, size - len, "%s%d",
							len ? "," : "", index);
	return 0;
}

bool gp_recipe_env_read(const struct gp_cfglines *cfg)
{
	for (size_t i = 0; i < cfg->n; i++) {
		const struct gp_cfgline *l = &cfg->v[i];

		if (strncmp(l->key, "lxc.hook.", 9) == 0 && !l->pending &&
		    (strstr(l->value, "/hooks/nvidia") ||
		     strstr(l->value, "NVIDIA_VISIBLE_DEVICES") ||
		     strstr(l->value, "NVIDIA_DRIVER_CAPABILITIES")))
			return true;
	}
	return false;
}

int gp_recipe_selection(const struct gp_recipe *r, const struct gp_host *host, char *out,
			size_t size)
{
	bool chosen[GP_MAX_GPUS] = { false }, every = false;
	int ret = 0;

	for (size_t i = 0; i < r->n && ret == 0; i++) {
		const struct gp_recipe_line *l = &r->v[i];

		if (l->cfg->pending)
			continue;
		if (l->kind == GP_RECIPE_BIND || l->kind == GP_RECIPE_DEVN)
			ret = choose_node(r, l, host, chosen);
		else if (l->kind == GP_RECIPE_ENV && l->removable &&
			 starts_with(l->cfg->value, "NVIDIA_VISIBLE_DEVICES="))
			ret = choose_visible(r, l, host, chosen, &every); /* what the hook gave */
	}
	return ret < 0 ? ret : format_selection(host, chosen, every, out, size);
}
