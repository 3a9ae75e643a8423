/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-container ini, read with inih; line numbers come from our own line reader. */
#include <fcntl.h>
#include <stdarg.h>
#include <ini.h>
#include <string.h>
#include <sys/stat.h>

#include "ctconf.h"
#include "paths.h"
#include "util.h"

struct reader {
	const char *p;
	const char *path;
	unsigned int line;
	struct gp_ctconf *conf;
	bool failed;
	enum gp_conf_kind kind;
	bool seen[6];
};

static void __attribute__((format(printf, 2, 3))) fail(struct reader *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (r->failed)
		return;
	r->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gp_error("%s:%u: %s", r->path, r->line, msg);
}

static bool section_is_known(enum gp_conf_kind kind, const char *name)
{
	return (strcmp(name, "gpu") == 0 && kind == GP_CONF_CONTAINER) ||
	       strcmp(name, "uvm") == 0 || strcmp(name, "probe") == 0;
}

/* inih only reports sections through keys; check every header here. */
static void check_header(struct reader *r, const char *line)
{
	char copy[GP_CTCONF_MAX_LINE + 2];
	char *s, *end;

	snprintf(copy, sizeof(copy), "%s", line);
	s = gp_strtrim(copy);
	if (*s != '[')
		return;
	end = strchr(s, ']');
	if (!end) {
		fail(r, "section header without ']': %s", s);
		return;
	}
	*end = '\0';
	if (!section_is_known(r->kind, s + 1))
		fail(r, "unknown section [%s]; known: %s[uvm], [probe]", s + 1,
		     r->kind == GP_CONF_CONTAINER ? "[gpu], " : "");
}

static char *read_line(char *str, int num, void *stream)
{
	struct reader *r = stream;
	const char *nl;
	size_t n, keep;

	if (!*r->p)
		return NULL;
	r->line++;
	nl = strchr(r->p, '\n');
	n = nl ? (size_t)(nl - r->p) : strlen(r->p);
	if (n > GP_CTCONF_MAX_LINE || n + 2 > (size_t)num)
		fail(r, "line longer than %d characters; shorten it", GP_CTCONF_MAX_LINE);
	keep = n + 2 <= (size_t)num ? n : (size_t)num - 2;
	memcpy(str, r->p, keep);
	str[keep] = '\n';
	str[keep + 1] = '\0';
	r->p += n + (nl ? 1 : 0);
	check_header(r, str);
	return str;
}

static int set_once(struct reader *r, int slot, const char *key)
{
	if (r->seen[slot]) {
		fail(r, "duplicate key \"%s\"", key);
		return -1;
	}
	r->seen[slot] = true;
	return 0;
}

static int set_gpu(struct reader *r, const char *name, const char *value)
{
	struct gp_ctconf *c = r->conf;

	if (strcmp(name, "devices") == 0 && set_once(r, 0, name) == 0) {
		snprintf(c->devices, sizeof(c->devices), "%s", value);
		c->devices_line = r->line;
	} else if (strcmp(name, "caps") == 0 && set_once(r, 1, name) == 0) {
		snprintf(c->caps, sizeof(c->caps), "%s", value);
		c->caps_line = r->line;
	} else if (strcmp(name, "mode") == 0 && set_once(r, 5, name) == 0) {
		if (strcmp(value, "hook") && strcmp(value, "devn"))
			fail(r, "mode is \"%s\"; use hook or devn", value);
		snprintf(c->mode, sizeof(c->mode), "%s", value);
	} else if (strcmp(name, "devices") && strcmp(name, "caps") && strcmp(name, "mode")) {
		fail(r, "unknown key \"%s\" in [gpu]; known: devices, caps, mode", name);
	}
	return r->failed ? 0 : 1;
}

static void set_disable_hmm(struct reader *r, const char *value)
{
	struct gp_ctconf *c = r->conf;

	if (set_once(r, 2, "disable_hmm") < 0)
		return;
	c->disable_hmm_set = true;
	if (strcmp(value, "auto") == 0)
		c->disable_hmm = GP_HMM_AUTO;
	else if (strcmp(value, "yes") == 0)
		c->disable_hmm = GP_HMM_YES;
	else if (strcmp(value, "no") == 0)
		c->disable_hmm = GP_HMM_NO;
	else
		fail(r, "disable_hmm is \"%s\"; use auto, yes or no", value);
}

