/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A container's config file, plain LXC (through liblxc) or Proxmox VE. */
#include <ctype.h>
#include <lxc/lxccontainer.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/ctx.h"
#include "base/lock.h"
#include "base/paths.h"
#include "base/util.h"
#include "config/lxcconf.h"
#include "config/pveconf.h"
#include "driver/runtime.h"
#include "ops/target.h"

bool gp_container_running(const char *name, const char *lxcpath)
{
	struct lxc_container *c = lxc_container_new(name, lxcpath);
	bool running = c && c->is_running(c);

	if (c)
		lxc_container_put(c);
	return running;
}

static int autodev_off(const char *key, const char *value, const char *file, unsigned int line,
		       void *user)
{
	(void)file;
	(void)line;
	if (strcmp(key, "lxc.autodev") == 0)
		*(bool *)user = strcmp(value, "0") == 0;
	return 0;
}

/*
 * Under LXC 7, a config liblxc cannot load (it refuses lxc.cgroup.* keys) is still the
 * container's (before LXC 7 one that does not load is no container's config):
 * its file is edited as liblxc's would be, under liblxc's lock, and what liblxc would say
 * of it is read from the file. A container liblxc cannot load does not run.
 */
static int open_unloadable(const struct gp_attach_opts *o, const char *config, struct gp_target *t)
{
	_cleanup_free_ char *dir = strdup(config), *lock = NULL;
	bool off = false;

	if (!dir)
		return -ENOMEM;
	*strrchr(dir, '/') = '\0';
	*strrchr(dir, '/') = '\0';
	gp_warn("liblxc %s cannot load %s (LXC 7 loads no config with an lxc.cgroup.* key): "
		"editing the file as it stands",
		o->rt->lxc, config);
	lock = gp_lock_lxc_path(dir, o->name);
	snprintf(t->config, sizeof(t->config), "%s", config);
	snprintf(t->lock, sizeof(t->lock), "%s", lock ? lock : "");
	t->lock_kind = GP_LOCK_OFD;
	gp_lxcconf_walk(config, autodev_off, &off);
	t->autodev = !off;
	t->kind = GP_TARGET_LXC;
	t->sep = " = ";
	return t->lock[0] ? 0 : -ENOMEM;
}

static int open_lxc(const struct gp_attach_opts *o, struct gp_target *t)
{
	struct lxc_container *c = lxc_container_new(o->name, o->ctx->lxcpath);
	_cleanup_free_ char *unloadable = c || o->rt->lxc_major < GP_LXC_V2_ONLY
					      ? NULL
					      : gp_lxc_config_file(o->ctx->lxcpath, o->name);
	char buf[16] = "";
	char *config, *lock;

	if (unloadable)
		return open_unloadable(o, unloadable, t);
	if (!c || !c->is_defined(c)) {
		gp_error(
		    "no container \"%s\" in \"%s\": create it first (lxc-create or gpu-provision "
		    "create), or give --lxcpath",
		    o->name,
		    o->ctx->lxcpath ? o->ctx->lxcpath : lxc_get_global_config_item("lxc.lxcpath"));
		if (c)
			lxc_container_put(c);
		return -GP_EBADCONF;
	}
	config = c->config_file_name(c);
	snprintf(t->config, sizeof(t->config), "%s", config ? config : "");
	free(config);
	lock = gp_lock_lxc_path(c->config_path, o->name);
	snprintf(t->lock, sizeof(t->lock), "%s", lock ? lock : "");
	free(lock);
	t->lock_kind = GP_LOCK_OFD;
	t->autodev = c->get_config_item(c, "lxc.autodev", buf, sizeof(buf)) < 0 || buf[0] != '0';
	t->running = c->is_running(c);
	t->kind = GP_TARGET_LXC;
	t->sep = " = ";
	lxc_container_put(c);
	return t->config[0] && t->lock[0] ? 0 : -ENOMEM;
}

