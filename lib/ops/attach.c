/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* attach and detach: the ini, and the container's config (plain LXC or Proxmox VE). */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "base/ctx.h"
#include "base/paths.h"
#include "base/quorum.h"
#include "base/trust.h"
#include "base/util.h"
#include "cluster/cluster.h"
#include "config/applied.h"
#include "config/ini.h"
#include "config/lxcconf.h"
#include "config/pveconf.h"
#include "driver/runtime.h"
#include "host/host.h"
#include "ops/attach.h"
#include "ops/nesting.h"
#include "ops/takeover.h"
#include "ops/target.h"
#include "plan/cgroup.h"
#include "plan/plan.h"
#include "plan/planner.h"
#include "plan/select.h"

#define MAX_LINES (GP_PLAN_MAX_NODES + 8)
/* .applied may hold an earlier attach's lines and a failed one's (apply says why). */
#define LINES_CAP (4 * MAX_LINES)

struct lines {
	char *v[LINES_CAP];
	size_t n;
};

static void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	l->n = 0;
}

#define _cleanup_lines_ __attribute__((cleanup(lines_free)))

/* Adds the line a followed by b. */
static int lines_add(struct lines *l, const char *a, const char *b)
{
	if (l->n == LINES_CAP || asprintf(&l->v[l->n], "%s%s", a, b) < 0)
		return -ENOMEM;
	l->n++;
	return 0;
}

static bool lines_have(const struct lines *l, const char *line);

/*
 * One attach or detach at a time per confdir: the second waits for the first, so two
 * edits of one container never interleave. Returns the lock's fd or -errno.
 */
static int lock_confdir(const char *confdir)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;

	if (mkdir(confdir, 0755) < 0 && errno != EEXIST)
		return gp_error_errno(-errno, "Failed to create \"%s\"", confdir);
	if (asprintf(&path, "%s/.lock", confdir) < 0)
		return -ENOMEM;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0)
		return gp_error_errno(-errno, "Failed to lock \"%s\"", path);
	return steal_fd(fd);
}

static int hook_command(const struct gp_attach_opts *o, char **out)
{
	char hook[PATH_MAX];
	const char *words[] = { hook, o->ctx->confdir, o->ctx->root ? o->ctx->root : "/" };
	int r = gp_trust_program(o->hook, hook, sizeof(hook));

	if (r < 0)
		return r;

	for (size_t i = 0; i < GP_ARRAY_SIZE(words); i++) {
		if (words[i][0] != '/' || !gp_shell_word_is_safe(words[i])) {
			gp_error("\"%s\" cannot go into an LXC hook line: use an absolute path of "
				 "letters, digits and / . _ - + : @ only",
				 words[i]);
			return -GP_EBADCONF;
		}
	}
	if (o->ctx->root &&
	    asprintf(out, "%s --root %s --confdir %s", hook, o->ctx->root, o->ctx->confdir) >= 0)
		return 0;
	if (!o->ctx->root && asprintf(out, "%s --confdir %s", hook, o->ctx->confdir) >= 0)
		return 0;
	return -ENOMEM;
}

/* The lines a previous attach added, so that they can be taken out again. */
static int read_applied(const struct gp_attach_opts *o, struct lines *l)
{
	_cleanup_free_ char *path = gp_applied_path_to_read(o->ctx, o->name);
	_cleanup_free_ char *buf = NULL;
	char *save = NULL;
	int r = path ? gp_applied_read(o->ctx, path, &buf) : -ENOMEM;

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	for (char *t = r == 0 ? strtok_r(buf, "\n", &save) : NULL; t;
	     t = strtok_r(NULL, "\n", &save))
		if ((r = lines_add(l, t, "")) < 0)
			break;
	return r;
}

static int write_applied(const struct gp_attach_opts *o, const struct lines *l)
{
	struct gp_buf b = { 0 };
	int r = gp_buf_printf(&b, "%s", "");

	for (size_t i = 0; i < l->n && r == 0; i++)
		r = gp_buf_printf(&b, "%s\n", l->v[i]);
	if (r == 0)
		r = gp_applied_write(o->ctx, o->name, b.data, b.len);
	gp_buf_free(&b);
	return r;
}