static void set_on_conflict(struct reader *r, const char *value)
{
	struct gp_ctconf *c = r->conf;

	if (set_once(r, 4, "on_conflict") < 0)
		return;
	c->on_conflict_set = true;
	if (strcmp(value, "refuse") == 0)
		c->on_conflict = GP_CONFLICT_REFUSE;
	else if (strcmp(value, "warn") == 0)
		c->on_conflict = GP_CONFLICT_WARN;
	else
		fail(r, "on_conflict is \"%s\"; use refuse or warn", value);
}

static int set_uvm(struct reader *r, const char *name, const char *value)
{
	if (strcmp(name, "disable_hmm") == 0)
		set_disable_hmm(r, value);
	else if (strcmp(name, "on_conflict") == 0)
		set_on_conflict(r, value);
	else
		fail(r, "unknown key \"%s\" in [uvm]; known: disable_hmm, on_conflict", name);
	return r->failed ? 0 : 1;
}

static int set_probe(struct reader *r, const char *name, const char *value)
{
	if (strcmp(name, "timeout") != 0) {
		fail(r, "unknown key \"%s\" in [probe]; known: timeout", name);
		return 0;
	}
	if (set_once(r, 3, name) < 0)
		return 0;
	r->conf->probe_timeout_set = true;
	if (gp_parse_uint(value, &r->conf->probe_timeout) < 0 || r->conf->probe_timeout == 0 ||
	    r->conf->probe_timeout > 3600)
		fail(r, "timeout is \"%s\"; use whole seconds from 1 to 3600", value);
	return r->failed ? 0 : 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct reader *r = user;

	if (r->failed)
		return 0;
	if (strcmp(section, "gpu") == 0 && r->kind == GP_CONF_CONTAINER)
		return set_gpu(r, name, value);
	if (strcmp(section, "uvm") == 0)
		return set_uvm(r, name, value);
	if (strcmp(section, "probe") == 0)
		return set_probe(r, name, value);
	if (!*section)
		fail(r, "key \"%s\" before any section; put it under [gpu], [uvm] or [probe]",
		     name);
	return 0;
}

int gp_ctconf_parse(const char *buf, const char *path, struct gp_ctconf *conf)
{
	return gp_ctconf_parse_as(buf, path, GP_CONF_CONTAINER, conf);
}

int gp_ctconf_parse_as(const char *buf, const char *path, enum gp_conf_kind kind,
		       struct gp_ctconf *conf)
{
	struct reader r = { .p = buf, .path = path, .conf = conf, .kind = kind };
	int line;

	memset(conf, 0, sizeof(*conf));
	snprintf(conf->path, sizeof(conf->path), "%s", path);
	conf->disable_hmm = GP_HMM_AUTO;
	conf->probe_timeout = 30;
	if (strnlen(buf, GP_CTCONF_MAX_SIZE + 1) > GP_CTCONF_MAX_SIZE) {
		gp_error("%s: larger than %d bytes", path, GP_CTCONF_MAX_SIZE);
		return -EINVAL;
	}
	line = ini_parse_stream(read_line, &r, handler, &r);
	if (line > 0 && !r.failed) {
		gp_error("%s:%d: expected \"key = value\" or \"[section]\"", path, line);
		r.failed = true;
	}
	if (!r.failed && kind == GP_CONF_CONTAINER && !conf->devices[0]) {
		gp_error(
		    "%s: no \"devices\" in [gpu]; add e.g. \"devices = 0\" or \"devices = all\"",
		    path);
		r.failed = true;
	}
	return r.failed ? -EINVAL : 0;
}

int gp_ctconf_check_owner(const char *path, const struct stat *st)
{
	if (!S_ISREG(st->st_mode)) {
		gp_error("\"%s\" is not a regular file", path);
		return -EPERM;
	}
	if (st->st_uid != 0 || (st->st_mode & 022)) {
		gp_error(
		    "\"%s\" is owned by uid %u with mode %04o: it must be owned by root and "
		    "not writable by group or others; fix with: chown root: %s && chmod 644 %s",
		    path, (unsigned int)st->st_uid, (unsigned int)(st->st_mode & 07777), path,
		    path);
		return -EPERM;
	}
	return 0;
}

