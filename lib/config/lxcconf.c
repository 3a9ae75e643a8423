/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "config/lxcconf.h"

#define LXCCONF_MAX_DEPTH 8

bool gp_lxcconf_split(char *line, char **key, char **value)
{
	char *s = gp_strtrim(line), *eq;

	if (!*s || *s == '#')
		return false;
	eq = strchr(s, '=');
	if (!eq)
		return false;
	*eq = '\0';
	*key = gp_strtrim(s);
	*value = gp_strtrim(eq + 1);
	return **key != '\0';
}

static int walk(const char *path, gp_lxcconf_fn fn, void *user, int depth);

static int filter_conf(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return e->d_name[0] != '.' && n > 5 && strcmp(e->d_name + n - 5, ".conf") == 0;
}

static int walk_include(const char *path, gp_lxcconf_fn fn, void *user, int depth)
{
	struct dirent **list = NULL;
	struct stat st;
	int n, r = 0;

	if (stat(path, &st) < 0)
		return 0;
	if (!S_ISDIR(st.st_mode)) {
		r = walk(path, fn, user, depth + 1);
		return r == -ENOENT ? 0 : r;
	}
	n = scandir(path, &list, filter_conf, alphasort);
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *sub = NULL;

		if (r == 0 && asprintf(&sub, "%s/%s", path, list[i]->d_name) >= 0)
			r = walk(sub, fn, user, depth + 1);
		free(list[i]);
	}
	free(list);
	return r == -ENOENT ? 0 : r;
}

static int walk(const char *path, gp_lxcconf_fn fn, void *user, int depth)
{
	_cleanup_free_ char *buf = NULL;
	unsigned int lineno = 0;
	const char *pos, *end, *at;
	size_t n;
	int r;

	if (depth > LXCCONF_MAX_DEPTH)
		return 0;
	r = gp_read_file(path, GP_LXC_CONFIG_MAX, &buf, NULL);
	if (r < 0)
		return r;
	end = buf + strlen(buf); /* before the loop: it cuts the buffer into lines */
	for (pos = buf; gp_line_next(&pos, end, &at, &n);) {
		char *line = buf + (at - buf), *key, *value;

		line[n] = '\0'; /* our copy: the line ends where its newline was */
		lineno++;
		if (!gp_lxcconf_split(line, &key, &value))
			continue;
		if (strcmp(key, "lxc.include") == 0)
			r = walk_include(value, fn, user, depth);
		else
			r = fn(key, value, path, lineno, user);
		if (r != 0)
			return r;
	}
	return 0;
}

int gp_lxcconf_walk(const char *path, gp_lxcconf_fn fn, void *user)
{
	return walk(path, fn, user, 0);
}

static bool line_matches(const char *line, size_t n, const char *const *list, size_t nlist)
{
	char copy[4096], want[4096];
	char *k1, *v1, *k2, *v2;

	if (n >= sizeof(copy))
		return false;
	memcpy(copy, line, n);
	copy[n] = '\0';
	if (!gp_lxcconf_split(copy, &k1, &v1))
		return false;
	for (size_t i = 0; i < nlist; i++) {
		snprintf(want, sizeof(want), "%s", list[i]);
		if (gp_lxcconf_split(want, &k2, &v2) && strcmp(k1, k2) == 0 && strcmp(v1, v2) == 0)
			return true;
	}
	return false;
}

char *gp_lxcconf_edit_text(const char *buf, const char *const *remove, size_t nremove,
			   const char *const *add, size_t nadd, bool *changed)
{
	const char *pos = buf, *end = buf + strlen(buf), *line;
	struct gp_buf out = { 0 };
	int r = gp_buf_printf(&out, "%s", "");
	size_t n;

	while (r == 0 && gp_line_next(&pos, end, &line, &n))
		if (!line_matches(line, n, remove, nremove))
			r = gp_buf_printf(&out, "%.*s\n", (int)n, line);
	for (size_t i = 0; i < nadd && r == 0; i++)
		r = gp_buf_printf(&out, "%s\n", add[i]);
	if (r < 0) {
		gp_buf_free(&out);
		return NULL;
	}
	*changed = strcmp(out.data, buf) != 0;
	return out.data;
}

static char *edit_lxc(const char *old, size_t len, void *u, bool *changed)
{
	const struct gp_line_edit *e = u;

	(void)len;
	return gp_lxcconf_edit_text(old, e->remove, e->nremove, e->add, e->nadd, changed);
}

int gp_lxcconf_edit(const char *path, const char *const *remove, size_t nremove,
		    const char *const *add, size_t nadd)
{
	struct gp_line_edit e = { remove, nremove, add, nadd };

	return gp_edit_file(path, GP_LXC_CONFIG_MAX, edit_lxc, &e);
}
