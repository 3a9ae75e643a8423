/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* attach and detach for plain LXC containers, through liblxc. */
#include <fcntl.h>
#include <lxc/lxccontainer.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "attach.h"
#include "cgroup.h"
#include "ctconf.h"
#include "host.h"
#include "lxcconf.h"
#include "plan.h"
#include "util.h"

#define MAX_LINES (GP_PLAN_MAX_NODES + 8)

struct lines {
	char *v[MAX_LINES];
	size_t n;
};

static void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	l->n = 0;
}

static void lxc_putp(struct lxc_container **c)
{
	if (*c)
		lxc_container_put(*c);
}
#define _cleanup_lxc_ __attribute__((cleanup(lxc_putp)))
#define _cleanup_lines_ __attribute__((cleanup(lines_free)))

/* Adds the line a followed by b. */
static int lines_add(struct lines *l, const char *a, const char *b)
{
	if (l->n == MAX_LINES || asprintf(&l->v[l->n], "%s%s", a, b) < 0)
		return -ENOMEM;
	l->n++;
	return 0;
}

/*
 * One attach or detach at a time per confdir: the second waits for the first, so two
 * edits of one container never interleave. Returns the lock's fd or -errno.
 */
static int lock_confdir(const char *confdir)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;

	if (mkdir(confdir, 0755) < 0 && errno != EEXIST) {
		gp_error("Failed to create \"%s\": %s", confdir, strerror(errno));
		return -errno;
	}
	if (asprintf(&path, "%s/.lock", confdir) < 0)
		return -ENOMEM;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		gp_error("Failed to lock \"%s\": %s", path, strerror(errno));
		return -errno;
	}
	return steal_fd(fd);
}

static struct lxc_container *open_container(const struct gp_attach_opts *o)
{
	struct lxc_container *c = lxc_container_new(o->name, o->lxcpath);

	if (!c) {
		gp_error("Failed to open container \"%s\" through liblxc", o->name);
		return NULL;
	}
	if (!c->is_defined(c)) {
		gp_error("no container \"%s\" in \"%s\": create it first (lxc-create), or give "
			 "--lxcpath",
			 o->name,
			 o->lxcpath ? o->lxcpath : lxc_get_global_config_item("lxc.lxcpath"));
		lxc_container_put(c);
		return NULL;
	}
	return c;
}

static bool container_autodev(struct lxc_container *c)
{
	char buf[16] = "";

	if (c->get_config_item(c, "lxc.autodev", buf, sizeof(buf)) < 0)
		return true;
	return buf[0] != '0';
}

static int hook_command(const struct gp_attach_opts *o, char **out)
{
	const char *words[] = { o->hook, o->confdir, o->root ? o->root : "/" };

	for (size_t i = 0; i < GP_ARRAY_SIZE(words); i++) {
		if (words[i][0] != '/' || !gp_shell_word_is_safe(words[i])) {
			gp_error("\"%s\" cannot go into an LXC hook line: use an absolute path of "
				 "letters, digits and / . _ - + : @ only",
				 words[i]);
			return -EINVAL;
		}
	}
	if (o->root &&
	    asprintf(out, "%s --root %s --confdir %s", o->hook, o->root, o->confdir) >= 0)
		return 0;
	if (!o->root && asprintf(out, "%s --confdir %s", o->hook, o->confdir) >= 0)
		return 0;
	return -ENOMEM;
}

static int wanted_lines(const struct gp_attach_opts *o, const struct gp_plan *plan, bool autodev,
			struct lines *l)
{
	const char *prefix = gp_cgroup_key_prefix(gp_cgroup_layout());
	_cleanup_free_ char *cmd = NULL;
	int r = hook_command(o, &cmd);

	if (r < 0)
		return r;
	r = lines_add(l, "lxc.hook.pre-start = ", cmd);
	if (r == 0)
		r = lines_add(l, autodev ? "lxc.hook.autodev = " : "lxc.hook.mount = ", cmd);
	if (r == 0)
		r = lines_add(l, "lxc.hook.post-stop = ", cmd);
	for (size_t i = 0; i < plan->n && r == 0; i++) {
		char key[64], rule[64];

		snprintf(key, sizeof(key), "%s.allow = ", prefix);
		snprintf(rule, sizeof(rule), "c %u:%u rwm", plan->nodes[i].major,
			 plan->nodes[i].minor);
		r = lines_add(l, key, rule);
	}
	return r;
}

