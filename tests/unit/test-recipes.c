/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Recipe lines: the reader's verdict line by line, the GPUs it infers, and the corpus of
 * tests/fixtures/recipes through check on both cgroup layouts (check.expected: "ID LINE",
 * a "v1:" or "v2:" line only for that layout). GP_BLESS=1 writes check.expected from this
 * run instead; review it before commit. The 8-GPU fixture's nodes are made with mknod
 * (root only, else the cases are skipped).
 */
#include "unit.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/util.h"
#include "check/check.h"
#include "check/recipe.h"
#include "host/host.h"

#define HOST_FIXTURE "b200x8-590-open-hmm"

static char root[128], lxcpath[192], confdir[192];

/* The 8-GPU host with its nodes and an LXC path; etc/pve/lxc where a recipe is Proxmox's. */
static void host_setup(void)
{
	if (geteuid() != 0)
		skip(); /* mknod */
	snprintf(root, sizeof(root), "/tmp/gp-recipes.XXXXXX");
	assert_non_null(mkdtemp(root));
	sh("cp -a %s/%s/. %s/", FIXTURES, HOST_FIXTURE, root);
	sh("cd %s && while read -r p t ma mi mo u g; do [ -n \"$p\" ] || continue; "
	   "mkdir -p \"$(dirname \"$p\")\"; mknod -m \"$mo\" \"$p\" \"$t\" \"$ma\" \"$mi\"; "
	   "done <dev-nodes.txt",
	   root);
	snprintf(lxcpath, sizeof(lxcpath), "%s/lxc", root);
	snprintf(confdir, sizeof(confdir), "%s/etc/gpu-provision", root);
	sh("mkdir -p %s %s", lxcpath, confdir);
}

