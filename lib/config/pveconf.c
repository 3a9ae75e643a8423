/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Proxmox VE container configs, read and edited as text, one section touched. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "config/pveconf.h"

#define LINE_MAX_LEN 8192

/* Walks the lines of [start, end): calls fn with each line (no newline) and its offset. */
static int for_lines(const char *text, size_t start, size_t end,
		     int (*fn)(const char *line, size_t n, size_t off, void *u), void *u)
{
	const char *pos = text + start, *line;
	size_t n;

	while (gp_line_next(&pos, text + end, &line, &n)) {
		int r = fn(line, n, (size_t)(line - text), u);

		if (r)
			return r;
	}
	return 0;
}

static bool is_key_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || ch == '.' || ch == '-';
}

/*
 * "key: value", or "lxc.key = value" as Proxmox also reads raw keys: the key's length,
 * 0 when the line is neither; *value_at is where the value starts (before its blanks).
 */
static size_t key_length(const char *line, size_t n, size_t *value_at)
{
	size_t k = 0, s;

	while (k < n && is_key_char(line[k]))
		k++;
	if (k == 0 || k >= n)
		return 0;
	if (line[k] == ':') {
		*value_at = k + 1;
		return k;
	}
	for (s = k; s < n && (line[s] == ' ' || line[s] == '\t');)
		s++;
	if (k > 4 && strncmp(line, "lxc.", 4) == 0 && s < n && line[s] == '=') {
		*value_at = s + 1;
		return k;
	}
	return 0;
}

struct parse_state {
	struct gp_pveconf *c;
	unsigned int lineno;
	bool found_section;
};

static int check_line(const char *line, size_t n, size_t off, void *u)
{
	struct parse_state *s = u;

	s->lineno++;
	if (n > LINE_MAX_LEN || memchr(line, '\0', n))
		return -GP_EBADCONF;
	if (n == 0 || line[0] == '#')
		return 0;
	if (line[0] == '[') {
		if (n < 3 || line[n - 1] != ']')
			return -GP_EBADCONF;
		if (!s->found_section) {
			s->found_section = true;
			s->c->current_end = off;
		}
		return 0;
	}
	return key_length(line, n, &(size_t){ 0 }) ? 0 : -GP_EBADCONF;
}

int gp_pveconf_parse(const char *buf, size_t len, struct gp_pveconf *c)
{
	struct parse_state s = { .c = c };
	int r;

	*c = (struct gp_pveconf){ .text = buf, .len = len, .current_end = len };
	r = for_lines(buf, 0, len, check_line, &s);
	if (r < 0)
		c->bad_line = s.lineno;
	return r;
}

/* Splits "key: value" (or "lxc.key = value") into trimmed parts, in copies. */
static bool split(const char *line, size_t n, char *key, size_t ksize, char *value, size_t vsize)
{
	size_t at, k = key_length(line, n, &at);
	char tmp[LINE_MAX_LEN + 1];

	if (!k || k >= ksize || n - at >= vsize)
		return false;
	memcpy(key, line, k);
	key[k] = '\0';
	memcpy(tmp, line + at, n - at);
	tmp[n - at] = '\0';
	snprintf(value, vsize, "%s", gp_strtrim(tmp));
	return true;
}

/* The public face of split for one line: false when it is no "key: value" line. */
bool gp_pveconf_split(const char *line, size_t n, char *key, size_t ksize, char *value,
		      size_t vsize)
{
	return n <= LINE_MAX_LEN && split(line, n, key, ksize, value, vsize);
}

struct get_state {
	const char *key;
	char *out;
	size_t size;
};

static int get_line(const char *line, size_t n, size_t off, void *u)
{
	struct get_state *s = u;
	char key[128], value[LINE_MAX_LEN + 1];

	(void)off;
	if (!split(line, n, key, sizeof(key), value, sizeof(value)) || strcmp(key, s->key) != 0)
		return 0;
	snprintf(s->out, s->size, "%s", value);
	return 1;
}

int gp_pveconf_get(const struct gp_pveconf *c, const char *key, char *out, size_t size)
{
	struct get_state s = { key, out, size };

	return for_lines(c->text, 0, c->current_end, get_line, &s) == 1 ? 0 : -ENOENT;
}