static char *applied_path(const struct gp_attach_opts *o)
{
	char *p;

	return asprintf(&p, "%s/%s.applied", o->confdir, o->name) < 0 ? NULL : p;
}

/* The lines a previous attach added, so that they can be taken out again. */
static int read_applied(const struct gp_attach_opts *o, struct lines *l)
{
	_cleanup_free_ char *path = applied_path(o), *buf = NULL;
	char *save = NULL;
	struct stat st;
	int r;

	if (!path)
		return -ENOMEM;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	r = gp_ctconf_check_owner(path, &st);
	if (r == 0)
		r = gp_read_file(path, 256 * 1024, &buf, NULL);
	for (char *t = r == 0 ? strtok_r(buf, "\n", &save) : NULL; t;
	     t = strtok_r(NULL, "\n", &save))
		if ((r = lines_add(l, t, "")) < 0)
			break;
	return r;
}

static int write_applied(const struct gp_attach_opts *o, const struct lines *l)
{
	_cleanup_free_ char *path = applied_path(o);
	struct gp_buf b = { 0 };
	int r = gp_buf_printf(&b, "%s", "");

	for (size_t i = 0; i < l->n && r == 0; i++)
		r = gp_buf_printf(&b, "%s\n", l->v[i]);
	if (r == 0 && path)
		r = gp_write_file_atomic(path, b.data, b.len, 0644, GP_DURABLE);
	gp_buf_free(&b);
	return path ? r : -ENOMEM;
}

/* Reads the config back through liblxc: it must still load and carry our hook. */
static int verify_config(const struct gp_attach_opts *o, bool want_hook)
{
	_cleanup_lxc_ struct lxc_container *c = lxc_container_new(o->name, o->lxcpath);
	char buf[8192] = "";
	bool has;

	if (!c || !c->is_defined(c)) {
		gp_error("liblxc cannot load the edited config of \"%s\"", o->name);
		return -EIO;
	}
	c->get_config_item(c, "lxc.hook.pre-start", buf, sizeof(buf));
	has = strstr(buf, o->hook) != NULL;
	if (has != want_hook) {
		gp_error("liblxc reads the edited config of \"%s\" %s the hook", o->name,
			 want_hook ? "without" : "still with");
		return -EIO;
	}
	return 0;
}

static int resolve(const struct gp_attach_opts *o, struct gp_ctconf *conf, struct gp_plan *plan)
{
	struct gp_host host;
	bool chosen[GP_MAX_GPUS];
	char err[512];
	int r;

	/* Keep the ini's other keys; --gpus and --caps replace only the selection. */
	r = gp_ctconf_load(o->confdir, o->name, conf);
	if (r == -ENOENT && !o->gpus)
		gp_error("\"%s\" has no %s/%s.ini yet: give --gpus", o->name, o->confdir, o->name);
	if (r < 0 && (r != -ENOENT || !o->gpus))
		return -EINVAL;
	if (r == -ENOENT) {
		memset(conf, 0, sizeof(*conf));
		conf->probe_timeout = 30;
	}
	if (o->gpus) {
		snprintf(conf->devices, sizeof(conf->devices), "%s", o->gpus);
		snprintf(conf->caps, sizeof(conf->caps), "%s", o->caps ? o->caps : "");
	}
	r = gp_host_read(o->root, conf->caps[0] ? GP_HOST_MIG : 0, &host);
	if (r < 0)
		return r;
	r = gp_select_gpus(conf->devices, &host, chosen, err, sizeof(err));
	if (r == 0)
		r = gp_plan_build(o->root, &host, chosen, conf->caps, plan, err, sizeof(err));
	gp_host_free(&host);
	if (r < 0)
		gp_error("%s", err);
	return r;
}

