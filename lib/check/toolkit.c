/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What NVIDIA's container toolkit and Docker left in a container's rootfs (toolkit.h): read as
 * files only, each a regular file of the container's own filesystem reached through no link,
 * and parsed strictly. config.toml by a line parser of its own (Debian has no C library for
 * TOML: tomlc99 is not packaged, toml11 and toml++ are C++), daemon.json by json-c, a CDI
 * spec in YAML by libyaml.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "base/error.h"
#include "base/proc.h"
#include "base/util.h"
#include "check/toolkit.h"

static const char *const paths[GP_TK_NFILES] = {
	[GP_TK_CONFIG] = "/etc/nvidia-container-runtime/config.toml",
	[GP_TK_DAEMON] = "/etc/docker/daemon.json",
	[GP_TK_DPKG] = "/var/lib/dpkg/status",
	[GP_TK_SPEC_ETC_YAML] = "/etc/cdi/nvidia.yaml",
	[GP_TK_SPEC_ETC_JSON] = "/etc/cdi/nvidia.json",
	[GP_TK_SPEC_RUN_YAML] = "/var/run/cdi/nvidia.yaml",
};

const char *gp_toolkit_path(enum gp_toolkit_file which)
{
	return paths[which];
}

/* A path a configuration names, resolved as the container's own programs would: links inside. */
#define RESOLVE_NAMED (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)
/* A mount of the container's own that may be entered: no server of the container answers it. */
static bool is_memory_fs(const char *fstype)
{
	return strcmp(fstype, "tmpfs") == 0 || strcmp(fstype, "devtmpfs") == 0;
}

/*
 * The top directory name of a running container's rootfs ("dev", "run") where a mount of the
 * container's own is on it, entered only when its mount table says it is a tmpfs (asking
 * nothing of any filesystem first): the fd (O_PATH), or -1 with errno (EXDEV for another).
 */
