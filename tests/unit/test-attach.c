/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * attach, detach and adopt over a fixture root with one Proxmox VE container config (the
 * H200 capture, tests/fixtures/pve-lxc-conf): the files they write, read back. The owner
 * rule holds here as on a host, its owner the fixture root's (gp_ctx): root needs none
 * (make unit runs it as nobody too).
 */
#include "unit.h"

#include <lxc/lxccontainer.h>

#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/util.h"
#include "ops/attach.h"
#include "ops/create.h"
#include "plan/cgroup.h"

#define ID "101"

static char root[64], confdir[96], config[160], ini[160], applied[160];

static char *slurp(const char *path)
{
	char *buf = NULL;

	return gp_read_file(path, 1u << 20, &buf, NULL) == 0 ? buf : NULL;
}

/* A copy of the H200 host with /etc/pve/lxc/101.conf from the corpus, plus text. */
static int setup_with(const char *extra)
{
	snprintf(root, sizeof(root), "/tmp/gp-attach.XXXXXX");
	assert_non_null(mkdtemp(root));
	sh("cp -a %s/h200-580-open/. %s && chmod 755 %s", fixtures(), root, root);
	sh("mkdir -p %s/etc/pve/lxc %s/conf && chmod 755 %s/conf", root, root, root);
	snprintf(config, sizeof(config), "%s/etc/pve/lxc/" ID ".conf", root);
	sh("cp %s/pve-lxc-conf/test-debian-005.conf %s && printf '%%s' '%s' >>%s", fixtures(),
	   config, extra, config);
	snprintf(confdir, sizeof(confdir), "%s/conf", root);
	snprintf(ini, sizeof(ini), "%s/etc/pve/gpu-provision/" ID ".ini", root);
	snprintf(applied, sizeof(applied), "%s/etc/pve/gpu-provision/" ID ".applied", root);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return setup_with("");
}

/* A recipe's lines, as a wiki pasted them. */
static int setup_recipe(void **state)
{
	(void)state;
	return setup_with(
	    "lxc.cgroup2.devices.allow: c 195:* rwm\n"
	    "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,optional,create=file\n");
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", root);
	return 0;
}

static struct gp_attach_opts opts(const char *gpus)
{
	return (struct gp_attach_opts){ .ctx = test_ctx(root, confdir, NULL, false),
					.rt = test_runtime(root, false),
					.name = ID,
					.gpus = gpus,
					.hook = "/usr/bin/env",
					.inject = -1,
					.quiet = true };
}

/* "lxc.cgroup2.devices.allow: c RULE", or lxc.cgroup's where the root's devices are v1. */
static const char *allow(const char *rule)
{
	static char buf[4][96];
	static int slot;
	char *out = buf[slot++ & 3];

	snprintf(out, sizeof(buf[0]), "%s.allow: c %s",
		 gp_cgroup_key_prefix(test_runtime(root, false)->layout), rule);
	return out;
}

static unsigned int count_lines(const char *text, const char *line)
{
	unsigned int n = 0;
	size_t len = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p += len)
		if ((p == text || p[-1] == '\n') && (p[len] == '\n' || !p[len]))
			n++;
	return n;
}

/* Every line .applied records is in the config once, and the config's own lines stay. */
static void assert_applied_in_config(const char *conf, const char *rec)
{
	_cleanup_free_ char *copy = strdup(rec);
	char *save = NULL;
	unsigned int n = 0;

	for (char *t = strtok_r(copy, "\n", &save); t; t = strtok_r(NULL, "\n", &save), n++)
		if (count_lines(conf, t) != 1)
			fail_msg(".applied's \"%s\" is in the config %u times", t,
				 count_lines(conf, t));
	assert_true(n >= 4); /* three hook lines, a device rule at least */
}