static int load_file(const char *path, enum gp_conf_kind kind, struct gp_ctconf *conf)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		if (r != -ENOENT)
			return gp_error_errno(r, "Failed to open \"%s\"", path);
		return r;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	r = gp_ctconf_check_owner(path, &st);
	if (r < 0)
		return r;
	if (st.st_size > GP_CTCONF_MAX_SIZE) {
		gp_error("\"%s\" is larger than %d bytes", path, GP_CTCONF_MAX_SIZE);
		return -EINVAL;
	}
	/* From the descriptor just checked: a path opened again may be another file. */
	r = gp_read_fd(fd, GP_CTCONF_MAX_SIZE, &buf, NULL);
	if (r < 0)
		return gp_error_errno(r, "Failed to read \"%s\"", path);
	return gp_ctconf_parse_as(buf, path, kind, conf);
}

int gp_ctconf_load(const char *confdir, const char *name, struct gp_ctconf *conf)
{
	_cleanup_free_ char *path = gp_ini_path(confdir, name);

	if (!path)
		return -ENOMEM;
	return load_file(path, GP_CONF_CONTAINER, conf);
}

int gp_hostconf_load(const char *confdir, struct gp_ctconf *conf)
{
	_cleanup_free_ char *path = gp_hostconf_path(confdir);
	int r;

	if (!path)
		return -ENOMEM;
	r = load_file(path, GP_CONF_HOST, conf);
	if (r == -ENOENT) {
		gp_ctconf_parse_as("", path, GP_CONF_HOST, conf);
		return 0;
	}
	return r;
}

void gp_ctconf_merge_host(struct gp_ctconf *conf, const struct gp_ctconf *host)
{
	if (!conf->disable_hmm_set)
		conf->disable_hmm = host->disable_hmm;
	if (!conf->on_conflict_set)
		conf->on_conflict = host->on_conflict;
	if (!conf->probe_timeout_set)
		conf->probe_timeout = host->probe_timeout;
}

const char *gp_conflict_name(enum gp_conflict c)
{
	return c == GP_CONFLICT_WARN ? "warn" : "refuse";
}

const char *gp_hmm_policy_name(enum gp_hmm_policy p)
{
	return p == GP_HMM_YES ? "yes" : p == GP_HMM_NO ? "no" : "auto";
}

/* Keys the ini leaves out follow the host's gpu-provision.conf; only set ones are written. */
char *gp_ctconf_format(const struct gp_ctconf *conf)
{
	struct gp_buf b = { 0 };
	int r;

	r = gp_buf_printf(&b,
			  "# Written by gpu-provision attach; edit or rerun attach.\n"
			  "[gpu]\ndevices = %s\n",
			  conf->devices);
	if (r == 0 && conf->caps[0])
		r = gp_buf_printf(&b, "caps = %s\n", conf->caps);
	if (r == 0 && conf->mode[0])
		r = gp_buf_printf(&b, "mode = %s\n", conf->mode);
	if (r == 0 && (conf->disable_hmm_set || conf->on_conflict_set))
		r = gp_buf_printf(&b, "[uvm]\n");
	if (r == 0 && conf->disable_hmm_set)
		r = gp_buf_printf(&b, "disable_hmm = %s\n", gp_hmm_policy_name(conf->disable_hmm));
	if (r == 0 && conf->on_conflict_set)
		r = gp_buf_printf(&b, "on_conflict = %s\n", gp_conflict_name(conf->on_conflict));
	if (r == 0 && conf->probe_timeout_set)
		r = gp_buf_printf(&b, "[probe]\ntimeout = %u\n", conf->probe_timeout);
	if (r < 0) {
		gp_buf_free(&b);
		return NULL;
	}
	return b.data;
}

int gp_ctconf_save(const char *confdir, const char *name, const struct gp_ctconf *conf)
{
	_cleanup_free_ char *path = gp_ini_path(confdir, name), *text = gp_ctconf_format(conf);
	int r;

	if (!text || !path)
		return -ENOMEM;
	if (mkdir(confdir, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		return gp_error_errno(r, "Failed to create \"%s\"", confdir);
	}
	r = gp_write_file_atomic(path, text, strlen(text), 0644, GP_DURABLE);
	if (r < 0)
		return gp_error_errno(r, "Failed to write \"%s\"", path);
	return r;
}