static int enter_mount(int rootfd, int tablefd, const char *name)
{
	_cleanup_close_ int fd =
	    gp_openat2(rootfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0,
		       RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	_cleanup_close_ int table = -1;
	char fstype[64];
	FILE *f;
	int id, r;

	if (fd < 0)
		return -1;
	id = gp_proc_mount_id(fd);
	if (id >= 0 && id == gp_proc_mount_id(rootfd))
		return steal_fd(fd); /* no mount on it: the rootfs's own directory */
	table = tablefd < 0 ? -1 : dup(tablefd);
	if (id < 0 || table < 0 || lseek(table, 0, SEEK_SET) < 0 || !(f = fdopen(table, "r"))) {
		errno = EXDEV;
		return -1;
	}
	table = -1; /* f owns it */
	r = gp_mountinfo_fstype(f, id, fstype, sizeof(fstype));
	fclose(f);
	if (r < 0 || !is_memory_fs(fstype)) {
		errno = EXDEV;
		return -1;
	}
	return steal_fd(fd);
}

/* A container's /var/run is a link to /run: its files are read there. */
static const char *var_run(int rootfd, const char *path, char *buf, size_t size)
{
	_cleanup_close_ int var = -1;
	char target[16];
	ssize_t n;

	if (strncmp(path, "/var/run/", 9) != 0)
		return path;
	var = gp_openat2(rootfd, "var", O_PATH | O_DIRECTORY | O_CLOEXEC, 0, GP_RESOLVE_STRICT);
	n = var < 0 ? -1 : readlinkat(var, "run", target, sizeof(target) - 1);
	if (n < 0)
		return path;
	target[n] = '\0';
	if (strcmp(target, "/run") != 0 && strcmp(target, "../run") != 0)
		return path;
	snprintf(buf, size, "/run/%s", path + 9);
	return buf;
}

/*
 * Opens path of the container (absolute) as a regular file through no link and no mount but
 * a running container's own tmpfs at its top directory (its /run). The fd, or -1 with errno.
 */
static int open_file(int rootfd, int tablefd, bool running, const char *path)
{
	_cleanup_close_ int top = -1;
	char buf[256], name[64];
	const char *rest;
	int fd;

	path = var_run(rootfd, path, buf, sizeof(buf));
	fd = gp_open_regular(rootfd, path + 1, GP_RESOLVE_STRICT);
	if (fd >= 0 || errno != EXDEV || !running)
		return fd;
	rest = strchr(path + 1, '/');
	if (!rest || (size_t)(rest - path - 1) >= sizeof(name))
		return -1;
	snprintf(name, sizeof(name), "%.*s", (int)(rest - path - 1), path + 1);
	top = enter_mount(rootfd, tablefd, name);
	if (top < 0)
		return -1;
	return gp_open_regular(top, rest + 1, GP_RESOLVE_STRICT);
}

/* The whole file as text, up to max bytes: 0 or -errno as gp_toolkit_read says. */
static int read_file(int rootfd, int tablefd, bool running, enum gp_toolkit_file which, size_t max,
		     char **buf, size_t *len)
{
	_cleanup_close_ int fd = open_file(rootfd, tablefd, running, paths[which]);
	struct stat st;

	if (fd < 0)
		return errno == ENOTDIR ? -ENOENT : -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((size_t)st.st_size > max)
		return -EFBIG;
	return gp_read_fd(fd, max, buf, len);
}

/* ---- config.toml: the key [nvidia-container-cli] no-cgroups, every other line lexed ---- */

#define TOML_KEY "nvidia-container-cli.no-cgroups"
#define TOML_DEPTH 32

struct toml {
	const char *p, *end;
	unsigned int line;
	char *why;
	size_t size;
	struct gp_toolkit *t;
};

static int toml_fail(struct toml *s, const char *what)
{
	snprintf(s->why, s->size, "line %u: %s", s->line, what);
	return -GP_EBADCONF;
}

static void skip_blanks(struct toml *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t'))
		s->p++;
}

/* Blanks, newlines and comments, as between an array's values. */
static void skip_space(struct toml *s)
{
	for (;;) {
		skip_blanks(s);
		if (s->p < s->end && *s->p == '#')
			while (s->p < s->end && *s->p != '\n')
				s->p++;
		if (s->p < s->end && (*s->p == '\n' || *s->p == '\r')) {
			s->line += *s->p == '\n';
			s->p++;
			continue;
		}
		return;
	}
}

/* After a header or a value: blanks, a comment, then the line's end. */
static int end_of_line(struct toml *s)
{
	skip_blanks(s);
	if (s->p < s->end && *s->p == '#')
		while (s->p < s->end && *s->p != '\n')
			s->p++;
	if (s->p < s->end && *s->p == '\r')
		s->p++;
	if (s->p < s->end && *s->p != '\n')
		return toml_fail(s, "more after the value than a comment");
	return 0;
}

/* A string from its opening quote: "...", '...', or either tripled over several lines. */
static int toml_string(struct toml *s, char *out, size_t size)
{
	char q = *s->p;
	bool multi = s->end - s->p >= 3 && s->p[1] == q && s->p[2] == q;
	size_t n = 0;

	s->p += multi ? 3 : 1;
	while (s->p < s->end) {
		if (*s->p == q &&
		    (!multi || (s->end - s->p >= 3 && s->p[1] == q && s->p[2] == q))) {
			s->p += multi ? 3 : 1;
			if (out)
				out[n < size ? n : size - 1] = '\0';
			return 0;
		}
		if (*s->p == '\n' && !multi)
			break;
		s->line += *s->p == '\n';
		if (*s->p == '\\' && q == '"' && s->p + 1 < s->end)
			s->p++;
		if (out && n + 1 < size)
			out[n++] = *s->p;
		s->p++;
	}
	return toml_fail(s, "a string without its closing quote");
}

static bool is_bare(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* A dotted key (bare or quoted parts), joined with '.' into out. */
static int toml_key(struct toml *s, char *out, size_t size)
{
	size_t n = 0;

	for (;;) {
		char part[128];
		size_t k = 0;

		skip_blanks(s);
		if (s->p < s->end && (*s->p == '"' || *s->p == '\'')) {
			if (s->end - s->p >= 3 && s->p[1] == *s->p && s->p[2] == *s->p)
				return toml_fail(s, "a key that is a multi-line string");
			if (toml_string(s, part, sizeof(part)) < 0)
				return -GP_EBADCONF;
		} else {
			while (s->p < s->end && is_bare(*s->p) && k + 1 < sizeof(part))
				part[k++] = *s->p++;
			part[k] = '\0';
			if (k == 0)
				return toml_fail(s, "not a key, a [table] or a comment");
		}
		n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%s%s", n ? "." : "", part);
		if (n >= size)
			return toml_fail(s, "a key too long");
		skip_blanks(s);
		if (s->p >= s->end || *s->p != '.')
			return 0;
		s->p++;
	}
}

static int toml_value(struct toml *s, int depth);

/* [a, b, ...] over any number of lines, or {k = v, ...} on one. */
static int toml_list(struct toml *s, int depth)
{
	char close = *s->p == '[' ? ']' : '}';
	char key[256];

	if (depth > TOML_DEPTH)
		return toml_fail(s, "arrays or tables nested too deep");
	s->p++;
	for (;;) {
		if (close == ']')
			skip_space(s);
		else
			skip_blanks(s);
		if (s->p < s->end && *s->p == close) {
			s->p++;
			return 0;
		}
		if (close == '}') {
			if (toml_key(s, key, sizeof(key)) < 0)
				return -GP_EBADCONF;
			if (s->p >= s->end || *s->p != '=')
				return toml_fail(s, "an inline table's key without '='");
			s->p++;
			skip_blanks(s);
		}
		if (toml_value(s, depth + 1) < 0)
			return -GP_EBADCONF;
		if (close == ']')
			skip_space(s);
		else
			skip_blanks(s);
		if (s->p < s->end && *s->p == ',')
			s->p++;
		else if (s->p >= s->end || *s->p != close)
			return toml_fail(s, close == ']' ? "an array without its ']'"
							 : "an inline table without its '}'");
	}
}

/* A value, passed over: a string, an array, an inline table, or a bare word (a number). */
static int toml_value(struct toml *s, int depth)
{
	const char *start = s->p;

	if (s->p >= s->end)
		return toml_fail(s, "a key without a value");
	if (*s->p == '"' || *s->p == '\'')
		return toml_string(s, NULL, 0);
	if (*s->p == '[' || *s->p == '{')
		return toml_list(s, depth);
	while (s->p < s->end && (is_bare(*s->p) || strchr("+.:", *s->p)))
		s->p++;
	return s->p == start ? toml_fail(s, "not a value") : 0;
}

/* The key's value: true or false, and nothing else. */
static int no_cgroups(struct toml *s)
{
	size_t n = (size_t)(s->end - s->p);

	if (s->t->no_cgroups != GP_UNKNOWN)
		return toml_fail(s, TOML_KEY " twice");
	s->t->no_cgroups_line = s->line;
	if (n >= 4 && strncmp(s->p, "true", 4) == 0 && (n == 4 || !is_bare(s->p[4]))) {
		s->t->no_cgroups = GP_YES;
		s->p += 4;
	} else if (n >= 5 && strncmp(s->p, "false", 5) == 0 && (n == 5 || !is_bare(s->p[5]))) {
		s->t->no_cgroups = GP_NO;
		s->p += 5;
	} else {
		return toml_fail(s, "no-cgroups is not true or false");
	}
	return 0;
}

/* [table] or [[array of tables]]: the table the keys after it are in. */
static int toml_header(struct toml *s, char *table, size_t size)
{
	bool array = s->end - s->p >= 2 && s->p[1] == '[';

	s->p += array ? 2 : 1;
	if (toml_key(s, table, size) < 0)
		return -GP_EBADCONF;
	if (s->end - s->p < (array ? 2 : 1) || *s->p != ']' || (array && s->p[1] != ']'))
		return toml_fail(s, "a [table] header without its ']'");
	s->p += array ? 2 : 1;
	return end_of_line(s);
}

/* key = value, in table: the one key looked for, every other lexed and passed over. */
static int toml_pair(struct toml *s, const char *table)
{
	char key[256], full[512];

	if (toml_key(s, key, sizeof(key)) < 0)
		return -GP_EBADCONF;
	if (s->p >= s->end || *s->p != '=')
		return toml_fail(s, "not key = value");
	s->p++;
	skip_blanks(s);
	snprintf(full, sizeof(full), "%s%s%s", table, *table ? "." : "", key);
	if (strcmp(full, TOML_KEY) == 0) {
		if (no_cgroups(s) < 0)
			return -GP_EBADCONF;
	} else if (strcmp(full, "nvidia-container-cli") == 0) {
		return toml_fail(s, "[nvidia-container-cli] as an inline table: not read");
	} else if (toml_value(s, 0) < 0) {
		return -GP_EBADCONF;
	}
	return end_of_line(s);
}

int gp_toolkit_parse_config(const char *buf, size_t len, struct gp_toolkit *t, char *why,
			    size_t size)
{
	struct toml s = { buf, buf + len, 1, why, size, t };
	char table[256] = "";

	t->no_cgroups = GP_UNKNOWN;
	if (memchr(buf, '\0', len))
		return toml_fail(&s, "a NUL byte: not a text file");
	for (;;) {
		skip_space(&s);
		if (s.p >= s.end)
			return 0;
		if (*s.p == '[' ? toml_header(&s, table, sizeof(table)) < 0
				: toml_pair(&s, table) < 0) {
			t->no_cgroups = GP_UNKNOWN;
			return -GP_EBADCONF;
		}
	}
}

/* ---- daemon.json ---- */

/* A whole JSON document of buf, nothing but blanks after it: the object, or NULL. */
static struct json_object *parse_json(const char *buf, size_t len, char *why, size_t size)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	size_t used;

	if (!tok)
		return NULL;
	o = json_tokener_parse_ex(tok, buf, (int)len);
	used = json_tokener_get_parse_end(tok);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    strspn(buf + used, " \t\r\n") != len - used) {
		snprintf(why, size, "not JSON: %s at byte %zu",
			 o ? "more after the document"
			   : json_tokener_error_desc(json_tokener_get_error(tok)),
			 used);
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

static const char *string_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		   ? json_object_get_string(v)
		   : NULL;
}

/* runtimes.NAME: whether it is there, and its program. 0, or -GP_EBADCONF (said). */
static int runtime_of(struct json_object *runtimes, struct gp_toolkit_runtime *rt, char *why,
		      size_t size)
{
	struct json_object *r;
	const char *path;

	if (!runtimes || !json_object_object_get_ex(runtimes, rt->name, &r))
		return 0;
	if (!json_object_is_type(r, json_type_object)) {
		snprintf(why, size, "runtimes.%s is not an object", rt->name);
		return -GP_EBADCONF;
	}
	rt->defined = true;
	path = string_of(r, "path");
	snprintf(rt->path, sizeof(rt->path), "%s", path ? path : "");
	return 0;
}

static int daemon_fields(struct json_object *o, struct gp_toolkit *t, char *why, size_t size)
{
	struct json_object *features, *cdi, *runtimes = NULL;
	const char *def = string_of(o, "default-runtime");

	if (json_object_object_get_ex(o, "features", &features) &&
	    json_object_object_get_ex(features, "cdi", &cdi)) {
		if (!json_object_is_type(cdi, json_type_boolean)) {
			snprintf(why, size, "features.cdi is not true or false");
			return -GP_EBADCONF;
		}
		t->cdi_feature = json_object_get_boolean(cdi) ? GP_YES : GP_NO;
	}
	if (json_object_object_get_ex(o, "runtimes", &runtimes) &&
	    !json_object_is_type(runtimes, json_type_object)) {
		snprintf(why, size, "runtimes is not an object");
		return -GP_EBADCONF;
	}
	snprintf(t->default_runtime.name, sizeof(t->default_runtime.name), "%s", def ? def : "");
	snprintf(t->nvidia.name, sizeof(t->nvidia.name), "nvidia");
	if (def && runtime_of(runtimes, &t->default_runtime, why, size) < 0)
		return -GP_EBADCONF;
	return runtime_of(runtimes, &t->nvidia, why, size);
}

int gp_toolkit_parse_daemon(const char *buf, size_t len, struct gp_toolkit *t, char *why,
			    size_t size)
{
	struct json_object *o = parse_json(buf, len, why, size);
	int r;

	t->cdi_feature = GP_UNKNOWN;
	if (!o)
		return -GP_EBADCONF;
	if (!json_object_is_type(o, json_type_object)) {
		snprintf(why, size, "not a JSON object");
		r = -GP_EBADCONF;
	} else {
		r = daemon_fields(o, t, why, size);
	}
	json_object_put(o);
	return r;
}

/* ---- dpkg's status ---- */

struct stanza {
	char package[32], version[64];
	bool installed;
};

static void field(struct stanza *st, const char *line, size_t n)
{
	static const char installed[] = " installed";

	if (n > 9 && strncmp(line, "Package: ", 9) == 0)
		snprintf(st->package, sizeof(st->package), "%.*s", (int)(n - 9), line + 9);
	else if (n > 9 && strncmp(line, "Version: ", 9) == 0)
		snprintf(st->version, sizeof(st->version), "%.*s", (int)(n - 9), line + 9);
	else if (n > 8 && strncmp(line, "Status: ", 8) == 0)
		st->installed =
		    n >= sizeof(installed) - 1 && strncmp(line + n - (sizeof(installed) - 1),
							  installed, sizeof(installed) - 1) == 0;
}

static void take(const struct stanza *st, struct gp_toolkit *t)
{
	if (!st->installed ||
	    (strcmp(st->package, "docker.io") != 0 && strcmp(st->package, "docker-ce") != 0))
		return;
	snprintf(t->docker_package, sizeof(t->docker_package), "%s", st->package);
	snprintf(t->docker_version, sizeof(t->docker_version), "%s", st->version);
}

void gp_toolkit_parse_dpkg(const char *buf, size_t len, struct gp_toolkit *t)
{
	const char *pos = buf, *line;
	struct stanza st = { 0 };
	size_t n;

	while (gp_line_next(&pos, buf + len, &line, &n)) {
		if (n == 0) {
			take(&st, t);
			memset(&st, 0, sizeof(st));
		} else if (line[0] != ' ' && line[0] != '\t') {
			field(&st, line, n);
		}
	}
	take(&st, t);
}

int gp_toolkit_docker_version(const char *v)
{
	const char *colon = strchr(v, ':');
	unsigned int major, minor;
	int n = 0;

	if (colon && strspn(v, "0123456789") == (size_t)(colon - v))
		v = colon + 1;
	if (sscanf(v, "%3u.%3u%n", &major, &minor, &n) != 2 || n == 0 || v[0] < '0' || v[0] > '9')
		return -1;
	return (int)(major * 100 + minor);
}

/* ---- a CDI spec: its kind, and the nodes and files it names ---- */

#define YAML_NODES_MAX 65536
#define YAML_DEPTH 32

struct convert {
	yaml_document_t *doc;
	size_t budget; /* nodes left to convert: aliases cannot multiply a document */
};

static struct json_object *yaml_node(struct convert *c, yaml_node_t *n, int depth);

static struct json_object *yaml_mapping(struct convert *c, yaml_node_t *n, int depth)
{
	struct json_object *o = json_object_new_object();

	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
		struct json_object *jv;

		if (!k || k->type != YAML_SCALAR_NODE || !v || !(jv = yaml_node(c, v, depth + 1))) {
			json_object_put(o);
			return NULL;
		}
		json_object_object_add(o, (const char *)k->data.scalar.value, jv);
	}
	return o;
}