static void attach_then_detach(void **state)
{
	_cleanup_free_ char *before = slurp(config), *after = NULL, *rec = NULL, *conf = NULL;
	struct gp_attach_opts o = opts("all");
	struct gp_attach_changes ch;

	(void)state;
	assert_int_equal(gp_attach(&o, &ch), 0);
	assert_true(ch.changed && ch.added >= 4 && ch.removed == 0);
	after = slurp(config);
	rec = slurp(applied);
	conf = slurp(ini);
	assert_non_null(after);
	assert_non_null(rec);
	assert_non_null(conf);
	assert_int_equal(count_lines(after, allow("195:255 rwm")), 1);
	assert_int_equal(count_lines(after, allow("195:0 rwm")), 1);
	assert_non_null(strstr(after, "lxc.hook.autodev: /usr/bin/env --root "));
	assert_applied_in_config(after, rec);
	assert_non_null(strstr(conf, "devices = all"));
	assert_true(strncmp(after, before, strlen(before)) == 0); /* its own lines first, kept */

	o.gpus = NULL;
	assert_int_equal(gp_detach(&o), 0);
	free(after);
	after = slurp(config);
	assert_string_equal(after, before);
	assert_int_equal(access(applied, F_OK), -1);
	assert_int_equal(access(ini, F_OK), -1);
}

/* attach again changes nothing: the same lines, byte for byte. */
static void attach_again_is_the_same(void **state)
{
	_cleanup_free_ char *first = NULL, *second = NULL;
	struct gp_attach_opts o = opts("0");
	struct gp_attach_changes ch;

	(void)state;
	assert_int_equal(gp_attach(&o, NULL), 0);
	first = slurp(config);
	o.gpus = NULL;
	assert_int_equal(gp_attach(&o, &ch), 0);
	assert_false(ch.changed);
	second = slurp(config);
	assert_string_equal(first, second);
}

static void dry_run_writes_nothing(void **state)
{
	_cleanup_free_ char *before = slurp(config), *after = NULL;
	struct gp_attach_opts o = opts("all");

	(void)state;
	o.dry_run = true;
	assert_int_equal(gp_attach(&o, NULL), 0);
	after = slurp(config);
	assert_string_equal(after, before);
	assert_int_equal(access(ini, F_OK), -1);
	assert_int_equal(access(applied, F_OK), -1);
}

/* Under LXC 7 every rule is lxc.cgroup2's, whatever an older LXC would have written. */
static void lxc7_writes_cgroup2_only(void **state)
{
	struct gp_runtime rt = { .lxc = "7.0.0", .lxc_major = 7, .layout = GP_CG_V2 };
	_cleanup_free_ char *after = NULL;
	struct gp_attach_opts o = opts("0");

	(void)state;
	o.rt = &rt;
	assert_int_equal(gp_attach(&o, NULL), 0);
	after = slurp(config);
	assert_non_null(strstr(after, "lxc.cgroup2.devices.allow: c 195:0 rwm"));
	assert_null(strstr(after, "lxc.cgroup.devices"));
}

/* LXC 7 cannot start a container on a hybrid host: attach says so and writes nothing. */
static void lxc7_refuses_hybrid(void **state)
{
	struct gp_runtime rt = { .lxc = "7.0.0", .lxc_major = 7, .layout = GP_CG_V1 };
	_cleanup_free_ char *before = slurp(config), *after = NULL;
	struct gp_attach_opts o = opts("0");

	(void)state;
	o.rt = &rt;
	assert_int_equal(gp_attach(&o, NULL), -GP_EBADCONF);
	o.dry_run = true;
	assert_int_equal(gp_attach(&o, NULL), -GP_EBADCONF);
	after = slurp(config);
	assert_string_equal(after, before);
	assert_int_equal(access(ini, F_OK), -1);
	/* LXC 6 on the same layout writes v1 rules, which it enforces there. */
	rt = (struct gp_runtime){ .lxc = "6.0.4", .lxc_major = 6, .layout = GP_CG_V1 };
	o.dry_run = false;
	assert_int_equal(gp_attach(&o, NULL), 0);
	free(after);
	after = slurp(config);
	assert_non_null(strstr(after, "lxc.cgroup.devices.allow: c 195:0 rwm"));
}

/*
 * Under LXC 7 a plain LXC config that would keep an lxc.cgroup.* line of its own is not
 * edited: LXC 7 could not load it after the edit either. LXC 6 attaches it.
 */