/* On Proxmox VE the ini and .applied moved into the cluster filesystem: a node's copies go. */
static void drop_node_local(const struct gp_attach_opts *o)
{
	char *pairs[2][2] = {
		{ gp_ini_path(o->ctx, o->name), gp_local_ini_path(o->ctx->confdir, o->name) },
		{ gp_applied_path(o->ctx, o->name),
		  gp_local_applied_path(o->ctx->confdir, o->name) },
	};

	for (size_t i = 0; i < 2; i++) {
		const char *moved = pairs[i][0], *local = pairs[i][1];

		if (moved && local && strcmp(moved, local) != 0 && unlink(local) < 0 &&
		    errno != ENOENT)
			gp_warn("%s moved to %s, but the old copy stays: %s; remove it", local,
				moved, gp_strerror(errno));
		free(pairs[i][0]);
		free(pairs[i][1]);
	}
}

/*
 * [driver]: what the command line says; for a new ini, inject unless the host's
 * gpu-provision.conf decides it, or the mode runs no hook.
 */
static int choose_injection(const struct gp_attach_opts *o, bool is_new, struct gp_ini *conf)
{
	bool devn = strcmp(conf->mode, "devn") == 0;
	struct gp_ini host;
	int r = 0;

	if (o->inject)
		r = gp_ini_set(conf, "driver", "inject", o->inject > 0 ? "yes" : "no", "--inject");
	else if (is_new && devn)
		r = gp_ini_set(conf, "driver", "inject", "no", "--mode devn");
	else if (is_new && o->adopt) /* the recipe's container brought its own driver */
		r = gp_ini_set(conf, "driver", "inject", "no", "adopt");
	else if (is_new && gp_hostconf_load(o->ctx, &host) == 0 && !host.inject_set)
		r = gp_ini_set(conf, "driver", "inject", "yes", "attach");
	if (r == 0 && o->capabilities)
		r = gp_ini_set(conf, "driver", "capabilities", o->capabilities, "--capabilities");
	if (r == 0 && devn && conf->inject == GP_INJECT_YES) {
		gp_error("mode devn runs no hook at start, so nothing can give the container the "
			 "driver's user space: use --mode hook, or --no-inject");
		r = -GP_EBADCONF;
	}
	return r;
}

static int resolve(const struct gp_attach_opts *o, struct gp_ini *conf, struct gp_plan *plan)
{
	bool is_new;
	struct gp_host host;
	int r;

	/* Keep the ini's other keys; --gpus and --caps replace only the selection. */
	r = gp_ini_load(o->ctx, o->name, conf);
	if (r == -ENOENT && !o->gpus)
		gp_error("\"%s\" has no ini yet: give --gpus", o->name);
	if (r < 0 && (r != -ENOENT || !o->gpus))
		return -GP_EBADCONF;
	is_new = r == -ENOENT;
	if (is_new) {
		_cleanup_free_ char *path = gp_ini_path(o->ctx, o->name);

		gp_ini_init(conf);
		snprintf(conf->path, sizeof(conf->path), "%s", path ? path : "");
	}
	if (o->gpus) {
		snprintf(conf->devices, sizeof(conf->devices), "%s", o->gpus);
		snprintf(conf->caps, sizeof(conf->caps), "%s", o->caps ? o->caps : "");
	}
	if (o->mode)
		snprintf(conf->mode, sizeof(conf->mode), "%s", o->mode);
	if (choose_injection(o, is_new, conf) < 0)
		return -GP_EBADCONF;
	r = gp_host_read(o->ctx->root, conf->caps[0] ? GP_HOST_MIG : 0, &host);
	if (r < 0)
		return r;
	r = gp_plan_for_conf(o->ctx->root, &host, conf, GP_WHERE_NONE, NULL, plan);
	gp_host_free(&host);
	/* Before anything is written, and for --dry-run too: the hook must read it back. */
	return r < 0 ? r : gp_ini_check_readable(conf);
}

static int key_line(struct lines *l, const struct gp_target *t, const char *key, const char *value)
{
	char k[96];

	snprintf(k, sizeof(k), "%s%s", key, t->sep);
	return lines_add(l, k, value);
}

/* One device rule line, "c M:m rwm", under the layout's key; a rule there already stays one. */
static int rule_line(struct lines *l, const struct gp_target *t, unsigned int major,
		     unsigned int minor)
{
	char key[96], rule[64], line[160];

	snprintf(key, sizeof(key), "%s.allow%s", t->rules, t->sep);
	snprintf(rule, sizeof(rule), "c %u:%u rwm", major, minor);
	snprintf(line, sizeof(line), "%s%s", key, rule);
	return lines_have(l, line) ? 0 : lines_add(l, key, rule);
}

/* Which of a node's majors a device node of the plan has. */
enum major_kind { MAJOR_NVIDIA, MAJOR_UVM, MAJOR_CAPS };