/* A YAML node as json-c's: scalars as strings. NULL past the limits or for a bad key. */
static struct json_object *yaml_node(struct convert *c, yaml_node_t *n, int depth)
{
	struct json_object *a;

	if (depth > YAML_DEPTH || c->budget == 0)
		return NULL;
	c->budget--;
	if (n->type == YAML_SCALAR_NODE)
		return json_object_new_string_len((const char *)n->data.scalar.value,
						  (int)n->data.scalar.length);
	if (n->type == YAML_MAPPING_NODE)
		return yaml_mapping(c, n, depth);
	if (n->type != YAML_SEQUENCE_NODE)
		return NULL;
	a = json_object_new_array();
	for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top;
	     i++) {
		yaml_node_t *item = yaml_document_get_node(c->doc, *i);
		struct json_object *ji = item ? yaml_node(c, item, depth + 1) : NULL;

		if (!ji) {
			json_object_put(a);
			return NULL;
		}
		json_object_array_add(a, ji);
	}
	return a;
}

/* The first document of a YAML text, as json-c's: NULL with why said. */
static struct json_object *parse_yaml(const char *buf, size_t len, char *why, size_t size)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct json_object *o = NULL;
	yaml_node_t *root;

	if (!yaml_parser_initialize(&parser))
		return NULL;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(why, size, "line %zu: not YAML: %s", parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "?");
		yaml_parser_delete(&parser);
		return NULL;
	}
	root = yaml_document_get_root_node(&doc);
	if (root) {
		struct convert c = { &doc, YAML_NODES_MAX };

		o = yaml_node(&c, root, 0);
		if (!o)
			snprintf(why, size,
				 "a YAML document past %d nodes or %d levels, or with "
				 "a key that is not a string",
				 YAML_NODES_MAX, YAML_DEPTH);
	} else {
		snprintf(why, size, "an empty YAML document");
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return o;
}