static void lxc7_refuses_v1_kept(void **state)
{
	struct gp_runtime rt = { .lxc = "7.0.0", .lxc_major = 7, .layout = GP_CG_V2 };
	_cleanup_free_ char *before = NULL, *after = NULL;
	struct gp_attach_opts o = opts("0");
	char lxcpath[96], cfg[128];

	(void)state;
	sh("rm -rf %s/etc/pve", root); /* plain LXC */
	snprintf(lxcpath, sizeof(lxcpath), "%s/lxc", root);
	snprintf(cfg, sizeof(cfg), "%s/c7/config", lxcpath);
	sh("mkdir -p %s/c7/rootfs && printf 'lxc.uts.name = c7\\nlxc.rootfs.path = "
	   "dir:%s/c7/rootfs\\n"
	   "lxc.cgroup2.devices.deny = a\\nlxc.cgroup.devices.allow = c 10:200 rwm\\n' >%s",
	   lxcpath, lxcpath, cfg);
	before = slurp(cfg);
	o.ctx = test_ctx(root, confdir, lxcpath, false);
	o.rt = &rt;
	o.name = "c7";
	assert_int_equal(gp_attach(&o, NULL), -GP_EBADCONF);
	after = slurp(cfg);
	assert_string_equal(after, before);
	if (strtoul(lxc_get_version(), NULL, 10) >= GP_LXC_V2_ONLY)
		return; /* the liblxc linked cannot load it either */
	rt = (struct gp_runtime){ .lxc = "6.0.4", .lxc_major = 6, .layout = GP_CG_V2 };
	assert_int_equal(gp_attach(&o, NULL), 0);
}

/*
 * create makes no container that LXC 7 could not start: refused before pct is asked
 * (there is none here: asked, it would fail otherwise).
 */
static void create_refused_for_lxc7_hybrid(void **state)
{
	struct gp_runtime rt = { .lxc = "7.0.0", .lxc_major = 7, .layout = GP_CG_V1 };
	struct gp_create_opts c = { .attach = opts("0"), .ostemplate = "local:vztmpl/d.tar.zst" };

	(void)state;
	c.attach.rt = &rt;
	c.attach.name = "102";
	assert_int_equal(gp_create(&c), -GP_EBADCONF);
	rt = (struct gp_runtime){ .lxc = "6.0.4", .lxc_major = 6, .layout = GP_CG_V1 };
	assert_int_not_equal(gp_create(&c), -GP_EBADCONF);
}

/* attach refuses a recipe's lines, naming them, and writes nothing. */
static void attach_refuses_a_recipe(void **state)
{
	_cleanup_free_ char *before = slurp(config), *after = NULL;
	struct gp_attach_opts o = opts("all");
	struct gp_log_capture said;

	(void)state;
	gp_log_capture_start(&said);
	assert_int_equal(gp_attach(&o, NULL), -GP_EBADCONF);
	gp_log_capture_stop(&said);
	assert_non_null(strstr(said.text, "c 195:* rwm"));
	after = slurp(config);
	assert_string_equal(after, before);
	assert_int_equal(access(ini, F_OK), -1);
}

/* adopt takes the recipe's lines out, puts its own in, and keeps the config as it was. */
static void adopt_takes_a_recipe_over(void **state)
{
	_cleanup_free_ char *before = slurp(config), *after = NULL, *kept = NULL, *bak = NULL;
	struct gp_attach_opts o = opts(NULL);

	(void)state;
	o.adopt = true;
	assert_int_equal(gp_adopt(&o), 0);
	after = slurp(config);
	assert_int_equal(count_lines(after, "lxc.cgroup2.devices.allow: c 195:* rwm"),
			 0); /* the recipe's */
	assert_null(strstr(after, "bind,optional,create=file"));
	assert_int_equal(count_lines(after, allow("195:0 rwm")), 1);
	assert_true(asprintf(&bak, "%s.gpu-provision-adopt.bak", config) > 0);
	kept = slurp(bak);
	assert_non_null(kept);
	assert_string_equal(kept, before);
}