static enum major_kind kind_of(const char *node)
{
	if (strncmp(node, "nvidia-uvm", 10) == 0)
		return MAJOR_UVM;
	if (strncmp(node, "nvidia-caps/", 12) == 0)
		return MAJOR_CAPS;
	return MAJOR_NVIDIA;
}

static unsigned int major_of(const struct gp_node_inv *inv, enum major_kind k)
{
	if (k == MAJOR_UVM)
		return inv->major_uvm;
	if (k == MAJOR_CAPS)
		return inv->major_caps;
	return inv->major_nvidia ? inv->major_nvidia : GP_MAJOR_NVIDIA;
}

/* The first node whose published majors give major to another device than kind's, or NULL. */
static const char *clash_node(const struct gp_cluster *c, enum major_kind k, unsigned int major)
{
	for (size_t i = 0; i < c->nnodes; i++) {
		const struct gp_node_inv *inv = c->nodes[i].inv;

		if (inv && gp_major_set_has(&inv->registered_majors, major) &&
		    major_of(inv, k) != major)
			return c->nodes[i].name;
	}
	return NULL;
}

/*
 * Node owner's rule for its /dev/dev, unless some node of the cluster c (NULL: none) has
 * another device at that major: another driver's, or another of NVIDIA's (their majors are
 * as dynamic). The rule would open it there, a mknod away in a privileged container, so the
 * container goes without it and cannot start on owner.
 */
static int node_rule(const struct gp_target *t, const struct gp_cluster *c, const char *owner,
		     const char *dev, unsigned int major, unsigned int minor, struct lines *l)
{
	const char *clash = c ? clash_node(c, kind_of(dev), major) : NULL;

	if (!clash)
		return rule_line(l, t, major, minor);
	gp_warn("no rule for node %s's /dev/%s (major %u): on node %s that major is another "
		"device's, which the rule would open there; the container will not start on %s "
		"with its GPUs. Load NVIDIA's modules at the same point of boot on every node "
		"(gpu-provision prepare --persist) so that their majors agree, then "
		"gpu-provision sync",
		owner, dev, major, clash, owner);
	return 0;
}

/* The rules one published node needs: its own dynamic majors, a portable selection's GPUs. */
static int node_rules(const struct gp_target *t, const struct gp_ini *conf,
		      const struct gp_plan *plan, const struct gp_cluster *c,
		      const struct gp_node_inv *inv, struct lines *l)
{
	struct gp_portable p;
	char dev[32];
	int r = 0;

	for (size_t i = 0; i < plan->n && r == 0; i++) {
		const char *name = plan->nodes[i].name;
		enum major_kind k = kind_of(name);

		if (k != MAJOR_NVIDIA && major_of(inv, k))
			r = node_rule(t, c, inv->node, name, major_of(inv, k), plan->nodes[i].minor,
				      l);
	}
	if (!gp_selection_is_portable(conf->devices) ||
	    gp_portable_parse(conf->devices, NULL, &p) < 0)
		return r;
	for (size_t i = 0; i < inv->ngpus && r == 0; i++) {
		if (!gp_portable_matches(&p, &inv->gpus[i]))
			continue;
		snprintf(dev, sizeof(dev), "nvidia%u", inv->gpus[i].minor);
		r = node_rule(t, c, inv->node, dev, major_of(inv, MAJOR_NVIDIA), inv->gpus[i].minor,
			      l);
	}
	return r;
}

/* The cluster this node is part of, or NULL (off Proxmox VE, or none to read). */
static struct gp_cluster *read_cluster(const struct gp_attach_opts *o, const struct gp_target *t)
{
	struct gp_cluster *c = t->kind == GP_TARGET_PVE ? malloc(sizeof(*c)) : NULL;

	if (c && gp_cluster_read(o->ctx, c) < 0) {
		free(c);
		return NULL;
	}
	return c;
}

/*
 * The rules of this node's plan; on Proxmox VE also those of every node that published
 * what it has (gpu-provision prepare there): the config follows the container to any node
 * and raw rules are not made anew there, the majors of nvidia-uvm and nvidia-caps are each
 * node's own (dynamic), and a portable selection may get another node's GPUs. Each rule
 * once, and none that opens another device on some node.
 */
static int device_rules(const struct gp_attach_opts *o, const struct gp_target *t,
			const struct gp_ini *conf, const struct gp_plan *plan, struct lines *l)
{
	struct gp_cluster *c = read_cluster(o, t);
	int r = 0;

	for (size_t i = 0; i < plan->n && r == 0; i++)
		r = node_rule(t, c, c ? c->self : "this", plan->nodes[i].name, plan->nodes[i].major,
			      plan->nodes[i].minor, l);
	for (size_t i = 0; c && i < c->nnodes && r == 0; i++)
		if (c->nodes[i].inv)
			r = node_rules(t, conf, plan, c, c->nodes[i].inv, l);
	if (c)
		gp_cluster_free(c);
	free(c);
	return r;
}