struct judge {
	int rootfd;
	int devfd; /* the running container's /dev, else -1: no node is judged */
	struct gp_toolkit_spec *spec;
};

/* A device node of the container: there, also as a mount point (the hook binds its nodes). */
static enum gp_presence node_presence(const struct judge *j, const char *path)
{
	_cleanup_close_ int fd = -1;

	if (j->devfd < 0 || strncmp(path, "/dev/", 5) != 0 || strstr(path, "/../"))
		return GP_UNJUDGED;
	fd = gp_openat2(j->devfd, path + 5, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0, GP_RESOLVE_STRICT);
	if (fd >= 0 || errno == EXDEV)
		return GP_PRESENT;
	return errno == ENOENT || errno == ENOTDIR ? GP_ABSENT : GP_UNJUDGED;
}

/* A file of the container, its links followed inside it but across none of its mounts. */
static enum gp_presence file_presence(int rootfd, const char *path)
{
	_cleanup_close_ int fd = -1;

	if (path[0] != '/')
		return GP_UNJUDGED;
	fd = gp_openat2(rootfd, path + 1, O_PATH | O_CLOEXEC, 0, RESOLVE_NAMED);
	if (fd >= 0)
		return GP_PRESENT;
	return errno == ENOENT || errno == ENOTDIR ? GP_ABSENT : GP_UNJUDGED;
}