/* A .applied badly owned, or larger than its limit, is a configuration to fix: said, kept. */
static void applied_held_to_the_rule(void **state)
{
	_cleanup_free_ char *before = NULL, *after = NULL;
	struct gp_attach_opts o = opts("all");
	struct gp_log_capture said;
	char owner[16], rule[96];

	(void)state;
	/* The owner rule's owner: root's on a host, the fixture root's owner under it. */
	snprintf(owner, sizeof(owner), geteuid() ? "%u" : "root", (unsigned int)geteuid());
	assert_int_equal(gp_attach(&o, NULL), 0);
	before = slurp(config);
	o.gpus = NULL;
	sh("chmod 666 %s", applied);
	gp_log_capture_start(&said);
	assert_int_equal(gp_detach(&o), -GP_EBADCONF);
	gp_log_capture_stop(&said);
	snprintf(rule, sizeof(rule), "it must be owned by %s and not writable", owner);
	assert_non_null(strstr(said.text, rule));
	sh("chmod 644 %s && truncate -s 300K %s", applied, applied);
	gp_log_capture_start(&said);
	assert_int_equal(gp_detach(&o), -GP_EBADCONF);
	gp_log_capture_stop(&said);
	assert_non_null(strstr(said.text, "is larger than"));
	after = slurp(config);
	assert_string_equal(after, before);
}

/* A features line of the admin's, as Proxmox VE writes it. */
static int setup_features(void **state)
{
	(void)state;
	return setup_with("features: keyctl=1,fuse=1\nunprivileged: 1\n");
}

static int setup_nesting_0(void **state)
{
	(void)state;
	return setup_with("features: nesting=0\n");
}

static int setup_nesting_1(void **state)
{
	(void)state;
	return setup_with("features: nesting=1\n");
}

static int setup_bad_features(void **state)
{
	(void)state;
	return setup_with("features: fuse,nesting=1\n");
}

/* --nesting on Proxmox VE: nesting=1 joins the features line, its other items kept. */
static void nesting_pve_features_kept(void **state)
{
	_cleanup_free_ char *before = slurp(config), *after = NULL, *rec = NULL;
	struct gp_attach_opts o = opts("0");

	(void)state;
	o.nesting = 1;
	assert_int_equal(gp_attach(&o, NULL), 0);
	after = slurp(config);
	assert_int_equal(count_lines(after, "features: keyctl=1,fuse=1,nesting=1"), 1);
	assert_null(strstr(after, "features: nesting=1"));
	rec = slurp(applied);
	assert_int_equal(count_lines(rec, "features item nesting=1"), 1);
	/* attach (or sync) again keeps it, once. */
	o.gpus = NULL;
	o.nesting = 0;
	assert_int_equal(gp_attach(&o, NULL), 0);
	free(after);
	after = slurp(config);
	assert_int_equal(count_lines(after, "features: keyctl=1,fuse=1,nesting=1"), 1);
	assert_int_equal(gp_detach(&o), 0);
	free(after);
	after = slurp(config);
	assert_string_equal(after, before);
}

/* No features line yet: one is added, and goes with detach; --no-nesting takes it out too. */
static void nesting_pve_line_added(void **state)
{
	_cleanup_free_ char *before = slurp(config), *after = NULL, *rec = NULL;
	struct gp_attach_opts o = opts("0");

	(void)state;
	o.nesting = 1;
	assert_int_equal(gp_attach(&o, NULL), 0);
	after = slurp(config);
	assert_int_equal(count_lines(after, "features: nesting=1"), 1);
	o.gpus = NULL;
	o.nesting = -1;
	assert_int_equal(gp_attach(&o, NULL), 0);
	free(after);
	after = slurp(config);
	assert_null(strstr(after, "features:"));
	free(rec);
	rec = slurp(applied);
	assert_null(strstr(rec, "features item"));
	o.nesting = 1;
	assert_int_equal(gp_attach(&o, NULL), 0);
	assert_int_equal(gp_detach(&o), 0);
	free(after);
	after = slurp(config);
	assert_string_equal(after, before);
}

/* An admin's nesting=0 becomes nesting=1; detach puts the 0 back. */
static void nesting_pve_value_changed(void **state)
{
	_cleanup_free_ char *before = slurp(config), *after = NULL;
	struct gp_attach_opts o = opts("0");

	(void)state;
	o.nesting = 1;
	assert_int_equal(gp_attach(&o, NULL), 0);
	after = slurp(config);
	assert_int_equal(count_lines(after, "features: nesting=1"), 1);
	assert_null(strstr(after, "nesting=0"));
	o.gpus = NULL;
	assert_int_equal(gp_detach(&o), 0);
	free(after);
	after = slurp(config);
	assert_string_equal(after, before);
}