/* The hook lines and one device rule per node: "lxc.cgroup2.devices.allow = c 195:0 rwm". */
static int hook_lines(const struct gp_attach_opts *o, const struct gp_target *t,
		      const struct gp_ini *conf, const struct gp_plan *plan, struct lines *l)
{
	_cleanup_free_ char *cmd = NULL;
	int r = hook_command(o, &cmd);

	if (r == 0)
		r = key_line(l, t, "lxc.hook.pre-start", cmd);
	if (r == 0)
		r = key_line(l, t, t->autodev ? "lxc.hook.autodev" : "lxc.hook.mount", cmd);
	if (r == 0)
		r = key_line(l, t, "lxc.hook.post-stop", cmd);
	if (r == 0)
		r = device_rules(o, t, conf, plan, l);
	return r;
}

/* Proxmox 8.1+ devN entries: Proxmox binds each node and allows it in the cgroup. */
static int devn_lines(const struct gp_target *t, const struct gp_plan *plan,
		      unsigned long long used, struct lines *l)
{
	unsigned int idx = 0;
	int r = 0;

	for (size_t i = 0; i < plan->n && r == 0; i++) {
		const struct gp_devnode *n = &plan->nodes[i];
		char key[16], value[160];
		int len;

		while (idx < 64 && (used & (1ULL << idx)))
			idx++;
		if (idx == 64)
			return -E2BIG;
		snprintf(key, sizeof(key), "dev%u", idx++);
		len = snprintf(value, sizeof(value), "/dev/%s,mode=%04o", n->name, n->mode);
		if (n->uid)
			len +=
			    snprintf(value + len, sizeof(value) - (size_t)len, ",uid=%u", n->uid);
		if (n->gid)
			snprintf(value + len, sizeof(value) - (size_t)len, ",gid=%u", n->gid);
		r = key_line(l, t, key, value);
	}
	return r;
}

static bool devn_mode(const char *mode)
{
	return strcmp(mode, "devn") == 0;
}

/* devN numbers the admin uses, not counting the ones a previous attach took. */
static unsigned long long admin_devs(const struct gp_target *t, const struct lines *old)
{
	unsigned long long used = t->pve_devs;

	for (size_t i = 0; i < old->n; i++) {
		unsigned int idx;

		if (sscanf(old->v[i], "dev%u:", &idx) == 1 && idx < 64)
			used &= ~(1ULL << idx);
	}
	return used;
}

static int wanted_lines(const struct gp_attach_opts *o, const struct gp_target *t,
			const struct gp_ini *conf, const struct gp_plan *plan,
			const struct lines *old, struct lines *add)
{
	if (devn_mode(conf->mode) && t->kind != GP_TARGET_PVE) {
		gp_error("mode devn is for Proxmox VE containers; plain LXC uses the hook");
		return -GP_EBADCONF;
	}
	if (devn_mode(conf->mode))
		return devn_lines(t, plan, admin_devs(t, old), add);
	return hook_lines(o, t, conf, plan, add);
}

/* devN entries need the nodes before Proxmox's own pre-start: the boot unit makes them. */
static void warn_devn_ordering(const struct gp_attach_opts *o)
{
	_cleanup_free_ char *unit =
	    gp_path(o->ctx->root,
		    "/etc/systemd/system/multi-user.target.wants/gpu-provision-prepare.service");

	if (unit && access(unit, F_OK) != 0)
		gp_warn("devN entries make Proxmox's pre-start fail when a node such as "
			"/dev/nvidia-uvm is missing (after a reboot): enable the boot unit with "
			"\"systemctl enable gpu-provision-prepare.service\", or use --mode hook");
}

/* The lines of the config, a record of .applied's aside (nesting.c says what it does). */
static void print_lines(const char *what, const struct lines *l, const char *config)
{
	for (size_t i = 0; i < l->n; i++)
		if (!gp_nesting_is_record(l->v[i]))
			printf("would %s %s: %s\n", what, config, l->v[i]);
}

static void print_dry_run(const struct gp_ini *conf, const struct lines *old,
			  const struct lines *add, const char *config)
{
	_cleanup_free_ char *ini = gp_ini_format(conf);

	printf("would write the ini:\n%s", ini ? ini : "");
	print_lines("remove from", old, config);
	print_lines("add to", add, config);
}