static void count(unsigned int *n, unsigned int *absent, char *first, size_t size, const char *path,
		  enum gp_presence p)
{
	if (p == GP_UNJUDGED)
		return;
	(*n)++;
	if (p == GP_ABSENT && (*absent)++ == 0)
		snprintf(first, size, "%s", path);
}

/* Each of array's objects' key (a path): judged by kind (a node, else a file). */
static void judge_paths(const struct judge *j, struct json_object *edits, const char *array,
			const char *key, const char *alt, bool node)
{
	struct gp_toolkit_spec *s = j->spec;
	struct json_object *a;

	if (!json_object_object_get_ex(edits, array, &a) ||
	    !json_object_is_type(a, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *e = json_object_array_get_idx(a, i);
		const char *path = string_of(e, key);

		if (!path && alt)
			path = string_of(e, alt);
		if (!path)
			continue;
		if (node)
			count(&s->nodes, &s->nodes_absent, s->node_absent, sizeof(s->node_absent),
			      path, node_presence(j, path));
		else
			count(&s->files, &s->files_absent, s->file_absent, sizeof(s->file_absent),
			      path, file_presence(j->rootfd, path));
	}
}

static void judge_edits(const struct judge *j, struct json_object *holder)
{
	struct json_object *edits;

	if (!json_object_object_get_ex(holder, "containerEdits", &edits))
		return;
	/* A node's hostPath is where the runtime looks for it; path where it has none. */
	judge_paths(j, edits, "deviceNodes", "hostPath", "path", true);
	judge_paths(j, edits, "mounts", "hostPath", NULL, false);
	judge_paths(j, edits, "hooks", "path", NULL, false);
}

static void judge_spec(const struct judge *j, struct json_object *spec)
{
	struct json_object *devices;
	const char *kind = string_of(spec, "kind");

	snprintf(j->spec->kind, sizeof(j->spec->kind), "%s", kind ? kind : "");
	judge_edits(j, spec);
	if (!json_object_object_get_ex(spec, "devices", &devices) ||
	    !json_object_is_type(devices, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(devices); i++)
		judge_edits(j, json_object_array_get_idx(devices, i));
}

/* ---- the whole read ---- */

struct reader {
	int rootfd, tablefd;
	bool running;
	struct gp_toolkit *t;
};

/* One file into *buf: its status said in t (0 when read). */
static int load(const struct reader *rd, enum gp_toolkit_file which, size_t max, char **buf,
		size_t *len)
{
	struct gp_toolkit_read *f = &rd->t->files[which];

	f->status = read_file(rd->rootfd, rd->tablefd, rd->running, which, max, buf, len);
	return f->status;
}

/* Where a program of a runtime is: its path, or the first of dockerd's PATH that has it. */
static enum gp_presence program_presence(int rootfd, const char *program)
{
	static const char *const dirs[] = { "/usr/local/sbin", "/usr/local/bin", "/usr/sbin",
					    "/usr/bin",	       "/sbin",		 "/bin" };
	enum gp_presence p = GP_ABSENT;
	char path[512];

	if (program[0] == '/')
		return file_presence(rootfd, program);
	if (!*program || strchr(program, '/'))
		return GP_UNJUDGED;
	for (size_t i = 0; i < GP_ARRAY_SIZE(dirs) && p != GP_PRESENT; i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], program);
		if (file_presence(rootfd, path) == GP_PRESENT)
			p = GP_PRESENT;
	}
	return p;
}