static void host_cleanup(void)
{
	sh("rm -rf %s", root);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void read_recipe(const char *text, struct gp_recipe *r)
{
	char path[256];
	struct gp_host host;

	sh("mkdir -p %s/etc/pve/lxc", root);
	snprintf(path, sizeof(path), "%s/etc/pve/lxc/301.conf", root);
	put(path, text);
	assert_int_equal(gp_host_read(root, 0, &host), 0);
	assert_int_equal(gp_recipe_read(root, &host, path, true, NULL, r), 0);
	gp_host_free(&host);
}

static char *selection(const char *text)
{
	static char out[256];
	struct gp_recipe *r = malloc(sizeof(*r));
	struct gp_host host;
	int ret;

	assert_non_null(r);
	read_recipe(text, r);
	assert_int_equal(gp_host_read(root, 0, &host), 0);
	ret = gp_recipe_selection(r, &host, out, sizeof(out));
	gp_host_free(&host);
	gp_recipe_free(r);
	free(r);
	if (ret == -ENOENT)
		snprintf(out, sizeof(out), "none");
	if (ret == -GP_EBADCONF)
		snprintf(out, sizeof(out), "refused");
	return out;
}

/* Each line's kind, whether adopt takes it out, and a stale major for what it is. */
static void verdicts(void **state)
{
	struct gp_recipe *r = malloc(sizeof(*r));

	(void)state;
	host_setup();
	read_recipe(
	    "# description\n"
	    "arch: amd64\n"
	    "lxc.cgroup2.devices.allow: c 195:* rwm\n"	/* 3 */
	    "lxc.cgroup2.devices.allow = c 234:* rwm\n" /* 4 */
	    "lxc.cgroup2.devices.allow: c 226:* rwm\n"	/* 5: DRI */
	    "lxc.cgroup2.devices.allow: c 246:* rwm\n"	/* 6 */
	    "lxc.cgroup2.devices.allow: a\n"		/* 7 */
	    "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,optional,create=file\n" /* 8 */
	    "lxc.mount.entry: /dev/nvidia1 dev/nvidia2 none bind,create=file\n"		 /* 9 */
	    "lxc.mount.entry: /dev/dri dev/dri none bind,optional,create=dir\n"		 /* 10 */
	    "dev0: /dev/nvidia-uvm,mode=0666\n"						 /* 11 */
	    "lxc.hook.mount: /usr/share/lxc/hooks/nvidia\n"				 /* 12 */
	    "lxc.environment: NVIDIA_VISIBLE_DEVICES=all\n"				 /* 13 */
	    "lxc.mount.entry: /usr/lib/libcuda.so.1 usr/lib/libcuda.so.1 none bind\n"	 /* 14 */
	    "\n[pve:pending]\ndev1: /dev/nvidia3\n",					 /* 17 */
	    r);
	assert_int_equal(r->n, 11);
	assert_int_equal(r->v[0].cfg->line, 3);
	assert_int_equal(r->v[0].kind, GP_RECIPE_RULE);
	assert_true(r->v[0].removable);
	assert_int_equal(r->v[1].cfg->line, 4); /* "=" read as Proxmox reads raw keys */
	assert_true(r->v[1].stale);
	assert_true(r->v[1].removable);
	assert_int_equal(r->v[2].cfg->line, 6); /* 246 is bsg's today: not sure */
	assert_int_equal(r->v[2].kind, GP_RECIPE_UNSURE);
	assert_false(r->v[2].removable);
	assert_int_equal(r->v[3].kind, GP_RECIPE_OPEN_ALL);
	assert_false(r->v[3].removable);
	assert_int_equal(r->v[4].kind, GP_RECIPE_BIND);
	assert_true(r->v[4].optional);
	assert_true(r->v[4].node_exists);
	assert_int_equal(r->v[5].kind, GP_RECIPE_UNSURE); /* onto another name */
	assert_int_equal(r->v[6].kind, GP_RECIPE_DEVN);
	assert_string_equal(r->v[6].node, "nvidia-uvm");
	assert_int_equal(r->v[7].kind, GP_RECIPE_HOOK);
	assert_int_equal(r->v[8].kind, GP_RECIPE_ENV);
	assert_true(r->v[8].removable);			  /* the hook it was for goes too */
	assert_int_equal(r->v[9].kind, GP_RECIPE_UNSURE); /* names NVIDIA's library */
	assert_int_equal(r->v[10].cfg->line, 17);
	assert_true(r->v[10].cfg->pending);
	assert_false(r->v[10].removable);
	gp_recipe_free(r);
	/* Another driver's device whose module is not loaded (no major to see): a rule on a
	 * major no device has may be its. */
	read_recipe("lxc.cgroup2.devices.allow: c 236:* rwm\n"
		    "lxc.mount.entry: /dev/hailo0 dev/hailo0 none bind,optional,create=file\n"
		    "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,optional,create=file\n",
		    r);
	assert_int_equal(r->n, 2);
	assert_int_equal(r->v[0].kind, GP_RECIPE_UNSURE);
	assert_false(r->v[0].removable);
	gp_recipe_free(r);
	/* Without a node given, a major no device has is not known to be NVIDIA's. */
	read_recipe("lxc.cgroup2.devices.allow: c 234:* rwm\n", r);
	assert_int_equal(r->n, 0);
	gp_recipe_free(r);
	free(r);
	host_cleanup();
}

/* The GPUs a recipe gave, by minor (the 8-GPU host's minors are its indexes). */
static void selections(void **state)
{
	(void)state;
	host_setup();
	assert_string_equal(
	    selection("lxc.mount.entry: /dev/nvidia2 dev/nvidia2 none bind,create=file\n"
		      "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,create=file\n"),
	    "0,2");
	assert_string_equal(selection("dev0: /dev/nvidia5,gid=44\n"), "5");
	/* NVIDIA_VISIBLE_DEVICES says what a GPU hook gave; without one (Docker's toolkit
	 * inside reads it) the binds alone do. */
	assert_string_equal(selection("lxc.hook.mount: /usr/share/lxc/hooks/nvidia\n"
				      "lxc.environment: NVIDIA_VISIBLE_DEVICES=all\n"),
			    "all");
	assert_string_equal(selection("lxc.hook.mount = /usr/share/lxc/hooks/nvidia\n"
				      "lxc.environment = NVIDIA_VISIBLE_DEVICES=1,3\n"),
			    "1,3");
	/* LXC 7 says which environment: the hooks' or the container's. */
	assert_string_equal(selection("lxc.hook.mount = /usr/share/lxc/hooks/nvidia\n"
				      "lxc.environment.hooks = NVIDIA_VISIBLE_DEVICES=2\n"),
			    "2");
	assert_string_equal(selection("lxc.hook.mount = /usr/share/lxc/hooks/nvidia\n"
				      "lxc.environment.runtime = NVIDIA_VISIBLE_DEVICES=1\n"),
			    "1");
	assert_string_equal(selection("lxc.environment: NVIDIA_VISIBLE_DEVICES=all\n"
				      "lxc.mount.entry: /dev/nvidia4 dev/nvidia4 none bind\n"),
			    "4");
	assert_string_equal(selection("lxc.mount.entry: /dev/nvidiactl dev/nvidiactl none bind\n"),
			    "none");
	/* Binds of every GPU the host has are those GPUs, not "all": not a ninth one added. */
	assert_string_equal(selection("dev0: /dev/nvidia0\ndev1: /dev/nvidia1\ndev2: /dev/nvidia2\n"
				      "dev3: /dev/nvidia3\ndev4: /dev/nvidia4\ndev5: /dev/nvidia5\n"
				      "dev6: /dev/nvidia6\ndev7: /dev/nvidia7\n"),
			    "0,1,2,3,4,5,6,7");
	assert_string_equal(selection("lxc.mount.entry: /dev/nvidia9 dev/nvidia9 none bind\n"),
			    "refused"); /* said on stderr, with the line */
	host_cleanup();
}

/* A copy of a node outside /dev gives that node; anything else bound onto its name does not. */
static void copies(void **state)
{
	struct gp_recipe *r = malloc(sizeof(*r));
	char text[1024];

	(void)state;
	host_setup();
	sh("mkdir -p %s/copies && mknod %s/copies/nvidia1 c 195 1 && mknod %s/copies/gpu c 195 1",
	   root, root, root);
	snprintf(text, sizeof(text),
		 "lxc.mount.entry: %s/copies/nvidia1 dev/nvidia1 none bind,create=file\n"
		 "lxc.mount.entry: %s/copies/gpu dev/nvidia0 none bind,create=file\n"
		 "lxc.mount.entry: /dev/null dev/nvidia2 none bind,create=file\n"
		 "lxc.mount.entry: /dev/nvidia3 dev//nvidia3 none bind,create=file\n",
		 root, root);
	read_recipe(text, r);
	assert_int_equal(r->n, 4);
	assert_int_equal(r->v[0].kind, GP_RECIPE_BIND);
	assert_int_equal(r->v[0].gpu_minor, 1);
	assert_int_equal(r->v[1].kind, GP_RECIPE_UNSURE); /* GPU 1's number onto nvidia0 */
	assert_true(r->v[1].in_the_way);
	assert_int_equal(r->v[2].kind, GP_RECIPE_UNSURE); /* hides GPU 2 */
	assert_true(r->v[2].in_the_way);
	assert_int_equal(r->v[3].kind, GP_RECIPE_BIND); /* "dev//nvidia3" is dev/nvidia3 */
	gp_recipe_free(r);
	free(r);
	host_cleanup();
}

/* "ID LINE" for each finding: the first config line its evidence names, or "-". */
static void finding_lines(const struct gp_findings *f, char lines[][96], size_t *n)
{
	for (size_t i = 0; i < f->n; i++) {
		const char *e = f->v[i].evidence, *p;
		unsigned int line = 0;

		for (p = e; (p = strchr(p, ':')); p++)
			if ((p - e >= 5 && strncmp(p - 5, ".conf", 5) == 0) ||
			    (p - e >= 7 && strncmp(p - 7, "/config", 7) == 0)) {
				if (sscanf(p + 1, "%u", &line) == 1)
					break;
			}
		if (line)
			snprintf(lines[(*n)++], 96, "%s %u", f->v[i].id, line);
		else
			snprintf(lines[(*n)++], 96, "%s -", f->v[i].id);
	}
}

static int by_text(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The recipe in dir as container name (Proxmox ID or LXC name) under the test host. */
static bool place_recipe(const char *dir, const char *nn, char *name, size_t size)
{
	char src[512], dst[512];

	snprintf(src, sizeof(src), "%s/pve.conf", dir);
	if (access(src, F_OK) == 0) {
		snprintf(name, size, "%d", 300 + atoi(nn));
		snprintf(dst, sizeof(dst), "%s/etc/pve/lxc/%s.conf", root, name);
		sh("mkdir -p %s/etc/pve/lxc && cp %s %s", root, src, dst);
		return true;
	}
	/* A host with /etc/pve/lxc is Proxmox VE's, whose containers are all its own. */
	sh("rm -rf %s/etc/pve", root);
	snprintf(name, size, "rcp%d", atoi(nn));
	sh("mkdir -p %s/%s && { printf 'lxc.uts.name = %s\\nlxc.rootfs.path = dir:%s/%s/rootfs\\n"
	   "lxc.include = %s/lxc/common.conf\\n'; cat %s/lxc.conf; } "
	   ">%s/%s/config",
	   lxcpath, name, name, lxcpath, name, fixtures(), dir, lxcpath, name);
	return false;
}

/* check's findings for one layout under LXC 6 (what the corpus is written for), as sorted "ID LINE"
 * lines. */
static size_t check_lines(const char *name, bool pve, enum gp_cg_layout layout, char lines[][96])
{
	struct gp_findings *f = calloc(1, sizeof(*f));
	struct gp_check_run run;
	size_t n = 0;
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);

	assert_non_null(f);
	dup2(devnull, 2);
	close(devnull);
	assert_int_equal(
	    gp_check_run_init(&run, test_ctx(root, confdir, lxcpath, pve), test_runtime(root, pve)),
	    0);
	run.rt.layout = layout;
	run.rt.lxc_major = 6;
	assert_int_equal(gp_check_container(&run, name, f), 0);
	gp_check_run_free(&run);
	dup2(saved, 2);
	close(saved);
	finding_lines(f, lines, &n);
	free(f);
	qsort(lines, n, 96, by_text);
	return n;
}

/* v1's and v2's lines: those of both as they are, the others with their layout's tag. */
static void merge(char v1[][96], size_t n1, char v2[][96], size_t n2, struct gp_buf *out)
{
	char all[2 * GP_MAX_FINDINGS][104];
	bool used2[GP_MAX_FINDINGS] = { false };
	size_t n = 0;

	for (size_t i = 0; i < n1; i++) {
		size_t j = 0;

		while (j < n2 && (used2[j] || strcmp(v1[i], v2[j]) != 0))
			j++;
		if (j < n2)
			used2[j] = true;
		snprintf(all[n++], sizeof(all[0]), "%s%.95s", j < n2 ? "" : "v1:", v1[i]);
	}
	for (size_t j = 0; j < n2; j++)
		if (!used2[j])
			snprintf(all[n++], sizeof(all[0]), "v2:%.95s", v2[j]);
	qsort(all, n, sizeof(all[0]), by_text);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(gp_buf_printf(out, "%s\n", all[i]), 0);
}

static void corpus_one(const char *dir, const char *nn)
{
	char v1[GP_MAX_FINDINGS][96], v2[GP_MAX_FINDINGS][96], name[32], path[600];
	_cleanup_free_ char *want = NULL;
	struct gp_buf got = { 0 };
	bool pve = place_recipe(dir, nn, name, sizeof(name));
	size_t n1 = check_lines(name, pve, GP_CG_V1, v1), n2 = check_lines(name, pve, GP_CG_V2, v2);

	assert_int_equal(gp_buf_printf(&got, "%s", ""), 0);
	merge(v1, n1, v2, n2, &got);
	snprintf(path, sizeof(path), "%s/check.expected", dir);
	if (getenv("GP_BLESS"))
		put(path, got.data);
	assert_int_equal(gp_read_file(path, 65536, &want, NULL), 0);
	if (strcmp(want, got.data) != 0)
		fail_msg("%s: check gives\n%swhere check.expected says\n%s", dir, got.data, want);
	gp_buf_free(&got);
}

/* Every recipe of the corpus: check's findings with the line each names. */
static void corpus(void **state)
{
	struct dirent **list;
	int n;

	(void)state;
	host_setup();
	n = scandir(FIXTURES "/recipes", &list, NULL, alphasort);
	assert_true(n > 0);
	for (int i = 0, count = 0; i < n; i++) {
		char dir[400];

		if (list[i]->d_name[0] >= '0' && list[i]->d_name[0] <= '9') {
			snprintf(dir, sizeof(dir), "%s/recipes/%s", FIXTURES, list[i]->d_name);
			corpus_one(dir, list[i]->d_name);
			count++;
		}
		free(list[i]);
		if (i == n - 1)
			assert_true(count >= 10);
	}
	free(list);
	host_cleanup();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(verdicts),
		cmocka_unit_test(selections),
		cmocka_unit_test(copies),
		cmocka_unit_test(corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
