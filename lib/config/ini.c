/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The per-container ini, read with inih; line numbers come from our own line reader.
 * Each key is one row of keys[]: reading, duplicates, the messages that list what is
 * known, writing back and the host's defaults all go through that table.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <ini.h>
#include <string.h>
#include <sys/stat.h>

#include "base/ctx.h"
#include "base/paths.h"
#include "base/quorum.h"
#include "base/util.h"
#include "config/ini.h"
#include "host/userspace.h"

struct key;

/* A kind of value (text, one of some words, seconds): how it is read, written, known set. */
struct key_type {
	/* Stores value in the key's field; false when the key does not take it. */
	bool (*parse)(const struct key *k, struct gp_ini *c, const char *value);
	/* The field as the ini writes it, in buf or in static storage. */
	const char *(*text)(const struct key *k, const struct gp_ini *c, char *buf, size_t size);
	/* Whether the ini gave it: only keys set are written back or left to the host. */
	bool (*is_set)(const struct key *k, const struct gp_ini *c);
	/* What to use instead of a refused value: "use ...". */
	void (*hint)(const struct key *k, char *buf, size_t size);
};

/*
 * One key of the ini. Offsets are into struct gp_ini; 0 (path's offset) means none.
 * The rows of a section stay together: the writer heads each run with its [section].
 */
struct key {
	struct gp_ini_key doc;
	const struct key_type *type;
	size_t field, size;	  /* the value */
	size_t set;		  /* its bool "_set", where text cannot say (words, seconds) */
	size_t line;		  /* its "_line": the line the value was on */
	const char *const *words; /* the values taken, NULL-terminated; an enum's in its order */
	unsigned int min, max;	  /* seconds */
	const char *required;	  /* in a container's ini: what to say when it is missing */
};

_Static_assert(offsetof(struct gp_ini, path) == 0, "0 must be no key's offset");
_Static_assert(sizeof(enum gp_hmm_policy) == sizeof(unsigned int) &&
		   sizeof(enum gp_conflict) == sizeof(unsigned int) &&
		   sizeof(enum gp_inject_choice) == sizeof(unsigned int),
	       "word keys are stored as unsigned int");

/* The field at a table's offset; a const conf is only read through it. */
static char *at(const struct gp_ini *c, size_t off)
{
	return (char *)c + off;
}

/* Writes the NULL-terminated v as "a, b, c", or with last " or " as "a, b or c". */
static void join(char *buf, size_t size, const char *const *v, const char *last, bool brackets)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; v[i] && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, brackets ? "%s[%s]" : "%s%s",
					i == 0	   ? ""
					: v[i + 1] ? ", "
						   : last,
					v[i]);
}

static bool find_word(const char *const *words, const char *value, unsigned int *index)
{
	for (unsigned int i = 0; words[i]; i++) {
		if (strcmp(words[i], value) == 0) {
			*index = i;
			return true;
		}
	}
	return false;
}

/* The word for an enum's value; the first (the default) for one out of range. */
static const char *word_name(const char *const *words, unsigned int v)
{
	unsigned int i = 0;

	while (words[i] && i < v)
		i++;
	return words[i] ? words[i] : words[0];
}

static void hint_words(const struct key *k, char *buf, size_t size)
{
	char list[128];

	join(list, sizeof(list), k->words, " or ", false);
	snprintf(buf, size, "use %s", list);
}

static bool parse_text(const struct key *k, struct gp_ini *c, const char *value)
{
	unsigned int i;

	if (k->words && !find_word(k->words, value, &i))
		return false;
	snprintf(at(c, k->field), k->size, "%s", value);
	return true;
}

static const char *text_text(const struct key *k, const struct gp_ini *c, char *buf, size_t size)
{
	(void)buf;
	(void)size;
	return at(c, k->field);
}

static bool text_is_set(const struct key *k, const struct gp_ini *c)
{
	return *at(c, k->field) != '\0';
}

static const struct key_type text_type = { parse_text, text_text, text_is_set, hint_words };

static bool parse_word(const struct key *k, struct gp_ini *c, const char *value)
{
	return find_word(k->words, value, (unsigned int *)at(c, k->field));
}

static const char *word_text(const struct key *k, const struct gp_ini *c, char *buf, size_t size)
{
	(void)buf;
	(void)size;
	return word_name(k->words, *(unsigned int *)at(c, k->field));
}

static bool flag_is_set(const struct key *k, const struct gp_ini *c)
{
	return *(bool *)at(c, k->set);
}