static bool in_list(const char *line, size_t n, const char *const *list, size_t count)
{
	char key[128], value[LINE_MAX_LEN + 1], k2[128], v2[LINE_MAX_LEN + 1];

	if (!split(line, n, key, sizeof(key), value, sizeof(value)))
		return false;
	for (size_t i = 0; i < count; i++)
		if (split(list[i], strlen(list[i]), k2, sizeof(k2), v2, sizeof(v2)) &&
		    strcmp(key, k2) == 0 && strcmp(value, v2) == 0)
			return true;
	return false;
}

struct edit_state {
	struct gp_buf out;
	const struct gp_pveconf *c;
	const char *const *remove;
	size_t nremove;
	size_t last_kept_start; /* where in out the section's last non-blank line starts */
	size_t last_kept_end;	/* and where it ends */
	int r;
};

/* Copies a kept line with its newline, if it had one: unchanged text stays byte-identical. */
static int edit_line(const char *line, size_t n, size_t off, void *u)
{
	struct edit_state *s = u;
	bool newline = off + n < s->c->len && s->c->text[off + n] == '\n';

	if (in_list(line, n, s->remove, s->nremove))
		return 0;
	if (n > 0)
		s->last_kept_start = s->out.len;
	s->r = gp_buf_printf(&s->out, "%.*s%s", (int)n, line, newline ? "\n" : "");
	if (n > 0)
		s->last_kept_end = s->out.len;
	return s->r;
}

/* Inserts the new lines after the section's last non-blank line, before blank separators. */
static int insert_at(struct gp_buf *b, size_t at, const char *const *add, size_t nadd)
{
	_cleanup_free_ char *tail = strdup(b->data + at);
	int r = 0;

	if (!tail)
		return -ENOMEM;
	b->len = at;
	b->data[at] = '\0';
	for (size_t i = 0; i < nadd && r == 0; i++)
		r = gp_buf_printf(b, "%s\n", add[i]);
	return r ? r : gp_buf_printf(b, "%s", tail);
}

char *gp_pveconf_edit(const struct gp_pveconf *c, const char *const *remove, size_t nremove,
		      const char *const *add, size_t nadd, bool *changed)
{
	struct edit_state s = { .c = c, .remove = remove, .nremove = nremove };

	if (gp_buf_printf(&s.out, "%s", "") < 0)
		return NULL;
	for_lines(c->text, 0, c->current_end, edit_line, &s);
	/*
	 * After the last line; but before it when it ends the file without a newline, so
	 * that taking the lines out again gives back the very same bytes.
	 */
	if (s.r == 0 && nadd)
		s.r = insert_at(&s.out,
				s.last_kept_end && s.out.data[s.last_kept_end - 1] != '\n'
				    ? s.last_kept_start
				    : s.last_kept_end,
				add, nadd);
	if (s.r == 0)
		s.r = gp_buf_printf(&s.out, "%.*s", (int)(c->len - c->current_end),
				    c->text + c->current_end);
	if (s.r < 0) {
		gp_buf_free(&s.out);
		return NULL;
	}
	*changed = s.out.len != c->len || memcmp(s.out.data, c->text, c->len) != 0;
	return s.out.data;
}

/* The current section's key line: its offset, length and number in the file. */
struct key_line {
	const char *key;
	size_t off, n;
	unsigned int lineno, line;
};

static int find_key_line(const char *line, size_t n, size_t off, void *u)
{
	struct key_line *s = u;
	char key[128], value[LINE_MAX_LEN + 1];

	s->lineno++;
	if (!split(line, n, key, sizeof(key), value, sizeof(value)) || strcmp(key, s->key) != 0)
		return 0;
	s->off = off;
	s->n = n;
	s->line = s->lineno;
	return 1;
}

/* One part of a list value, as offsets into its line: the name's and the value's, trimmed. */
struct item_part {
	size_t name_at, name_len, value_at, end;
};

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* A part [a, b) trimmed of blanks, as "name=value": false for anything else. */
static bool item_part(const char *line, size_t a, size_t b, struct item_part *p)
{
	size_t eq = a;

	while (eq < b && is_key_char(line[eq]) && line[eq] != '.')
		eq++;
	if (eq == a || eq + 1 >= b || line[eq] != '=')
		return false;
	*p = (struct item_part){ a, eq - a, eq + 1, b };
	return true;
}

