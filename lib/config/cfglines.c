/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A container's config read as lines with their places, for check, adopt and the hook. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "config/cfglines.h"
#include "config/lxcconf.h"
#include "config/pveconf.h"

static unsigned int file_index(struct gp_cfglines *c, const char *file)
{
	for (size_t i = 0; i < c->nfiles; i++)
		if (strcmp(c->files[i], file) == 0)
			return (unsigned int)i;
	if (c->nfiles == GP_CFGLINES_FILES)
		return GP_CFGLINES_FILES;
	snprintf(c->files[c->nfiles], sizeof(c->files[0]), "%s", file);
	return (unsigned int)c->nfiles++;
}

static void fill(struct gp_cfgline *l, const char *key, const char *value, unsigned int file,
		 unsigned int line)
{
	snprintf(l->key, sizeof(l->key), "%s", key);
	l->too_long = strlen(value) >= sizeof(l->value) || strlen(key) >= sizeof(l->key);
	snprintf(l->value, sizeof(l->value), "%s", value);
	l->file = file;
	l->line = line;
}

static void add(struct gp_cfglines *c, const char *key, const char *value, const char *file,
		unsigned int line, bool pending)
{
	unsigned int fi = file_index(c, file);
	struct gp_cfgline *l;

	if (c->n == GP_CFGLINES_MAX || fi == GP_CFGLINES_FILES) {
		c->left_out++;
		return;
	}
	l = &c->v[c->n++];
	fill(l, key, value, fi, line);
	l->pending = pending;
}

static int add_lxc(const char *key, const char *value, const char *file, unsigned int line,
		   void *user)
{
	add(user, key, value, file, line, false);
	return 0;
}

/* "#key: value" (blanks after "#" aside) in the current section: a line commented out. */
static void add_commented(struct gp_cfglines *c, const char *line, size_t n, unsigned int lineno)
{
	char key[128], value[8192];

	while (n > 1 && (line[1] == ' ' || line[1] == '\t' || line[1] == '#'))
		line++, n--;
	if (c->ncommented == GP_CFGLINES_COMMENTED ||
	    !gp_pveconf_split(line + 1, n - 1, key, sizeof(key), value, sizeof(value)))
		return;
	fill(&c->commented[c->ncommented++], key, value, 0, lineno);
}

/* Proxmox: the current section, then [pve:pending]; other sections are snapshots. */
static void read_pve_text(struct gp_cfglines *c, const char *path, const char *buf, size_t len)
{
	const char *pos = buf, *line;
	bool skip = false, pending = false;
	unsigned int lineno = 0;
	size_t n;

	while (gp_line_next(&pos, buf + len, &line, &n)) {
		char key[128], value[8192];

		lineno++;
		if (n > 0 && line[0] == '[') {
			pending = n == 13 && strncmp(line, "[pve:pending]", 13) == 0;
			skip = !pending;
			continue;
		}
		if (!skip && !pending && n > 0 && line[0] == '#')
			add_commented(c, line, n, lineno);
		else if (!skip && line[0] != '#' &&
			 gp_pveconf_split(line, n, key, sizeof(key), value, sizeof(value)))
			add(c, key, value, path, lineno, pending);
	}
}

static int read_pve(const char *path, struct gp_cfglines *c)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r = gp_read_file(path, GP_PVE_CONFIG_MAX, &buf, &len);

	if (r == -ENOENT)
		return r;
	if (r < 0)
		return gp_error_errno(r, "Failed to read \"%s\"", path);
	read_pve_text(c, path, buf, len);
	return 0;
}

int gp_cfglines_read(const char *path, bool pve, struct gp_cfglines **out)
{
	struct gp_cfglines *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	c->pve = pve;
	file_index(c, path);
	if (pve) {
		r = read_pve(path, c);
	} else {
		r = gp_lxcconf_walk(path, add_lxc, c);
		if (r < 0 && r != -ENOENT)
			gp_error_errno(r, "Failed to read \"%s\"", path);
	}
	if (r < 0) {
		free(c);
		return r;
	}
	*out = c;
	return 0;
}

const char *gp_cfgline_file(const struct gp_cfglines *c, const struct gp_cfgline *l)
{
	return c->files[l->file];
}

void gp_cfgline_text(const struct gp_cfglines *c, const struct gp_cfgline *l, char *out,
		     size_t size)
{
	snprintf(out, size, "%s%s%s", l->key, c->pve ? ": " : " = ", l->value);
}

bool gp_cfgline_is(const struct gp_cfgline *l, const char *text)
{
	char copy[1024], key[128], value[1024], *k, *v;

	snprintf(copy, sizeof(copy), "%s", text);
	if (gp_pveconf_split(copy, strlen(copy), key, sizeof(key), value, sizeof(value)))
		return strcmp(l->key, key) == 0 && strcmp(l->value, value) == 0;
	return gp_lxcconf_split(copy, &k, &v) && strcmp(l->key, k) == 0 && strcmp(l->value, v) == 0;
}

void gp_cfg_mount_target(const char *target, char *out, size_t size)
{
	size_t n = 0;

	while (*target == '/' || (target[0] == '.' && target[1] == '/'))
		target += *target == '/' ? 1 : 2;
	for (; *target && n + 1 < size; target++)
		if (!(*target == '/' && (target[1] == '/' || n == 0 || out[n - 1] == '/')))
			out[n++] = *target;
	if (size)
		out[n] = '\0';
}

bool gp_cfg_source(const struct gp_cfgline *l, char *out, size_t size)
{
	char first[512], extra;
	unsigned int idx;
	const char *p = first;

	if (strcmp(l->key, "lxc.mount.entry") == 0) {
		if (sscanf(l->value, "%511s", first) != 1)
			return false;
	} else if (sscanf(l->key, "dev%u%c", &idx, &extra) != 1 ||
		   sscanf(l->value, "%511[^,]", first) != 1) {
		return false;
	} else if (strncmp(first, "path=", 5) == 0) {
		p += 5;
	}
	snprintf(out, size, "%s", p);
	return true;
}

bool gp_cfg_mount_option(const char *options, const char *word)
{
	char copy[512];

	snprintf(copy, sizeof(copy), "%s", options);
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (strcmp(t, word) == 0)
			return true;
	return false;
}

int gp_cfg_devn_option(const struct gp_cfgline *l, const char *name, unsigned int *value)
{
	char copy[512], extra;
	unsigned int idx;
	size_t n = strlen(name);

	if (sscanf(l->key, "dev%u%c", &idx, &extra) != 1)
		return 0;
	if (l->too_long)
		return -1; /* cut: what it gives is not known */
	snprintf(copy, sizeof(copy), "%s", l->value);
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long v;

		if (strncmp(t, name, n) != 0 || t[n] != '=')
			continue;
		errno = 0;
		v = strtoul(t + n + 1, &end, strcmp(name, "mode") == 0 ? 8 : 10);
		if (errno || end == t + n + 1 || *end || v > 0xffffffffUL ||
		    (strcmp(name, "mode") == 0 && v > 07777))
			return -1;
		*value = (unsigned int)v;
		return 1;
	}
	return 0;
}

/* "file:line: key = value": where a finding's line is, and the line itself. */
void gp_cfgline_where(const struct gp_cfglines *c, const struct gp_cfgline *l, char *out,
		      size_t size)
{
	char text[640];

	gp_cfgline_text(c, l, text, sizeof(text));
	snprintf(out, size, "%s:%u%s: %s", gp_cfgline_file(c, l), l->line,
		 l->pending ? " (pending)" : "", text);
}