static char *read_ini_text(const struct gp_attach_opts *o)
{
	_cleanup_free_ char *path = gp_ini_path(o->ctx, o->name);
	char *buf = NULL;

	if (!path || gp_read_file(path, GP_INI_MAX_SIZE, &buf, NULL) < 0)
		return NULL;
	return buf;
}

/* Puts the ini back as it was before a failed attach: its old text, or no file. */
static void restore_ini(const struct gp_attach_opts *o, const char *old)
{
	_cleanup_free_ char *path = gp_ini_path(o->ctx, o->name);

	if (!path)
		return;
	if (old)
		gp_write_file_atomic(path, old, strlen(old), gp_container_file_mode(o->ctx),
				     GP_DURABLE);
	else
		unlink(path);
}

static bool lines_have(const struct lines *l, const char *line)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], line) == 0)
			return true;
	return false;
}

/* The lines of a, then those of b that a lacks. */
static int lines_union(const struct lines *a, const struct lines *b, struct lines *u)
{
	int r = 0;

	for (size_t i = 0; i < a->n && r == 0; i++)
		r = lines_add(u, a->v[i], "");
	for (size_t i = 0; i < b->n && r == 0; i++)
		if (!lines_have(a, b->v[i]))
			r = lines_add(u, b->v[i], "");
	return r;
}

/* The lines of l that go into the config: a record of .applied's is none (nesting.c). */
static size_t config_lines(const struct lines *l, const char **out)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++)
		if (!gp_nesting_is_record(l->v[i]))
			out[n++] = l->v[i];
	return n;
}

/* Takes remove out of the config and puts add and item in, in one edit. */
static int edit_config(const struct gp_target *t, const struct lines *remove,
		       const struct lines *add, const struct gp_pveconf_item *item)
{
	const char *out[LINES_CAP], *in[LINES_CAP];
	size_t nout = config_lines(remove, out), nin = config_lines(add, in);

	return gp_target_edit(t, out, nout, in, nin, item);
}

/* The ini, then the config; on failure the ini as it was. */
static int write_ini_and_config(const struct gp_attach_opts *o, const struct gp_target *t,
				const struct gp_ini *conf, const struct lines *remove,
				const struct lines *add, const struct gp_pveconf_item *item)
{
	_cleanup_free_ char *old_ini = read_ini_text(o);
	int r = gp_ini_save(o->ctx, o->name, conf);

	if (r < 0)
		return r;
	r = edit_config(t, remove, add, item);
	if (r < 0)
		restore_ini(o, old_ini); /* the config is as it was: so is the ini */
	return r;
}

/*
 * At every point .applied lists all that the config may hold of ours, so that detach
 * and the next attach can take it out whichever write fails: first the old lines and
 * the new, then the ini and the config, last the new lines alone.
 */
static int apply(const struct gp_attach_opts *o, const struct gp_target *t,
		 const struct gp_ini *conf, struct lines *old, struct lines *add,
		 const struct lines *recipe, const struct gp_pveconf_item *item)
{
	_cleanup_lines_ struct lines both = { 0 }, out = { 0 };
	int r, w;

	/* Take out the previous attach's lines and any copy of the new ones, then add. */
	r = lines_union(old, add, &both);
	if (r == 0)
		r = lines_union(&both, recipe, &out);
	if (r == 0)
		r = write_applied(o, &both);
	if (r < 0) {
		gp_error("nothing of \"%s\" was changed", t->config);
		return r;
	}
	r = write_ini_and_config(o, t, conf, &out, add, item);
	if (r < 0) {
		write_applied(o, old); /* the config holds the old lines still */
		return r;
	}
	w = write_applied(o, add);
	if (w < 0) {
		gp_error("\"%s\" was changed, but not the record of it: detach still takes out "
			 "what was added, with the previous attach's lines",
			 t->config);
		return w;
	}
	drop_node_local(o);
	return r;
}

/* Lines of a that b lacks. */
static size_t count_missing(const struct lines *a, const struct lines *b)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n; i++) {
		bool found = false;

		for (size_t j = 0; j < b->n && !found; j++)
			found = strcmp(a->v[i], b->v[j]) == 0;
		n += !found;
	}
	return n;
}

/* The .applied lines as text, for telling attach's own lines from a recipe's. */
static char *lines_text(const struct lines *l)
{
	struct gp_buf b = { 0 };
	int r = gp_buf_printf(&b, "%s", "");

	for (size_t i = 0; i < l->n && r == 0; i++)
		r = gp_buf_printf(&b, "%s\n", l->v[i]);
	if (r < 0)
		gp_buf_free(&b);
	return r < 0 ? NULL : b.data;
}