static const struct key_type word_type = { parse_word, word_text, flag_is_set, hint_words };

static bool parse_seconds(const struct key *k, struct gp_ini *c, const char *value)
{
	unsigned int v;

	if (gp_parse_uint(value, &v) < 0 || v < k->min || v > k->max)
		return false;
	*(unsigned int *)at(c, k->field) = v;
	return true;
}

static const char *seconds_text(const struct key *k, const struct gp_ini *c, char *buf, size_t size)
{
	snprintf(buf, size, "%u", *(unsigned int *)at(c, k->field));
	return buf;
}

static void hint_seconds(const struct key *k, char *buf, size_t size)
{
	snprintf(buf, size, "use whole seconds from %u to %u", k->min, k->max);
}

static const struct key_type seconds_type = { parse_seconds, seconds_text, flag_is_set,
					      hint_seconds };

/* A set of words, "a, b": stored as a bit per word, in the words' order. */
static bool parse_set(const struct key *k, struct gp_ini *c, const char *value)
{
	char copy[GP_INI_MAX_LINE + 1], *save = NULL;
	unsigned int bits = 0, i;

	snprintf(copy, sizeof(copy), "%s", value);
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!find_word(k->words, gp_strtrim(w), &i))
			return false;
		bits |= 1U << i;
	}
	if (!bits)
		return false;
	*(unsigned int *)at(c, k->field) = bits;
	return true;
}

static const char *set_text(const struct key *k, const struct gp_ini *c, char *buf, size_t size)
{
	unsigned int bits = *(unsigned int *)at(c, k->field);
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; k->words[i] && len < size; i++)
		if (bits & (1U << i))
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
						k->words[i]);
	return buf;
}

static void hint_set(const struct key *k, char *buf, size_t size)
{
	char list[128];

	join(list, sizeof(list), k->words, ", ", false);
	snprintf(buf, size, "use one or more of %s, separated by commas", list);
}

static const struct key_type set_type = { parse_set, set_text, flag_is_set, hint_set };

static const char *const mode_words[] = { "hook", "devn", NULL };
static const char *const hmm_words[] = {
	[GP_HMM_AUTO] = "auto", [GP_HMM_YES] = "yes", [GP_HMM_NO] = "no", NULL
};
static const char *const conflict_words[] = {
	[GP_CONFLICT_REFUSE] = "refuse", [GP_CONFLICT_WARN] = "warn", NULL
};
static const char *const inject_words[] = { [GP_INJECT_NO] = "no", [GP_INJECT_YES] = "yes", NULL };
static const char *const cdi_words[] = { [GP_CDI_NO] = "no", [GP_CDI_YES] = "yes", NULL };
static const char *const deep_words[] = {
	[GP_PROBE_DEEP_NO] = "no", [GP_PROBE_DEEP_YES] = "yes", NULL
};