static void read_daemon(const struct reader *rd)
{
	_cleanup_free_ char *buf = NULL;
	struct gp_toolkit *t = rd->t;
	struct gp_toolkit_read *f = &t->files[GP_TK_DAEMON];
	size_t len;

	t->cdi_feature = GP_UNKNOWN;
	if (load(rd, GP_TK_DAEMON, GP_TOOLKIT_FILE_MAX, &buf, &len) < 0)
		return;
	f->status = gp_toolkit_parse_daemon(buf, len, t, f->why, sizeof(f->why));
	if (f->status < 0)
		return;
	/* Docker's own runc needs no program of the container's configuration. */
	t->default_runtime.program = t->default_runtime.path[0]
					 ? program_presence(rd->rootfd, t->default_runtime.path)
					 : GP_UNJUDGED;
	t->nvidia.program =
	    t->nvidia.path[0] ? program_presence(rd->rootfd, t->nvidia.path) : GP_UNJUDGED;
}

static void read_spec(const struct reader *rd, enum gp_toolkit_file which, int devfd)
{
	_cleanup_free_ char *buf = NULL;
	struct gp_toolkit_read *f = &rd->t->files[which];
	struct judge j = { rd->rootfd, devfd, &rd->t->specs[which - GP_TK_SPEC_FIRST] };
	struct json_object *spec;
	size_t len;

	if (load(rd, which, GP_TOOLKIT_FILE_MAX, &buf, &len) < 0)
		return;
	if (which == GP_TK_SPEC_ETC_JSON)
		spec = parse_json(buf, len, f->why, sizeof(f->why));
	else
		spec = parse_yaml(buf, len, f->why, sizeof(f->why));
	if (spec && !json_object_is_type(spec, json_type_object))
		snprintf(f->why, sizeof(f->why), "not a mapping of cdiVersion, kind and devices");
	if (!spec || !json_object_is_type(spec, json_type_object)) {
		f->status = -GP_EBADCONF;
		json_object_put(spec);
		return;
	}
	j.spec->nodes_judged = devfd >= 0;
	judge_spec(&j, spec);
	json_object_put(spec);
}