/* The admin's own nesting=1: nothing recorded, and detach leaves it. */
static void nesting_pve_admins_own_kept(void **state)
{
	_cleanup_free_ char *before = slurp(config), *after = NULL, *rec = NULL;
	struct gp_attach_opts o = opts("0");

	(void)state;
	o.nesting = 1;
	assert_int_equal(gp_attach(&o, NULL), 0);
	rec = slurp(applied);
	assert_null(strstr(rec, "features"));
	o.gpus = NULL;
	assert_int_equal(gp_detach(&o), 0);
	after = slurp(config);
	assert_string_equal(after, before);
	assert_int_equal(count_lines(after, "features: nesting=1"), 1);
}

/* A features part that is not name=value: refused naming file and line, nothing written. */
static void nesting_pve_bad_item_refused(void **state)
{
	_cleanup_free_ char *before = slurp(config), *after = NULL, *where = NULL;
	struct gp_attach_opts o = opts("0");
	struct gp_log_capture said;

	(void)state;
	o.nesting = 1;
	gp_log_capture_start(&said);
	assert_int_equal(gp_attach(&o, NULL), -GP_EBADCONF);
	gp_log_capture_stop(&said);
	assert_true(asprintf(&where, "%s:3: \"features: fuse,nesting=1\"", config) > 0);
	assert_non_null(strstr(said.text, where));
	assert_non_null(strstr(said.text, "name=value"));
	after = slurp(config);
	assert_string_equal(after, before);
	assert_int_equal(access(ini, F_OK), -1);
}

/* A plain LXC container NAME under root/lxc with the given lines; its config's path. */
static const char *plain_container(const char *name, const char *lines, struct gp_attach_opts *o)
{
	static char lxcpath[96], cfg[160];

	sh("rm -rf %s/etc/pve", root);
	snprintf(lxcpath, sizeof(lxcpath), "%s/lxc", root);
	snprintf(cfg, sizeof(cfg), "%s/%s/config", lxcpath, name);
	sh("mkdir -p %s/%s/rootfs && printf 'lxc.uts.name = %s\\nlxc.rootfs.path = "
	   "dir:%s/%s/rootfs\\n%s' >%s",
	   lxcpath, name, name, lxcpath, name, lines, cfg);
	o->ctx = test_ctx(root, confdir, lxcpath, false);
	o->name = name;
	snprintf(applied, sizeof(applied), "%s/%s.applied", confdir, name);
	return cfg;
}

/* Plain LXC's lines of ours: LXC's generated AppArmor profile with nesting allowed. */
static const char *const nest_lines[] = {
	"lxc.apparmor.profile = generated",
	"lxc.apparmor.allow_nesting = 1",
};

/* Each of our lines in text as often as in before, plus add (0 or 1). */
static void assert_nest_lines(const char *text, const char *before, const bool add[2])
{
	for (size_t k = 0; k < 2; k++)
		assert_int_equal(count_lines(text, nest_lines[k]),
				 count_lines(before, nest_lines[k]) + add[k]);
}

/*
 * Plain LXC: both lines added (over no profile, or a plain one of LXC's), recorded, kept by
 * attach again, taken out by detach and by --no-nesting; a profile line of the config's
 * own that is ours already stays the config's, and only allow_nesting is added.
 */
static void nesting_lxc_profile_added(void **state)
{
	static const struct {
		const char *lines;
		bool add[2];
	} cases[] = {
		{ "", { true, true } },
		{ "lxc.apparmor.profile = lxc-container-default-cgns\\n", { true, true } },
		{ "lxc.apparmor.profile = generated\\nlxc.apparmor.allow_nesting = 0\\n",
		  { false, true } },
	};
	static const bool none[2] = { false, false };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gp_attach_opts o = opts("0");
		char name[8];
		const char *cfg;
		_cleanup_free_ char *before = NULL, *after = NULL, *rec = NULL;

		snprintf(name, sizeof(name), "n%zu", i);
		cfg = plain_container(name, cases[i].lines, &o);
		before = slurp(cfg);
		o.nesting = 1;
		assert_int_equal(gp_attach(&o, NULL), 0);
		after = slurp(cfg);
		assert_nest_lines(after, before, cases[i].add);
		rec = slurp(applied);
		assert_nest_lines(rec, "", cases[i].add);
		o.gpus = NULL;
		o.nesting = 0;
		assert_int_equal(gp_attach(&o, NULL), 0);
		free(after);
		after = slurp(cfg);
		assert_nest_lines(after, before, cases[i].add);
		assert_int_equal(gp_detach(&o), 0);
		free(after);
		after = slurp(cfg);
		assert_string_equal(after, before);
		o.gpus = "0";
		o.nesting = 1;
		assert_int_equal(gp_attach(&o, NULL), 0);
		o.gpus = NULL;
		o.nesting = -1;
		assert_int_equal(gp_attach(&o, NULL), 0);
		free(after);
		after = slurp(cfg);
		assert_nest_lines(after, before, none);
		free(rec);
		rec = slurp(applied);
		assert_null(strstr(rec, "lxc.apparmor"));
		assert_int_equal(gp_detach(&o), 0);
		free(after);
		after = slurp(cfg);
		assert_string_equal(after, before);
	}
}