static void print_dry_run(const struct gp_ctconf *conf, const struct lines *old,
			  const struct lines *add, const char *config)
{
	_cleanup_free_ char *ini = gp_ctconf_format(conf);

	printf("would write the ini:\n%s", ini ? ini : "");
	for (size_t i = 0; i < old->n; i++)
		printf("would remove from %s: %s\n", config, old->v[i]);
	for (size_t i = 0; i < add->n; i++)
		printf("would add to %s: %s\n", config, add->v[i]);
}

static int apply(const struct gp_attach_opts *o, const char *config, const struct gp_ctconf *conf,
		 struct lines *old, struct lines *add)
{
	struct lines remove = { 0 };
	int r;

	/* Take out the previous attach's lines and any copy of the new ones, then add. */
	for (size_t i = 0; i < old->n; i++)
		remove.v[remove.n++] = old->v[i];
	for (size_t i = 0; i < add->n && remove.n < MAX_LINES; i++)
		remove.v[remove.n++] = add->v[i];
	r = gp_ctconf_save(o->confdir, o->name, conf);
	if (r < 0)
		return r;
	r = gp_lxcconf_edit(config, (const char *const *)remove.v, remove.n,
			    (const char *const *)add->v, add->n);
	if (r < 0)
		return r;
	r = write_applied(o, add);
	if (r < 0)
		gp_error("Failed to record what was added to \"%s\": %s", config, strerror(-r));
	return r < 0 ? r : verify_config(o, true);
}

int gp_attach(const struct gp_attach_opts *o)
{
	_cleanup_close_ int lock = o->dry_run ? -1 : lock_confdir(o->confdir);
	_cleanup_lxc_ struct lxc_container *c = lock < 0 && !o->dry_run ? NULL : open_container(o);
	_cleanup_lines_ struct lines old = { 0 }, add = { 0 };
	_cleanup_free_ char *config = NULL;
	struct gp_ctconf conf;
	struct gp_plan plan;
	int r;

	if (!c)
		return -EINVAL;
	r = resolve(o, &conf, &plan);
	if (r < 0)
		return r;
	config = c->config_file_name(c);
	r = wanted_lines(o, &plan, container_autodev(c), &add);
	if (r == 0)
		r = read_applied(o, &old);
	if (r < 0 || !config)
		return r < 0 ? r : -ENOMEM;
	if (o->dry_run) {
		print_dry_run(&conf, &old, &add, config);
		return 0;
	}
	r = apply(o, config, &conf, &old, &add);
	if (r < 0)
		return r;
	printf("attached %s: %zu nodes (%s)%s\n", o->name, plan.n, conf.devices,
	       c->is_running(c) ? "; takes effect at the next start" : "");
	return 0;
}

int gp_detach(const struct gp_attach_opts *o)
{
	_cleanup_close_ int lock = o->dry_run ? -1 : lock_confdir(o->confdir);
	_cleanup_lxc_ struct lxc_container *c = lock < 0 && !o->dry_run ? NULL : open_container(o);
	_cleanup_lines_ struct lines old = { 0 };
	_cleanup_free_ char *config = NULL, *ini = NULL, *applied = applied_path(o);
	int r;

	if (!c)
		return -EINVAL;
	config = c->config_file_name(c);
	r = read_applied(o, &old);
	if (r < 0 || !config || !applied || asprintf(&ini, "%s/%s.ini", o->confdir, o->name) < 0)
		return r < 0 ? r : -ENOMEM;
	if (o->dry_run) {
		for (size_t i = 0; i < old.n; i++)
			printf("would remove from %s: %s\n", config, old.v[i]);
		printf("would remove %s and %s\n", ini, applied);
		return 0;
	}
	r = gp_lxcconf_edit(config, (const char *const *)old.v, old.n, NULL, 0);
	if (r < 0)
		return r;
	if ((unlink(applied) < 0 && errno != ENOENT) || (unlink(ini) < 0 && errno != ENOENT)) {
		gp_error("Failed to remove \"%s\" or \"%s\": %s", applied, ini, strerror(errno));
		return -errno;
	}
	printf("detached %s%s\n", o->name, r == 0 && old.n == 0 ? " (nothing was attached)" : "");
	return verify_config(o, false);
}