/* The recipe's lines: refused for attach; for adopt, taken out, and their GPUs given. */
static int take_over(const struct gp_attach_opts *o, const struct gp_target *t,
		     const struct lines *old, struct gp_takeover *tk, struct lines *recipe)
{
	_cleanup_free_ char *applied = lines_text(old);
	int r;

	if (o->assume_new)
		return 0; /* create --dry-run: no config yet, no recipe in it */
	if (!applied)
		return -ENOMEM;
	r = gp_takeover_read(o, t->config, t->kind == GP_TARGET_PVE, applied, tk);
	for (size_t i = 0; i < tk->nremove && r == 0; i++)
		r = lines_add(recipe, tk->remove[i], "");
	return r;
}

struct attach_run {
	struct gp_target t;
	struct gp_ini conf;
	struct gp_plan plan;
	struct lines old, add, recipe;
	struct gp_takeover tk;
	struct gp_nesting nest;
};

static void attach_run_free(struct attach_run *a)
{
	lines_free(&a->old);
	lines_free(&a->add);
	lines_free(&a->recipe);
	gp_takeover_free(&a->tk);
}

/* Everything attach decides before it writes: the lines out and in, the ini. */
static int plan_attach(const struct gp_attach_opts *o, struct attach_run *a)
{
	struct gp_attach_opts with = *o;
	int r = gp_target_open(o, &a->t);

	if (r == 0)
		r = read_applied(o, &a->old);
	if (r == 0)
		r = take_over(o, &a->t, &a->old, &a->tk, &a->recipe);
	if (r == 0 && o->adopt && !o->gpus && a->tk.gpus[0])
		with.gpus = a->tk.gpus;
	if (r == 0 && o->adopt && !o->capabilities && a->tk.capabilities[0])
		with.capabilities = a->tk.capabilities;
	/* The recipe's hook gave the host's driver user space: gpu-hook goes on giving it. */
	if (r == 0 && o->adopt && !o->inject && a->tk.inject)
		with.inject = 1;
	if (r == 0)
		r = resolve(&with, &a->conf, &a->plan);
	if (r == 0)
		r = wanted_lines(o, &a->t, &a->conf, &a->plan, &a->old, &a->add);
	if (r == 0)
		r = gp_nesting_plan(o, &a->t, (const char *const *)a->old.v, a->old.n, &a->nest);
	for (size_t i = 0; r == 0 && i < GP_ARRAY_SIZE(a->nest.record); i++)
		if (a->nest.record[i][0])
			r = lines_add(&a->add, a->nest.record[i], "");
	return r;
}

/* A line as "key = value", whatever the spacing around its "=". */
static void line_normal(const char *line, char *out, size_t size)
{
	char copy[1024], *key, *value;

	snprintf(copy, sizeof(copy), "%s", line);
	if (gp_lxcconf_split(copy, &key, &value))
		snprintf(out, size, "%s = %s", key, value);
	else
		snprintf(out, size, "%s", line);
}

/* The first lxc.cgroup.* line of a config that the edit keeps (not in gone), and where. */
struct v1_kept {
	const struct lines *gone[2];
	char at[PATH_MAX + 16];
	char line[1024];
};

static bool gone_with_edit(const struct v1_kept *v, const char *text)
{
	char normal[1024];

	for (size_t k = 0; k < GP_ARRAY_SIZE(v->gone); k++)
		for (size_t i = 0; i < v->gone[k]->n; i++) {
			line_normal(v->gone[k]->v[i], normal, sizeof(normal));
			if (strcmp(normal, text) == 0)
				return true;
		}
	return false;
}

static int find_v1_kept(const char *key, const char *value, const char *file, unsigned int line,
			void *user)
{
	struct v1_kept *v = user;

	if (strncmp(key, "lxc.cgroup.", 11) != 0)
		return 0;
	snprintf(v->line, sizeof(v->line), "%s = %s", key, value);
	if (gone_with_edit(v, v->line))
		return 0;
	snprintf(v->at, sizeof(v->at), "%s:%u", file, line);
	return 1;
}

/*
 * LXC 7 loads no config with an lxc.cgroup.* line: where the edit would keep one (no line of
 * ours, none of a recipe's NVIDIA lines), the container could not start after it either,
 * and the edit is refused before anything is written.
 */