/*
 * Plain LXC with nesting of the admin's, a profile of their own, or a line of ours that
 * a later line undoes: nothing added, and detach keeps theirs.
 */
static void nesting_lxc_admins_own_kept(void **state)
{
	static const char *const own[] = {
		"lxc.apparmor.profile = generated\\nlxc.apparmor.allow_nesting = 1\\n",
		"lxc.include = /usr/share/lxc/config/nesting.conf\\n",
		"lxc.apparmor.profile = unconfined\\n",
		"lxc.apparmor.profile = my-own-profile\\n",
		"lxc.apparmor.allow_nesting = 1\\nlxc.apparmor.allow_nesting = 0\\n",
	};
	static const bool none[2] = { false, false };

	(void)state;
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		struct gp_attach_opts o = opts("0");
		char name[8];
		const char *cfg;
		_cleanup_free_ char *before = NULL, *after = NULL, *rec = NULL;

		if (i == 1 && access("/usr/share/lxc/config/nesting.conf", R_OK) != 0)
			continue; /* LXC's package is not installed whole here */
		snprintf(name, sizeof(name), "own%zu", i);
		cfg = plain_container(name, own[i], &o);
		before = slurp(cfg);
		o.nesting = 1;
		assert_int_equal(gp_attach(&o, NULL), 0);
		after = slurp(cfg);
		rec = slurp(applied);
		if (strstr(rec, "lxc.apparmor"))
			fail_msg("%s: attach --nesting recorded a line of its own", own[i]);
		assert_nest_lines(after, before, none);
		o.gpus = NULL;
		assert_int_equal(gp_detach(&o), 0);
		free(after);
		after = slurp(cfg);
		assert_string_equal(after, before);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(attach_then_detach, setup, teardown),
		cmocka_unit_test_setup_teardown(attach_again_is_the_same, setup, teardown),
		cmocka_unit_test_setup_teardown(dry_run_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(lxc7_writes_cgroup2_only, setup, teardown),
		cmocka_unit_test_setup_teardown(lxc7_refuses_hybrid, setup, teardown),
		cmocka_unit_test_setup_teardown(create_refused_for_lxc7_hybrid, setup, teardown),
		cmocka_unit_test_setup_teardown(lxc7_refuses_v1_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(attach_refuses_a_recipe, setup_recipe, teardown),
		cmocka_unit_test_setup_teardown(adopt_takes_a_recipe_over, setup_recipe, teardown),
		cmocka_unit_test_setup_teardown(applied_held_to_the_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(nesting_pve_features_kept, setup_features,
						teardown),
		cmocka_unit_test_setup_teardown(nesting_pve_line_added, setup, teardown),
		cmocka_unit_test_setup_teardown(nesting_pve_value_changed, setup_nesting_0,
						teardown),
		cmocka_unit_test_setup_teardown(nesting_pve_admins_own_kept, setup_nesting_1,
						teardown),
		cmocka_unit_test_setup_teardown(nesting_pve_bad_item_refused, setup_bad_features,
						teardown),
		cmocka_unit_test_setup_teardown(nesting_lxc_profile_added, setup, teardown),
		cmocka_unit_test_setup_teardown(nesting_lxc_admins_own_kept, setup, teardown),
	};

	gp_log_stdout = false;
	return cmocka_run_group_tests_name("attach", tests, NULL, NULL);
}