#define VALUE(f) .field = offsetof(struct gp_ini, f), .size = sizeof(((struct gp_ini *)0)->f)
#define TEXT(f) .type = &text_type, VALUE(f)
#define LINE(f) .line = offsetof(struct gp_ini, f)
#define WORD(f, w) .type = &word_type, VALUE(f), .set = offsetof(struct gp_ini, f##_set), .words = w
#define SET(f, w) .type = &set_type, VALUE(f), .set = offsetof(struct gp_ini, f##_set), .words = w
#define SECONDS(f, lo, hi)                                                                         \
	.type = &seconds_type, VALUE(f), .set = offsetof(struct gp_ini, f##_set), .min = lo,       \
	.max = hi

/* .doc: section, key, default, an example other than the default, host may set it. */
static const struct key keys[] = {
	{ .doc = { "gpu", "devices", NULL, "GPU-1,0000:41:00.0", false },
	  TEXT(devices),
	  LINE(devices_line),
	  .required = "add e.g. \"devices = 0\" or \"devices = all\"" },
	{ .doc = { "gpu", "caps", NULL, "gpu1/gi1/ci0", false }, TEXT(caps), LINE(caps_line) },
	{ .doc = { "gpu", "mode", NULL, "devn", false }, TEXT(mode), .words = mode_words },
	{ .doc = { "uvm", "disable_hmm", "auto", "no", true }, WORD(disable_hmm, hmm_words) },
	{ .doc = { "uvm", "on_conflict", "refuse", "warn", true },
	  WORD(on_conflict, conflict_words) },
	{ .doc = { "probe", "timeout", "30", "12", true }, SECONDS(probe_timeout, 1, 3600) },
	{ .doc = { "probe", "deep", "no", "yes", true }, WORD(probe_deep, deep_words) },
	/* Left out, no: an ini from before injection keeps the user space it carries. */
	{ .doc = { "driver", "inject", "no", "yes", true }, WORD(inject, inject_words) },
	/* NVIDIA's default, as CUDA images and Incus use. */
	{ .doc = { "driver", "capabilities", "compute, utility", "video, graphics, display", true },
	  SET(capabilities, gp_capability_words) },
	/* With inject = yes: the spec the container's own Podman or Docker reads (docs/cdi.md). */
	{ .doc = { "driver", "cdi", "yes", "no", true }, WORD(cdi, cdi_words) },
};

#define NKEYS GP_ARRAY_SIZE(keys)

const struct gp_ini_key *gp_ini_key(size_t i)
{
	return i < NKEYS ? &keys[i].doc : NULL;
}

static bool takes(enum gp_conf_kind kind, const struct key *k)
{
	return kind == GP_CONF_CONTAINER || k->doc.host;
}

/* Into v, NULL-terminated: the keys kind takes in section, or with none its sections. */
static void names(enum gp_conf_kind kind, const char *section, const char **v)
{
	size_t n = 0;

	for (const struct key *k = keys; k < keys + NKEYS; k++) {
		if (!takes(kind, k))
			continue;
		if (section && strcmp(k->doc.section, section) == 0)
			v[n++] = k->doc.name;
		else if (!section && (n == 0 || strcmp(v[n - 1], k->doc.section) != 0))
			v[n++] = k->doc.section;
	}
	v[n] = NULL;
}

static bool section_is_known(enum gp_conf_kind kind, const char *name)
{
	const char *v[NKEYS + 1];

	names(kind, name, v);
	return v[0] != NULL;
}

static const struct key *find_key(enum gp_conf_kind kind, const char *section, const char *name)
{
	for (const struct key *k = keys; k < keys + NKEYS; k++) {
		if (takes(kind, k) && strcmp(k->doc.section, section) == 0 &&
		    strcmp(k->doc.name, name) == 0)
			return k;
	}
	return NULL;
}

struct reader {
	const char *p;
	const char *path;
	unsigned int line;
	struct gp_ini *conf;
	bool failed;
	enum gp_conf_kind kind;
	bool seen[NKEYS];
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

/* inih only reports sections through keys; check every header here. */
static void check_header(struct reader *r, const char *line)
{
	char copy[GP_INI_MAX_LINE + 2], known[128];
	const char *v[NKEYS + 1];
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
	if (!section_is_known(r->kind, s + 1)) {
		names(r->kind, NULL, v);
		join(known, sizeof(known), v, ", ", true);
		fail(r, "unknown section [%s]; known: %s", s + 1, known);
	}
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
	if (n > GP_INI_MAX_LINE || n + 2 > (size_t)num)
		fail(r, "line longer than %d characters; shorten it", GP_INI_MAX_LINE);
	keep = n + 2 <= (size_t)num ? n : (size_t)num - 2;
	memcpy(str, r->p, keep);
	str[keep] = '\n';
	str[keep + 1] = '\0';
	r->p += n + (nl ? 1 : 0);
	check_header(r, str);
	return str;
}

/* Stores one key's value as its row says; 1 for inih when it is taken. */
static int set_key(struct reader *r, const struct key *k, const char *value)
{
	char hint[128];

	if (r->seen[k - keys]) {
		fail(r, "duplicate key \"%s\"", k->doc.name);
		return 0;
	}
	r->seen[k - keys] = true;
	if (!k->type->parse(k, r->conf, value)) {
		k->type->hint(k, hint, sizeof(hint));
		fail(r, "%s is \"%s\"; %s", k->doc.name, value, hint);
		return 0;
	}
	if (k->set)
		*(bool *)at(r->conf, k->set) = true;
	if (k->line)
		*(unsigned int *)at(r->conf, k->line) = r->line;
	return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct reader *r = user;
	const struct key *k;
	const char *v[NKEYS + 1];
	char known[128];

	if (r->failed)
		return 0;
	if (!*section) {
		names(r->kind, NULL, v); /* the sections this kind of file has */
		join(known, sizeof(known), v, " or ", true);
		fail(r, "key \"%s\" before any section; put it under %s", name, known);
		return 0;
	}
	if (!section_is_known(r->kind, section))
		return 0; /* said at its header */
	k = find_key(r->kind, section, name);
	if (!k) {
		names(r->kind, section, v);
		join(known, sizeof(known), v, ", ", false);
		fail(r, "unknown key \"%s\" in [%s]; known: %s", name, section, known);
		return 0;
	}
	return set_key(r, k, value);
}

int gp_ini_parse(const char *buf, const char *path, struct gp_ini *conf)
{
	return gp_ini_parse_as(buf, path, GP_CONF_CONTAINER, conf);
}

int gp_ini_set(struct gp_ini *conf, const char *section, const char *name, const char *value,
	       const char *what)
{
	const struct key *k = find_key(GP_CONF_CONTAINER, section, name);
	char hint[128];

	if (!k)
		return -ENOENT;
	if (!k->type->parse(k, conf, value)) {
		k->type->hint(k, hint, sizeof(hint));
		gp_error("%s \"%s\": %s", what, value, hint);
		return -GP_EBADCONF;
	}
	if (k->set)
		*(bool *)at(conf, k->set) = true;
	return 0;
}

void gp_ini_init(struct gp_ini *conf)
{
	memset(conf, 0, sizeof(*conf));
	for (const struct key *k = keys; k < keys + NKEYS; k++) {
		if (k->doc.def)
			k->type->parse(k, conf, k->doc.def);
	}
}

/* A container's ini must give its required keys; the first missing one is said. */
static bool has_required(const char *path, const struct gp_ini *conf)
{
	for (const struct key *k = keys; k < keys + NKEYS; k++) {
		if (k->required && !k->type->is_set(k, conf)) {
			gp_error("%s: no \"%s\" in [%s]; %s", path, k->doc.name, k->doc.section,
				 k->required);
			return false;
		}
	}
	return true;
}

int gp_ini_parse_as(const char *buf, const char *path, enum gp_conf_kind kind, struct gp_ini *conf)
{
	struct reader r = { .p = buf, .path = path, .conf = conf, .kind = kind };
	int line;

	gp_ini_init(conf);
	snprintf(conf->path, sizeof(conf->path), "%s", path);
	if (strnlen(buf, GP_INI_MAX_SIZE + 1) > GP_INI_MAX_SIZE) {
		gp_error("%s: larger than %d bytes", path, GP_INI_MAX_SIZE);
		return -GP_EBADCONF;
	}
	line = ini_parse_stream(read_line, &r, handler, &r);
	if (line > 0 && !r.failed) {
		gp_error("%s:%d: expected \"key = value\" or \"[section]\"", path, line);
		r.failed = true;
	}
	if (!r.failed && kind == GP_CONF_CONTAINER && !has_required(path, conf))
		r.failed = true;
	return r.failed ? -GP_EBADCONF : 0;
}

int gp_ini_check_owner(const char *path, const struct stat *st, uid_t owner)
{
	char who[32];

	if (!S_ISREG(st->st_mode)) {
		gp_error("\"%s\" is not a regular file", path);
		return -GP_EBADCONF;
	}
	if (st->st_uid != owner || (st->st_mode & 022)) {
		snprintf(who, sizeof(who), owner ? "%u" : "root", (unsigned int)owner);
		gp_error("\"%s\" is owned by uid %u with mode %04o: it must be owned by %s and "
			 "not writable by group or others; fix with: chown %s: %s && chmod 644 %s",
			 path, (unsigned int)st->st_uid, (unsigned int)(st->st_mode & 07777), who,
			 who, path, path);
		return -GP_EBADCONF;
	}
	return 0;
}

int gp_ini_read_owned(const char *path, uid_t owner, size_t max, char **buf)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	*buf = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)
		return -ENOENT;
	if (fd < 0 || fstat(fd, &st) < 0)
		return gp_error_errno(-errno, "Failed to open \"%s\"", path);
	r = gp_ini_check_owner(path, &st, owner);
	if (r < 0)
		return r;
	/* From the descriptor just checked: a path opened again may be another file. */
	r = gp_read_fd(fd, max, buf, NULL);
	if (r == -EFBIG)
		return gp_error_errno(r, "\"%s\" is larger than %zu bytes", path, max);
	return r < 0 ? gp_error_errno(r, "Failed to read \"%s\"", path) : 0;
}