static int refuse_v1_kept(const struct gp_attach_opts *o, const struct attach_run *a)
{
	struct v1_kept v = { .gone = { &a->old, &a->recipe } };

	if (o->rt->lxc_major < GP_LXC_V2_ONLY || a->t.kind != GP_TARGET_LXC ||
	    gp_lxcconf_walk(a->t.config, find_v1_kept, &v) != 1)
		return 0;
	gp_error(
	    "%s: \"%s\": LXC %s loads no config with an lxc.cgroup.* key, and this one is "
	    "none of NVIDIA's: write it as lxc.cgroup2.* (or take it out), then run this again",
	    v.at, v.line, o->rt->lxc);
	return -GP_EBADCONF;
}

static int attach_planned(const struct gp_attach_opts *o, struct attach_run *a,
			  struct gp_attach_changes *changes)
{
	int r;

	changes->removed = count_missing(&a->old, &a->add) + a->recipe.n;
	changes->added = count_missing(&a->add, &a->old);
	if (o->dry_run && !o->adopt)
		print_dry_run(&a->conf, &a->old, &a->add, a->t.config);
	if (o->dry_run) {
		gp_nesting_say(&a->nest, a->t.config, true);
		return 0;
	}
	r = apply(o, &a->t, &a->conf, &a->old, &a->add, &a->recipe, gp_nesting_item(&a->nest));
	if (r < 0)
		return r;
	gp_nesting_say(&a->nest, a->t.config, false);
	changes->changed = r > 0;
	if (devn_mode(a->conf.mode))
		warn_devn_ordering(o);
	if (!o->quiet)
		printf("attached %s: %zu nodes (%s)%s\n", o->name, a->plan.n, a->conf.devices,
		       a->t.running ? "; takes effect at the next start" : "");
	return gp_target_verify(o, &a->t, a->add.v[0], true);
}

/* adopt --dry-run: the config's lines out and in, as a diff, and the ini it would write. */
static void adopt_print_diff(const struct gp_attach_opts *o, const struct attach_run *a)
{
	_cleanup_free_ char *ini = gp_ini_format(&a->conf);

	printf("adopt %s: GPUs %s (%s)\n", o->name, a->conf.devices,
	       o->gpus	       ? "--gpus"
	       : a->tk.gpus[0] ? "the GPUs its lines gave"
			       : "its ini's");
	printf("%s", a->tk.mapping);
	printf("--- %s\n+++ %s (adopted)\n", a->t.config, a->t.config);
	for (size_t i = 0; i < a->recipe.n; i++)
		printf("-%s\n", a->recipe.v[i]);
	for (size_t i = 0; i < a->old.n; i++)
		if (!lines_have(&a->add, a->old.v[i]) && !gp_nesting_is_record(a->old.v[i]))
			printf("-%s\n", a->old.v[i]);
	for (size_t i = 0; i < a->add.n; i++)
		if (!gp_nesting_is_record(a->add.v[i]))
			printf("+%s\n", a->add.v[i]);
	gp_nesting_say(&a->nest, a->t.config, true);
	printf("would write %s:\n%s", a->conf.path, ini ? ini : "");
	gp_takeover_print_left(&a->tk, stdout);
}

/*
 * The config as this edit read it (the .gpu-provision.bak it just wrote, under the confdir
 * lock), kept as <config>.gpu-provision-adopt.bak, or .1 to .9 beside an earlier one: a
 * later attach overwrites .gpu-provision.bak, never these. The config's own mode.
 */
static int keep_before(const char *config, size_t max, char **kept)
{
	_cleanup_free_ char *bak = NULL, *text = NULL;
	struct stat st;
	size_t len;
	int r = asprintf(&bak, "%s.gpu-provision.bak", config) < 0 ? -ENOMEM : 0;

	if (r == 0)
		r = gp_read_file(bak, max, &text, &len);
	if (r == 0 && stat(config, &st) < 0)
		r = -errno;
	for (int i = 0; r == 0 && i < 10; i++) {
		free(*kept);
		if ((i ? asprintf(kept, "%s.gpu-provision-adopt.bak.%d", config, i)
		       : asprintf(kept, "%s.gpu-provision-adopt.bak", config)) < 0) {
			*kept = NULL;
			return -ENOMEM;
		}
		r = gp_write_file_new(*kept, text, len, st.st_mode & 0777);
		if (r != -EEXIST)
			return r;
		r = 0;
	}
	return r < 0 ? r : -EEXIST;
}

