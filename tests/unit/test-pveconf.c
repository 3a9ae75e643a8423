/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Proxmox VE configs: the real corpus round-trips, edits touch the current section only. */
#include "unit.h"

#include <dirent.h>

#include "base/util.h"
#include "config/pveconf.h"

static const char *const ours[] = {
	"lxc.hook.pre-start: /usr/libexec/gpu-provision/gpu-hook --confdir /etc/gpu-provision",
	"lxc.hook.autodev: /usr/libexec/gpu-provision/gpu-hook --confdir /etc/gpu-provision",
	"lxc.cgroup2.devices.allow: c 195:0 rwm",
	"dev0: /dev/nvidia0,mode=0666",
};

/* Runs fn over every file of the corpus copied from 75 real-world configs. */
static void each_corpus_file(void (*fn)(const char *name, const char *buf, size_t len))
{
	DIR *d = opendir(FIXTURES "/pve-lxc-conf");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		_cleanup_free_ char *path = NULL, *buf = NULL;
		size_t len;

		if (e->d_name[0] == '.')
			continue;
		assert_true(asprintf(&path, "%s/pve-lxc-conf/%s", FIXTURES, e->d_name) > 0);
		assert_int_equal(gp_read_file(path, 1 << 20, &buf, &len), 0);
		fn(e->d_name, buf, len);
		n++;
	}
	closedir(d);
	assert_int_equal(n, 75);
}

static void round_trip_one(const char *name, const char *buf, size_t len)
{
	struct gp_pveconf c;
	bool changed = true;
	char *out;

	if (gp_pveconf_parse(buf, len, &c) < 0)
		fail_msg("%s: refused at line %u", name, c.bad_line);
	out = gp_pveconf_edit(&c, NULL, 0, NULL, 0, &changed);
	assert_false(changed);
	assert_memory_equal(out, buf, len);
	free(out);
}

static void attach_detach_one(const char *name, const char *buf, size_t len)
{
	struct gp_pveconf c, d;
	bool changed;
	char *added, *removed;

	(void)name;
	assert_int_equal(gp_pveconf_parse(buf, len, &c), 0);
	added = gp_pveconf_edit(&c, ours, 4, ours, 4, &changed);
	assert_true(changed);
	assert_int_equal(gp_pveconf_parse(added, strlen(added), &d), 0);
	/* Every other section is byte-identical. */
	assert_int_equal(d.len - d.current_end, c.len - c.current_end);
	assert_memory_equal(added + d.current_end, buf + c.current_end, c.len - c.current_end);
	assert_non_null(strstr(added, ours[0]));
	assert_true((size_t)(strstr(added, ours[0]) - added) < d.current_end);
	removed = gp_pveconf_edit(&d, ours, 4, NULL, 0, &changed);
	assert_true(changed);
	assert_int_equal(strlen(removed), len);
	assert_memory_equal(removed, buf, len);
	free(added);
	free(removed);
}

static void corpus_round_trips(void **state)
{
	(void)state;
	each_corpus_file(round_trip_one);
}

static void corpus_attach_then_detach(void **state)
{
	(void)state;
	each_corpus_file(attach_detach_one);
}

static void pending_lock_and_devs(void **state)
{
	static const char text[] =
	    "#my%20container\narch: amd64\ndev0: /dev/dri/card0,gid=44\n"
	    "lock: backup\nlxc.cgroup2.devices.allow: c 226:* rwm\n"
	    "memory: 512\n\n[pve:pending]\nmemory: 1024\n\n[snap1]\nmemory: 256\n";
	const char *add[] = { "dev1: /dev/nvidia0" };
	struct gp_pveconf c;
	char lock[32];
	bool changed;
	char *out;

	(void)state;
	assert_int_equal(gp_pveconf_parse(text, strlen(text), &c), 0);
	assert_int_equal(gp_pveconf_get(&c, "lock", lock, sizeof(lock)), 0);
	assert_string_equal(lock, "backup");
	assert_int_equal(gp_pveconf_get(&c, "swap", lock, sizeof(lock)), -ENOENT);
	assert_int_equal(gp_pveconf_used_devs(&c), 1);
	/* The pending section's memory is not the current one. */
	assert_int_equal(gp_pveconf_get(&c, "memory", lock, sizeof(lock)), 0);
	assert_string_equal(lock, "512");
	out = gp_pveconf_edit(&c, NULL, 0, add, 1, &changed);
	assert_string_equal(out,
			    "#my%20container\narch: amd64\ndev0: /dev/dri/card0,gid=44\n"
			    "lock: backup\nlxc.cgroup2.devices.allow: c 226:* rwm\n"
			    "memory: 512\ndev1: /dev/nvidia0\n\n[pve:pending]\nmemory: 1024\n\n"
			    "[snap1]\nmemory: 256\n");
	free(out);
}

static void no_final_newline(void **state)
{
	static const char text[] = "arch: amd64\nmemory: 512";
	const char *add[] = { "dev0: /dev/nvidia0" };
	struct gp_pveconf c, d;
	bool changed;
	char *out, *back;

	(void)state;
	assert_int_equal(gp_pveconf_parse(text, strlen(text), &c), 0);
	out = gp_pveconf_edit(&c, NULL, 0, add, 1, &changed);
	assert_string_equal(out, "arch: amd64\ndev0: /dev/nvidia0\nmemory: 512");
	assert_int_equal(gp_pveconf_parse(out, strlen(out), &d), 0);
	back = gp_pveconf_edit(&d, add, 1, NULL, 0, &changed);
	assert_string_equal(back, text);
	free(out);
	free(back);
}