static int load_file(const char *path, uid_t owner, enum gp_conf_kind kind, struct gp_ini *conf)
{
	_cleanup_free_ char *buf = NULL;
	int r = gp_ini_read_owned(path, owner, GP_INI_MAX_SIZE, &buf);

	if (r == -EFBIG)
		return -GP_EBADCONF;
	return r < 0 ? r : gp_ini_parse_as(buf, path, kind, conf);
}

int gp_ini_load(const struct gp_ctx *ctx, const char *name, struct gp_ini *conf)
{
	_cleanup_free_ char *path = gp_ini_path(ctx, name);
	_cleanup_free_ char *local = gp_local_ini_path(ctx->confdir, name);
	int r;

	if (!path || !local)
		return -ENOMEM;
	r = load_file(path, ctx->owner, GP_CONF_CONTAINER, conf);
	if (r == -ENOENT && strcmp(path, local) != 0)
		r = load_file(local, ctx->owner, GP_CONF_CONTAINER, conf);
	return r;
}

int gp_hostconf_load(const struct gp_ctx *ctx, struct gp_ini *conf)
{
	_cleanup_free_ char *path = gp_hostconf_path(ctx->confdir);
	int r;

	if (!path)
		return -ENOMEM;
	r = load_file(path, ctx->owner, GP_CONF_HOST, conf);
	if (r == -ENOENT) {
		gp_ini_parse_as("", path, GP_CONF_HOST, conf);
		return 0;
	}
	return r;
}