static int adopt_finish(const struct gp_attach_opts *o, const struct attach_run *a)
{
	_cleanup_free_ char *kept = NULL;
	int r = 0;

	if (a->recipe.n)
		r = keep_before(a->t.config,
				a->t.kind == GP_TARGET_PVE ? GP_PVE_CONFIG_MAX : GP_LXC_CONFIG_MAX,
				&kept);
	if (r < 0)
		return gp_error_errno(r,
				      "adopted %s, but could not keep the config as it was before "
				      "(%s.gpu-provision.bak holds it until the next edit)",
				      o->name, a->t.config);
	printf("adopted %s: %zu recipe line(s) out, gpu-hook gives GPUs %s%s", o->name, a->recipe.n,
	       a->conf.devices, a->t.running ? " from the next start" : "");
	if (kept)
		printf("; the config before is kept as %s\n", kept);
	else
		printf("; no line of a recipe was there to take out\n");
	if (a->conf.inject != GP_INJECT_YES)
		printf("the container keeps its own driver user space (inject = no): gpu-provision "
		       "check %s says whether it matches the host; attach %s --inject gives the "
		       "host's\n",
		       o->name, o->name);
	gp_takeover_print_left(&a->tk, stdout);
	return 0;
}

int gp_adopt(const struct gp_attach_opts *o)
{
	struct gp_attach_opts with = *o;

	with.adopt = true;
	with.quiet = true;
	return gp_attach(&with, NULL);
}

int gp_attach(const struct gp_attach_opts *o, struct gp_attach_changes *changes)
{
	struct gp_attach_changes unused;
	_cleanup_close_ int lock = o->dry_run ? -1 : lock_confdir(o->ctx->confdir);
	struct attach_run *a = calloc(1, sizeof(*a));
	int r;

	if (!changes)
		changes = &unused;
	memset(changes, 0, sizeof(*changes));
	if (!a)
		return -ENOMEM;
	r = gp_runtime_can_start(o->rt);
	if (r == 0)
		r = lock < 0 && !o->dry_run ? -EIO : plan_attach(o, a);
	if (r == 0)
		r = refuse_v1_kept(o, a);
	if (r == 0 && o->adopt && o->dry_run)
		adopt_print_diff(o, a);
	if (r == 0)
		r = attach_planned(o, a, changes);
	if (r == 0 && o->adopt && !o->dry_run)
		r = adopt_finish(o, a);
	attach_run_free(a);
	free(a);
	return r;
}

/* Removes both files; one already gone is no error. */
static int remove_files(const char *a, const char *b)
{
	const char *failed = unlink(a) < 0 && errno != ENOENT	? a
			     : unlink(b) < 0 && errno != ENOENT ? b
								: NULL;
	int r = -errno;

	if (!failed)
		return 0;
	return gp_error_errno(r, "Failed to remove \"%s\"%s%s", failed,
			      *gp_pve_write_refused(failed, r) ? ": " : "",
			      gp_pve_write_refused(failed, r));
}

int gp_detach(const struct gp_attach_opts *o)
{
	_cleanup_close_ int lock = o->dry_run ? -1 : lock_confdir(o->ctx->confdir);
	_cleanup_lines_ struct lines old = { 0 };
	_cleanup_free_ char *ini = gp_ini_path(o->ctx, o->name);
	_cleanup_free_ char *applied = gp_applied_path(o->ctx, o->name);
	_cleanup_free_ char *local_ini = gp_local_ini_path(o->ctx->confdir, o->name);
	_cleanup_free_ char *local_applied = gp_local_applied_path(o->ctx->confdir, o->name);
	_cleanup_lines_ struct lines none = { 0 };
	struct gp_nesting nest;
	struct gp_target t;
	int r;

	if (lock < 0 && !o->dry_run)
		return -EIO;
	r = gp_target_open(o, &t);
	if (r == 0)
		r = read_applied(o, &old);
	if (r < 0 || !applied || !ini || !local_ini || !local_applied)
		return r < 0 ? r : -ENOMEM;
	gp_nesting_undo(&t, (const char *const *)old.v, old.n, &nest);
	if (o->dry_run) {
		print_lines("remove from", &old, t.config);
		gp_nesting_say(&nest, t.config, true);
		printf("would remove %s and %s\n", ini, applied);
		return 0;
	}
	r = edit_config(&t, &old, &none, gp_nesting_item(&nest));
	if (r < 0)
		return r;
	gp_nesting_say(&nest, t.config, false);
	if (remove_files(applied, ini) < 0 || remove_files(local_applied, local_ini) < 0)
		return -EIO;
	printf("detached %s%s\n", o->name, old.n == 0 ? " (nothing was attached)" : "");
	return old.n ? gp_target_verify(o, &t, old.v[0], false) : 0;
}