static bool is_vmid(const char *name)
{
	for (const char *p = name; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return name[0] && name[0] != '0';
}

/* Reads the config once before any work: it must parse, carry no lock:, and its devN are noted. */
static int read_pve(const char *path, const char *id, struct gp_target *t)
{
	_cleanup_free_ char *buf = NULL;
	struct gp_pveconf c;
	size_t len;
	int r = gp_read_file(path, GP_PVE_CONFIG_MAX, &buf, &len);

	if (r < 0) {
		gp_error("no Proxmox container %s: \"%s\": %s (create it with pct create, or "
			 "gpu-provision create)",
			 id, path, gp_strerror(-r));
		return -GP_EBADCONF;
	}
	if (gp_pveconf_parse(buf, len, &c) < 0) {
		gp_error("%s:%u: not \"key: value\", a comment or a [section]", path, c.bad_line);
		return -GP_EBADCONF;
	}
	t->pve_devs = gp_pveconf_used_devs(&c);
	return gp_pveconf_check_unlocked(&c, id);
}

static int open_pve(const struct gp_attach_opts *o, struct gp_target *t)
{
	_cleanup_free_ char *path = NULL, *lock = NULL;
	int r;

	if (!is_vmid(o->name)) {
		gp_error("\"%s\" is not a Proxmox container ID", o->name);
		return -GP_EBADCONF;
	}
	if (!(path = gp_pve_config_path(o->ctx->root, o->name)) ||
	    !(lock = gp_lock_pve_path(o->ctx->root, o->name)))
		return -ENOMEM;
	/* The lock is checked again under the config lock when editing (gp_pveconf_edit_file). */
	r = o->assume_new && access(path, F_OK) != 0 ? 0 : read_pve(path, o->name, t);
	if (r < 0)
		return r;
	snprintf(t->config, sizeof(t->config), "%s", path);
	snprintf(t->lock, sizeof(t->lock), "%s", lock);
	t->lock_kind = GP_LOCK_FLOCK;
	t->kind = GP_TARGET_PVE;
	t->autodev = true; /* Proxmox sets lxc.autodev = 1 for every container */
	t->running = gp_container_running(o->name, o->ctx->lxcpath);
	t->sep = ": ";
	return 0;
}

int gp_target_open(const struct gp_attach_opts *o, struct gp_target *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", o->name);
	t->rules = gp_cgroup_key_prefix(o->rt->layout);
	if (o->ctx->pve)
		return open_pve(o, t);
	return open_lxc(o, t);
}

/*
 * Nothing in here may call liblxc for this container: its load_config takes the same
 * lock on another open file description and would wait for us.
 */
static int edit_locked(const struct gp_target *t, const struct gp_line_edit *e,
		       const struct gp_pveconf_item *item)
{
	if (t->kind == GP_TARGET_LXC)
		return item ? -EINVAL
			    : gp_lxcconf_edit(t->config, e->remove, e->nremove, e->add, e->nadd);
	return gp_pveconf_edit_file(t->config, t->name, e, item);
}

int gp_target_edit(const struct gp_target *t, const char *const *remove, size_t nremove,
		   const char *const *add, size_t nadd, const struct gp_pveconf_item *item)
{
	struct gp_line_edit e = { remove, nremove, add, nadd };
	_cleanup_free_ char *what = NULL;
	_cleanup_close_ int fd = -1;

	if (asprintf(&what, "container %s's config", t->name) < 0)
		return -ENOMEM;
	fd = gp_lock_take(t->lock, t->lock_kind, GP_LOCK_TIMEOUT_MS, what);
	if (fd < 0)
		return fd;
	return edit_locked(t, &e, item);
}

static int verify_lxc(const struct gp_attach_opts *o, const char *line, bool present)
{
	struct lxc_container *c = lxc_container_new(o->name, o->ctx->lxcpath);
	char key[128], buf[16384] = "";
	const char *eq = strstr(line, " = ");
	bool has;

	if (!c || !c->is_defined(c) || !eq || (size_t)(eq - line) >= sizeof(key)) {
		gp_error("liblxc cannot load the edited config of \"%s\"", o->name);
		if (c)
			lxc_container_put(c);
		return -EIO;
	}
	snprintf(key, sizeof(key), "%.*s", (int)(eq - line), line);
	c->get_config_item(c, key, buf, sizeof(buf));
	lxc_container_put(c);
	has = strstr(buf, eq + 3) != NULL;
	return has == present ? 0 : -EIO;
}

static int verify_pve(const struct gp_target *t, const char *line, bool present)
{
	_cleanup_free_ char *buf = NULL;
	struct gp_pveconf c;
	size_t len;

	if (gp_read_file(t->config, GP_PVE_CONFIG_MAX, &buf, &len) < 0 ||
	    gp_pveconf_parse(buf, len, &c) < 0)
		return -EIO;
	return (memmem(buf, c.current_end, line, strlen(line)) != NULL) == present ? 0 : -EIO;
}

int gp_target_verify(const struct gp_attach_opts *o, const struct gp_target *t, const char *line,
		     bool present)
{
	int r =
	    t->kind == GP_TARGET_PVE ? verify_pve(t, line, present) : verify_lxc(o, line, present);

	if (r < 0)
		gp_error("the edited config \"%s\" reads back %s \"%s\"", t->config,
			 present ? "without" : "still with", line);
	return r;
}