static void bad_lines_are_named(void **state)
{
	struct gp_pveconf c;

	(void)state;
	assert_int_equal(gp_pveconf_parse("arch: amd64\nthis is not a key\n", 30, &c),
			 -GP_EBADCONF);
	assert_int_equal(c.bad_line, 2);
	assert_int_equal(gp_pveconf_parse("[unterminated\n", 14, &c), -GP_EBADCONF);
	assert_int_equal(gp_pveconf_parse("a: b\0c: d\n", 10, &c), -GP_EBADCONF);
}

/* text with it applied; NULL with *line where a part is not name=value. */
static char *item_edit(const char *text, const struct gp_pveconf_item *it, unsigned int *line)
{
	struct gp_pveconf c;
	bool changed;

	assert_int_equal(gp_pveconf_parse(text, strlen(text), &c), 0);
	return gp_pveconf_item_edit(&c, it, &changed, line);
}

/* Sets it on before, expecting set, then takes it out again: before, byte for byte. */
static void item_round_trip(const char *before, const char *set)
{
	const struct gp_pveconf_item on = { "features", "nesting", "1", NULL };
	const struct gp_pveconf_item off = { "features", "nesting", NULL, "1" };
	_cleanup_free_ char *a = NULL, *b = NULL;
	unsigned int line = 0;

	a = item_edit(before, &on, &line);
	assert_non_null(a);
	assert_string_equal(a, set);
	b = item_edit(a, &off, &line);
	assert_non_null(b);
	assert_string_equal(b, before);
}

/* features: the item set or taken out, every other item of the line kept as it was. */
static void features_item_kept_added_changed(void **state)
{
	const struct gp_pveconf_item back = { "features", "nesting", "0", "1" };
	const struct gp_pveconf_item other = { "features", "nesting", NULL, "1" };
	_cleanup_free_ char *a = NULL, *b = NULL;
	struct gp_pveconf c;
	unsigned int line = 0;
	char v[16];

	(void)state;
	item_round_trip("arch: amd64\nfeatures: keyctl=1,fuse=1\nhostname: x\n",
			"arch: amd64\nfeatures: keyctl=1,fuse=1,nesting=1\nhostname: x\n");
	item_round_trip("arch: amd64\nfeatures: mount=nfs;cifs\n",
			"arch: amd64\nfeatures: mount=nfs;cifs,nesting=1\n");
	/* No features line: one is added after the section's last line, and goes again. */
	item_round_trip(
	    "arch: amd64\nhostname: x\n\n[snap]\nfeatures: fuse=1\n",
	    "arch: amd64\nhostname: x\nfeatures: nesting=1\n\n[snap]\nfeatures: fuse=1\n");
	/* nesting=0 becomes nesting=1 in place, and the record's value puts it back. */
	a = item_edit("features: nesting=0,keyctl=1\n",
		      &(struct gp_pveconf_item){ "features", "nesting", "1", NULL }, &line);
	assert_string_equal(a, "features: nesting=1,keyctl=1\n");
	b = item_edit(a, &back, &line);
	assert_string_equal(b, "features: nesting=0,keyctl=1\n");
	free(b);
	/* The first item out, the others kept; one that is no longer 1 is left alone. */
	b = item_edit(a, &other, &line);
	assert_string_equal(b, "features: keyctl=1\n");
	free(b);
	b = item_edit("features: nesting=0\n", &other, &line);
	assert_string_equal(b, "features: nesting=0\n");
	assert_int_equal(gp_pveconf_parse(a, strlen(a), &c), 0);
	assert_int_equal(gp_pveconf_item_get(&c, "features", "keyctl", v, sizeof(v), &line), 0);
	assert_string_equal(v, "1");
	assert_int_equal(line, 1);
	assert_int_equal(gp_pveconf_item_get(&c, "features", "fuse", v, sizeof(v), &line), -ENOENT);
}

/* A part that is not name=value is refused, naming its line; nothing else is guessed. */
static void features_bad_item_refused(void **state)
{
	static const char *const bad[] = { "fuse", "=1", "nesting=", "keyctl=1,fuse", "a b=1" };
	const struct gp_pveconf_item on = { "features", "nesting", "1", NULL };
	char text[128], v[16];
	unsigned int line = 0;
	struct gp_pveconf c;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "arch: amd64\n#x\nfeatures: %s\n", bad[i]);
		line = 0;
		errno = 0;
		assert_null(item_edit(text, &on, &line));
		assert_int_equal(errno, GP_EBADCONF);
		assert_int_equal(line, 3);
		assert_int_equal(gp_pveconf_parse(text, strlen(text), &c), 0);
		assert_int_equal(
		    gp_pveconf_item_get(&c, "features", "nesting", v, sizeof(v), &line),
		    -GP_EBADCONF);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(corpus_round_trips),
		cmocka_unit_test(corpus_attach_then_detach),
		cmocka_unit_test(pending_lock_and_devs),
		cmocka_unit_test(no_final_newline),
		cmocka_unit_test(bad_lines_are_named),
		cmocka_unit_test(features_item_kept_added_changed),
		cmocka_unit_test(features_bad_item_refused),
	};
	return cmocka_run_group_tests_name("pveconf", tests, NULL, NULL);
}