/*
 * Walks the parts of line[from, n): 1 when one is named name (*found), 0 when none is,
 * -GP_EBADCONF when any part is not "name=value". Blank parts are skipped, as Proxmox
 * skips them. *last is where the last non-blank byte of the value ends.
 */
static int find_item(const char *line, size_t from, size_t n, const char *name,
		     struct item_part *found, size_t *last)
{
	int r = 0;

	*last = from;
	for (size_t s = from; s <= n;) {
		size_t e = s, a, b;
		struct item_part p;

		while (e < n && line[e] != ',')
			e++;
		for (a = s; a < e && is_blank(line[a]);)
			a++;
		for (b = e; b > a && is_blank(line[b - 1]);)
			b--;
		if (a < b && !item_part(line, a, b, &p))
			return -GP_EBADCONF;
		if (a < b && !r && p.name_len == strlen(name) &&
		    memcmp(line + p.name_at, name, p.name_len) == 0) {
			*found = p;
			r = 1;
		}
		if (a < b || e < n)
			*last = a < b ? b : e + 1;
		s = e + 1;
	}
	return r;
}

int gp_pveconf_item_get(const struct gp_pveconf *c, const char *key, const char *name, char *out,
			size_t size, unsigned int *line)
{
	struct key_line k = { .key = key };
	struct item_part p;
	size_t at, last;
	int r;

	if (for_lines(c->text, 0, c->current_end, find_key_line, &k) != 1)
		return -ENOENT;
	*line = k.line;
	key_length(c->text + k.off, k.n, &at);
	r = find_item(c->text + k.off, at, k.n, name, &p, &last);
	if (r <= 0)
		return r < 0 ? r : -ENOENT;
	snprintf(out, size, "%.*s", (int)(p.end - p.value_at), c->text + k.off + p.value_at);
	return 0;
}

/* The text with [from, to) of it replaced by what, malloc'd. */
static char *splice(const struct gp_pveconf *c, size_t from, size_t to, const char *what,
		    bool *changed)
{
	struct gp_buf b = { 0 };

	if (gp_buf_printf(&b, "%.*s%s%.*s", (int)from, c->text, what, (int)(c->len - to),
			  c->text + to) < 0) {
		gp_buf_free(&b);
		return NULL;
	}
	*changed = b.len != c->len || memcmp(b.data, c->text, c->len) != 0;
	return b.data;
}

/* Takes the part p out of its line k, with one comma beside it; the line too when it empties. */
static char *take_out(const struct gp_pveconf *c, const struct key_line *k, size_t at,
		      const struct item_part *p, bool *changed)
{
	const char *line = c->text + k->off;
	size_t from = p->name_at, to = p->end, before = p->name_at, rest;

	while (before > at && is_blank(line[before - 1]))
		before--;
	if (before > at && line[before - 1] == ',')
		from = before - 1; /* ",name=value" after another part */
	else if (to < k->n && line[to] == ',')
		to++; /* the first part: "name=value," */
	for (rest = at; rest < k->n; rest++)
		if ((rest < from || rest >= to) && !is_blank(line[rest]) && line[rest] != ',')
			break;
	if (rest == k->n) /* nothing but blanks and commas left: the line goes, newline too */
		return splice(c, k->off, k->off + k->n + (k->off + k->n < c->len), "", changed);
	return splice(c, k->off + from, k->off + to, "", changed);
}