void gp_toolkit_read(int rootfd, int tablefd, bool running, struct gp_toolkit *t)
{
	struct reader rd = { rootfd, tablefd, running, t };
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int devfd = running ? enter_mount(rootfd, tablefd, "dev") : -1;
	struct gp_toolkit_read *f;
	size_t len;

	memset(t, 0, sizeof(*t));
	t->read = true;
	f = &t->files[GP_TK_CONFIG];
	if (load(&rd, GP_TK_CONFIG, GP_TOOLKIT_FILE_MAX, &buf, &len) == 0)
		f->status = gp_toolkit_parse_config(buf, len, t, f->why, sizeof(f->why));
	else
		t->no_cgroups = GP_UNKNOWN;
	free(steal_ptr(buf));
	read_daemon(&rd);
	if (load(&rd, GP_TK_DPKG, GP_TOOLKIT_DPKG_MAX, &buf, &len) == 0)
		gp_toolkit_parse_dpkg(buf, len, t);
	for (int s = GP_TK_SPEC_FIRST; s < GP_TK_NFILES; s++)
		read_spec(&rd, (enum gp_toolkit_file)s, devfd);
}

void gp_toolkit_seal(struct gp_toolkit *t)
{
#define SEAL(field) ((field)[sizeof(field) - 1] = '\0')
	for (int i = 0; i < GP_TK_NFILES; i++)
		SEAL(t->files[i].why);
	SEAL(t->default_runtime.name);
	SEAL(t->default_runtime.path);
	SEAL(t->nvidia.name);
	SEAL(t->nvidia.path);
	SEAL(t->docker_package);
	SEAL(t->docker_version);
	for (int i = 0; i < GP_TK_NFILES - GP_TK_SPEC_FIRST; i++) {
		SEAL(t->specs[i].kind);
		SEAL(t->specs[i].node_absent);
		SEAL(t->specs[i].file_absent);
	}
#undef SEAL
}