void gp_ini_merge_host(struct gp_ini *conf, const struct gp_ini *host)
{
	for (const struct key *k = keys; k < keys + NKEYS; k++) {
		if (k->doc.host && !k->type->is_set(k, conf))
			memcpy(at(conf, k->field), at(host, k->field), k->size);
	}
}

const char *gp_conflict_name(enum gp_conflict c)
{
	return word_name(conflict_words, c);
}

const char *gp_hmm_policy_name(enum gp_hmm_policy p)
{
	return word_name(hmm_words, p);
}

/*
 * Keys the ini leaves out follow the host's gpu-provision.conf: only set ones are
 * written, and required ones always.
 */
char *gp_ini_format(const struct gp_ini *conf)
{
	struct gp_buf b = { 0 };
	const char *section = NULL;
	char buf[64];
	int r;

	r = gp_buf_printf(&b, "# Written by gpu-provision attach; edit or rerun attach.\n");
	for (const struct key *k = keys; r == 0 && k < keys + NKEYS; k++) {
		if (!k->required && !k->type->is_set(k, conf))
			continue;
		if (!section || strcmp(section, k->doc.section) != 0) {
			section = k->doc.section;
			r = gp_buf_printf(&b, "[%s]\n", section);
		}
		if (r == 0)
			r = gp_buf_printf(&b, "%s = %s\n", k->doc.name,
					  k->type->text(k, conf, buf, sizeof(buf)));
	}
	if (r < 0) {
		gp_buf_free(&b);
		return NULL;
	}
	return b.data;
}

int gp_ini_check_readable(const struct gp_ini *conf)
{
	_cleanup_free_ char *text = gp_ini_format(conf);
	struct gp_log_capture why;
	struct gp_ini back;
	int r;

	if (!text)
		return -ENOMEM;
	gp_log_capture_start(&why);
	r = gp_ini_parse(text, "the ini", &back);
	gp_log_capture_stop(&why);
	if (r < 0)
		gp_error("%s would not read back (%s): select fewer GPUs, or by index or PCI "
			 "address, which are shorter than GPU UUIDs",
			 conf->path[0] ? conf->path : "the ini", why.text);
	return r;
}

int gp_ini_write_failed(const char *path, int r)
{
	const char *quorum = gp_pve_write_refused(path, r);

	return gp_error_errno(r, "Failed to write \"%s\"%s%s", path, *quorum ? ": " : "", quorum);
}

int gp_ini_save(const struct gp_ctx *ctx, const char *name, const struct gp_ini *conf)
{
	_cleanup_free_ char *path = gp_ini_path(ctx, name), *text = gp_ini_format(conf);
	int r;

	if (!text || !path)
		return -ENOMEM;
	r = gp_ini_check_readable(conf);
	if (r < 0)
		return r;
	r = gp_mkdir_parents(path);
	if (r == 0)
		r = gp_write_file_atomic(path, text, strlen(text), gp_container_file_mode(ctx),
					 GP_DURABLE);
	return r < 0 ? gp_ini_write_failed(path, r) : 0;
}