char *gp_pveconf_item_edit(const struct gp_pveconf *c, const struct gp_pveconf_item *it,
			   bool *changed, unsigned int *line)
{
	struct key_line k = { .key = it->key };
	_cleanup_free_ char *add = NULL;
	struct item_part p;
	size_t at, last;
	int r;

	if (for_lines(c->text, 0, c->current_end, find_key_line, &k) != 1) {
		if (!it->value || it->only_if)
			return splice(c, 0, 0, "", changed);
		if (asprintf(&add, "%s: %s=%s", it->key, it->name, it->value) < 0)
			return NULL;
		return gp_pveconf_edit(c, NULL, 0, (const char *const[]){ add }, 1, changed);
	}
	*line = k.line;
	key_length(c->text + k.off, k.n, &at);
	r = find_item(c->text + k.off, at, k.n, it->name, &p, &last);
	if (r < 0) {
		errno = GP_EBADCONF;
		return NULL;
	}
	if (r == 1 && it->only_if &&
	    (p.end - p.value_at != strlen(it->only_if) ||
	     memcmp(c->text + k.off + p.value_at, it->only_if, p.end - p.value_at) != 0))
		return splice(c, 0, 0, "", changed);
	if (r == 1 && it->value)
		return splice(c, k.off + p.value_at, k.off + p.end, it->value, changed);
	if (r == 1)
		return take_out(c, &k, at, &p, changed);
	if (!it->value || it->only_if)
		return splice(c, 0, 0, "", changed);
	/* Appended after the last part: taking it out again gives back the same bytes. */
	if (asprintf(&add, "%s%s=%s",
		     last == at				? " "
		     : c->text[k.off + last - 1] == ',' ? ""
							: ",",
		     it->name, it->value) < 0)
		return NULL;
	return splice(c, k.off + last, k.off + last, add, changed);
}

static int dev_line(const char *line, size_t n, size_t off, void *u)
{
	unsigned long long *used = u;
	unsigned int idx;
	char key[128], value[LINE_MAX_LEN + 1], extra;

	(void)off;
	if (split(line, n, key, sizeof(key), value, sizeof(value)) &&
	    sscanf(key, "dev%u%c", &idx, &extra) == 1 && idx < 64)
		*used |= 1ULL << idx;
	return 0;
}

unsigned long long gp_pveconf_used_devs(const struct gp_pveconf *c)
{
	unsigned long long used = 0;

	for_lines(c->text, 0, c->current_end, dev_line, &used);
	return used;
}

int gp_pveconf_check_unlocked(const struct gp_pveconf *c, const char *id)
{
	char lock[64];

	if (gp_pveconf_get(c, "lock", lock, sizeof(lock)) < 0)
		return 0;
	gp_error("container %s is locked (lock: %s): wait for that operation to end, or "
		 "\"pct unlock %s\" if it is stale",
		 id, lock, id);
	return -EBUSY;
}

struct locked_edit {
	const char *path, *id;
	const struct gp_line_edit *e;
	const struct gp_pveconf_item *item;
};

/* The item edit after the lines': said with the file and line when a part is not name=value. */
static char *edit_item(const struct locked_edit *le, char *text, bool *changed)
{
	_cleanup_free_ char *lines = text;
	struct gp_pveconf c;
	unsigned int line = 0;
	bool item_changed = false;
	char *out;

	if (gp_pveconf_parse(lines, strlen(lines), &c) < 0) {
		errno = GP_EBADCONF;
		return NULL;
	}
	out = gp_pveconf_item_edit(&c, le->item, &item_changed, &line);
	if (!out && errno == GP_EBADCONF)
		gp_error("%s:%u: a part of \"%s:\" is not name=value: write it as Proxmox does "
			 "(pct set %s --%s ...), then run this again",
			 le->path, line, le->item->key, le->id, le->item->key);
	*changed |= item_changed;
	return out;
}

/* The file as read under the config lock: refused when it is not ours to edit now. */
static char *edit_pve(const char *old, size_t len, void *u, bool *changed)
{
	const struct locked_edit *le = u;
	struct gp_pveconf c;
	char *text;
	int r;

	if (gp_pveconf_parse(old, len, &c) < 0) {
		gp_error("line %u is not \"key: value\", a comment or a [section]: not editing "
			 "this file",
			 c.bad_line);
		errno = GP_EBADCONF;
		return NULL;
	}
	r = gp_pveconf_check_unlocked(&c, le->id);
	if (r < 0) {
		errno = -r;
		return NULL;
	}
	text = gp_pveconf_edit(&c, le->e->remove, le->e->nremove, le->e->add, le->e->nadd, changed);
	return text && le->item ? edit_item(le, text, changed) : text;
}

int gp_pveconf_edit_file(const char *path, const char *id, const struct gp_line_edit *e,
			 const struct gp_pveconf_item *item)
{
	struct locked_edit le = { path, id, e, item };

	return gp_edit_file(path, GP_PVE_CONFIG_MAX, edit_pve, &le);
}
