/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GPUs given at each start: who holds what, whose a plan is, the choice and its refusals. */
#include "unit.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/proc.h"
#include "base/util.h"
#include "config/ini.h"
#include "host/host.h"
#include "plan/alloc.h"
#include "plan/cgroup.h"
#include "plan/plan.h"

static struct gp_host quad, b200;
static char root[64];
static unsigned long long my_start;
static pid_t dead;

#define B200_UUID(n) "GPU-5eed0000-0000-4000-8000-00000000000" #n

static int setup(void **state)
{
	pid_t child;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/gp-alloc.XXXXXX");
	if (!mkdtemp(root) || gp_host_read(FIXTURES "/quad-550-proprietary", 0, &quad) < 0 ||
	    gp_host_read(FIXTURES "/b200x8-590-open-hmm", 0, &b200) < 0 ||
	    gp_proc_start_time(getpid(), &my_start) < 0)
		return -1;
	/* A pid that ran and is gone: a start that died without its post-stop. */
	child = fork();
	if (child == 0)
		_exit(0);
	if (child < 0 || waitpid(child, NULL, 0) != child)
		return -1;
	dead = child;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gp_host_free(&quad);
	gp_host_free(&b200);
	sh("rm -rf %s", root);
	return 0;
}

/* Each test starts with an empty run directory and no Proxmox VE. */
static int fresh(void **state)
{
	(void)state;
	sh("rm -rf %s/run %s/etc && mkdir -p %s/run/gpu-provision", root, root, root);
	return 0;
}

static void write_plan(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/run/gpu-provision/%s.plan", root, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A version 2 plan of owner pid (started at start) holding the GPUs of uuids. */
static void write_owned(const char *name, pid_t pid, unsigned long long start,
			const char *const *uuids, size_t n)
{
	char text[2048];
	int len =
	    snprintf(text, sizeof(text), "gpu-provision-plan 2\nowner %d %llu\n", (int)pid, start);

	for (size_t i = 0; i < n; i++)
		len +=
		    snprintf(text + len, sizeof(text) - (size_t)len, "gpu %zu %s\n", i, uuids[i]);
	write_plan(name, text);
}

static void conf_of(struct gp_ini *conf, const char *devices)
{
	gp_ini_init(conf);
	snprintf(conf->path, sizeof(conf->path), "/etc/gpu-provision/c9.ini");
	snprintf(conf->devices, sizeof(conf->devices), "%s", devices);
	conf->devices_line = 2;
	conf->inject = GP_INJECT_NO;
}

static struct gp_log_capture said;

static int alloc_plan(const char *devices, struct gp_plan *plan)
{
	struct gp_ini conf;
	int r;

	conf_of(&conf, devices);
	gp_log_capture_start(&said);
	r = gp_alloc_plan(test_ctx(root, NULL, NULL, false), "c9", &b200, &conf, NULL, plan);
	gp_log_capture_stop(&said);
	return r;
}

static void proc_stat_parse(void **state)
{
	static const char stat[] = "1234 (a) b) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 "
				   "18 987654321 20 21\n";
	unsigned long long start;
	char st;

	(void)state;
	/* A command name may hold blanks and parentheses: fields count from the last ')'. */
	assert_int_equal(gp_parse_proc_stat(stat, &st, &start), 0);
	assert_int_equal(st, 'S');
	assert_true(start == 987654321ULL);
	assert_int_equal(gp_parse_proc_stat("1234 (a) S 1 2 3", &st, &start), -GP_EBADCONF);
	assert_int_equal(gp_parse_proc_stat("1234 a S 1 2 3", &st, &start), -GP_EBADCONF);
	assert_int_equal(
	    gp_parse_proc_stat("1 (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 x9", &st,
			       &start),
	    -GP_EBADCONF);
	/* This very process, read from the real /proc. */
	assert_int_equal(gp_proc_start_time(getpid(), &start), 0);
	assert_true(start == my_start);
	assert_int_equal(gp_proc_start_time(dead, &start), -ENOENT);
}

/* A plan is its owner's while that process runs: the same pid and the same start time. */
static void owner_liveness(void **state)
{
	struct gp_plan p = { 0 };

	(void)state;
	assert_true(gp_alloc_owner_alive(&p)); /* version 1: cannot be told, so it holds */
	p.owner = getpid();
	p.owner_start = my_start;
	assert_true(gp_alloc_owner_alive(&p));
	p.owner_start = my_start + 1; /* the pid, since given to another process */
	assert_false(gp_alloc_owner_alive(&p));
	p.owner = dead;
	p.owner_start = my_start;
	assert_false(gp_alloc_owner_alive(&p));
}

/* An owner that has exited but is not yet reaped (a zombie) runs no more: its plan is stale. */
static void zombie_owner_gone(void **state)
{
	struct gp_plan p = { 0 };
	unsigned long long start = 0;
	char path[64], st = 0;
	pid_t child;

	(void)state;
	child = fork();
	if (child == 0)
		_exit(0);
	assert_true(child > 0);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
	for (int i = 0; i < 500 && st != 'Z'; i++) {
		char *buf = NULL;

		if (gp_read_file(path, 4096, &buf, NULL) < 0 ||
		    gp_parse_proc_stat(buf, &st, &start) < 0)
			st = 0;
		free(buf);
		if (st != 'Z')
			usleep(10 * 1000);
	}
	assert_int_equal(st, 'Z'); /* exited, its /proc entry still there until waitpid */
	p.owner = child;
	p.owner_start = start;
	assert_false(gp_alloc_owner_alive(&p));
	assert_int_equal(gp_proc_start_time(child, &start), -ENOENT);
	assert_int_equal(waitpid(child, NULL, 0), child);
}

/* Only "no such process" says that an owner is gone; any other error reading it does not. */
static void proc_errors_classified(void **state)
{
	static const int gone[] = { -ENOENT, -ESRCH };
	static const int unknown[] = { -EMFILE, -ENFILE, -ENOMEM, -EACCES, -EIO, -GP_EBADCONF };

	(void)state;
	for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
		assert_true(gp_proc_gone(gone[i]));
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		assert_false(gp_proc_gone(unknown[i]));
}

/*
 * An owner whose /proc/PID/stat cannot be read for another reason (here: no descriptor
 * left, EMFILE) may run: its plan holds its GPUs, and the start says so naming the plan.
 */
static void owner_unreadable_holds(void **state)
{
	struct gp_plan p = { .owner = getpid(), .owner_start = 0 };
	struct gp_log_capture warned;
	struct rlimit old, none;
	unsigned long long start;
	int lowest = dup(0), read_r, err;
	enum gp_owner_state st;
	bool alive, live;

	(void)state;
	p.owner_start = my_start;
	assert_true(lowest >= 0);
	close(lowest);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	none = old;
	none.rlim_cur = (rlim_t)lowest; /* every new descriptor is past the limit */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &none), 0);
	read_r = gp_proc_start_time(getpid(), &start);
	st = gp_alloc_owner_state(&p, &err);
	alive = gp_alloc_owner_alive(&p);
	gp_log_capture_start(&warned);
	live = gp_alloc_plan_live(&p, "/run/gpu-provision/a1.plan", "a1");
	gp_log_capture_stop(&warned);
	/* Asserted after the limit is back: a failure here must not starve the next tests. */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(read_r, -EMFILE);
	assert_int_equal(st, GP_OWNER_UNKNOWN);
	assert_int_equal(err, -EMFILE);
	assert_true(alive);
	assert_true(live);
	assert_int_equal(warned.count, 1);
	assert_non_null(strstr(warned.text, "\"/run/gpu-provision/a1.plan\""));
	assert_non_null(strstr(warned.text, gp_strerror(EMFILE)));
	assert_non_null(strstr(warned.text, "holds its GPUs as if a1 ran: if a1 is stopped, "
					    "remove the plan"));
	/* With descriptors again, the same owner runs, and a gone one is quietly gone. */
	assert_int_equal(gp_alloc_owner_state(&p, &err), GP_OWNER_RUNS);
	p.owner = dead;
	gp_log_capture_start(&warned);
	assert_false(gp_alloc_plan_live(&p, "/run/gpu-provision/a1.plan", "a1"));
	gp_log_capture_stop(&warned);
	assert_int_equal(warned.count, 0);
	p.owner = 0;
	assert_int_equal(gp_alloc_owner_state(&p, NULL), GP_OWNER_NONE);
}

/* The other plans, live ones only; a version 1 plan by its nodes; a damaged one said. */
static void held_by_live_plans(void **state)
{
	const char *q0[] = { quad.gpus[0].uuid }, *q3[] = { quad.gpus[3].uuid };
	struct gp_held held;

	(void)state;
	write_owned("a1", getpid(), my_start, q0, 1);
	write_owned("a2", getpid(), my_start, q0, 1);	      /* fixed selections share */
	write_owned("stale", dead, my_start, q3, 1);	      /* owner gone */
	write_owned("reused", getpid(), my_start + 7, q3, 1); /* pid given to another */
	write_owned("c9", getpid(), my_start, q3, 1);	      /* self: its own old plan */
	/* Version 1: /dev/nvidia2 is device minor 2, index 1 on this host. */
	write_plan("old", "gpu-provision-plan 1\nnode nvidiactl 195 255 0660 0 44\n"
			  "node nvidia2 195 2 0660 0 44\nnode nvidia-uvm 509 0 0660 0 44\n");
	write_plan("bad", "gpu-provision-plan 2\nowner x\n");
	write_plan(".hidden", "gpu-provision-plan 1\nnode nvidia0 195 0 0660 0 44\n");
	sh("echo x >%s/run/gpu-provision/c1.verdict", root);
	gp_log_capture_start(&said);
	assert_int_equal(
	    gp_alloc_held(test_ctx(root, NULL, NULL, false), false, "c9", &quad, &held), 0);
	gp_log_capture_stop(&said);
	assert_string_equal(held.by[0], "a1");
	assert_int_equal(held.more[0], 1);
	assert_string_equal(held.by[1], "old");
	assert_string_equal(held.by[2], "");
	assert_string_equal(held.by[3], "");
	/* The damaged plan, and the version 1 one: it holds until a reboot, so it is said. */
	assert_int_equal(said.count, 2);
	assert_non_null(strstr(said.text, "bad.plan\" is damaged, so it holds no GPU here"));
	assert_non_null(strstr(said.text, "old.plan\" is of version 1, which names no owner, so "
					  "its GPUs are held until old's post-stop removes it or "
					  "the host reboots: if old is stopped, remove the plan"));
	/* No run directory yet (the first start after a boot): nothing held. */
	sh("rm -rf %s/run", root);
	assert_int_equal(
	    gp_alloc_held(test_ctx(root, NULL, NULL, false), false, "c9", &quad, &held), 0);
	assert_string_equal(held.by[0], "");
}

/* any:N and model:TEXT:N: alone, N from 1 to 64, TEXT without ':', ',' or blanks. */
static void portable_parse(void **state)
{
	static const char *const bad[] = {
		"any:0",       "any:65",	"any:",	      "any:x",	  "any:1,0",
		"any:1, 0",    "model:B200:65", "model:B200", "model::1", "model:B 200:1",
		"model:a,b:1", "model:B200:0",	"0",	      "all",
	};
	struct gp_portable p;
	struct gp_gpu gpu = b200.gpus[0];

	(void)state;
	assert_int_equal(gp_portable_parse(" any:64 ", NULL, &p), 0);
	assert_true(p.count == 64 && p.model[0] == '\0');
	assert_int_equal(gp_portable_parse("model:B200:2", NULL, &p), 0);
	assert_int_equal(p.count, 2);
	assert_string_equal(p.model, "B200");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gp_log_capture_start(&said);
		if (gp_portable_parse(bad[i], "c9.ini:2", &p) != -GP_EBADCONF)
			fail_msg("took \"%s\"", bad[i]);
		gp_log_capture_stop(&said);
		assert_int_equal(said.count, 1); /* each refusal said, after the ini's line */
		assert_true(strncmp(said.text, "c9.ini:2: ", 10) == 0);
	}
	/* TEXT anywhere in the model name, in any case; never a GPU the driver excluded. */
	snprintf(p.model, sizeof(p.model), "b200");
	assert_string_equal(gpu.model, "NVIDIA B200");
	assert_true(gp_portable_matches(&p, &gpu));
	snprintf(p.model, sizeof(p.model), "NVIDIA");
	assert_true(gp_portable_matches(&p, &gpu));
	snprintf(p.model, sizeof(p.model), "H100");
	assert_false(gp_portable_matches(&p, &gpu));
	p.model[0] = '\0';
	assert_true(gp_portable_matches(&p, &gpu));
	gpu.excluded = true;
	assert_false(gp_portable_matches(&p, &gpu));
}

static void choose_first_free_in_index_order(void **state)
{
	struct gp_portable any2 = { .count = 2 }, any3 = { .count = 3 };
	struct gp_held held = { 0 };
	bool c[GP_MAX_GPUS] = { true, true, true, true };

	(void)state;
	snprintf(held.by[0], sizeof(held.by[0]), "x");
	snprintf(held.by[2], sizeof(held.by[2]), "y");
	assert_int_equal(gp_alloc_choose(&quad, &any3, &held, c), -ENOSPC);
	assert_true(c[0] && c[1] && c[2] && c[3]); /* unchanged */
	assert_int_equal(gp_alloc_choose(&quad, &any2, &held, c), 0);
	assert_true(!c[0] && c[1] && !c[2] && c[3]);
	/* Only candidates: a GPU the selection does not match is never taken. */
	memset(c, 0, sizeof(c));
	c[3] = true;
	assert_int_equal(gp_alloc_choose(&quad, &any2, &held, c), -ENOSPC);
}

/* A start's plan: the first free GPUs, the ones it got recorded, a stale plan not counted. */
static void start_takes_free_gpus(void **state)
{
	const char *g0[] = { B200_UUID(0) }, *g1[] = { B200_UUID(1) }, *g2[] = { B200_UUID(2) };
	struct gp_plan *p = malloc(sizeof(*p));
	bool c[GP_MAX_GPUS];

	(void)state;
	assert_non_null(p);
	write_owned("a0", getpid(), my_start, g0, 1);
	write_owned("a2", getppid(), 0, g2, 1); /* its start time is not 0: stale */
	write_owned("a1", getpid(), my_start, g1, 1);
	assert_int_equal(alloc_plan("any:1", p), 0);
	assert_int_equal(p->ngpus, 1);
	assert_int_equal(p->gpus[0].index, 2);
	assert_string_equal(p->gpus[0].uuid, B200_UUID(2));
	assert_int_equal(p->owner, 0); /* the hook sets it */
	assert_int_equal(gp_alloc_plan_chosen(p, &b200, c), 0);
	assert_true(c[2] && !c[0] && !c[3]);
	for (size_t i = 0; i < p->n; i++)
		assert_string_not_equal(p->nodes[i].name, "nvidia0");
	/* Case-insensitive, among free ones, in index order. */
	assert_int_equal(alloc_plan("model:b200:2", p), 0);
	assert_true(p->ngpus == 2 && p->gpus[0].index == 2 && p->gpus[1].index == 3);
	/* A fixed selection takes what it names, held or not, and records it too. */
	assert_int_equal(alloc_plan("0", p), 0);
	assert_true(p->ngpus == 1 && p->gpus[0].index == 0);
	free(p);
}

static void write_ini(const char *name, const char *devices)
{
	char path[256];
	FILE *f;

	sh("mkdir -p %s/etc/gpu-provision", root);
	snprintf(path, sizeof(path), "%s/etc/gpu-provision/%s.ini", root, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "[gpu]\ndevices = %s\n", devices);
	fclose(f);
	assert_int_equal(chmod(path, 0644), 0);
}

/* A start of c9 with its ini in root's confdir, beside the holders' inis. */
static int alloc_beside(const char *devices, struct gp_plan *plan)
{
	struct gp_ini conf;
	int r;

	conf_of(&conf, devices);
	char confdir[128];

	snprintf(conf.path, sizeof(conf.path), "%s/etc/gpu-provision/c9.ini", root);
	snprintf(confdir, sizeof(confdir), "%s/etc/gpu-provision", root);
	gp_log_capture_start(&said);
	r = gp_alloc_plan(test_ctx(root, confdir, NULL, false), "c9", &b200, &conf, NULL, plan);
	gp_log_capture_stop(&said);
	return r;
}

/*
 * Fixed selections share a GPU by design, but a portable one took its GPU as a free one
 * and expects it alone: a fixed selection that takes it starts, warned, naming the holder.
 */
static void fixed_beside_portable_warned(void **state)
{
	const char *g0[] = { B200_UUID(0) }, *g1[] = { B200_UUID(1) }, *g3[] = { B200_UUID(3) };
	struct gp_plan *p = malloc(sizeof(*p));
	char want[512];

	(void)state;
	assert_non_null(p);
	write_owned("a0", getpid(), my_start, g0, 1);
	write_ini("a0", "any:1");
	write_owned("a1", getpid(), my_start, g1, 1);
	write_ini("a1", "1");
	write_owned("a3", dead, my_start, g3, 1); /* gone: it holds nothing */
	write_ini("a3", "model:B200:1");
	assert_int_equal(alloc_beside("0,1,3", p), 0);
	assert_int_equal(p->ngpus, 3);
	assert_int_equal(said.count, 1);
	snprintf(want, sizeof(want),
		 "%s/etc/gpu-provision/c9.ini:2: c9 starts with GPU 0 (" B200_UUID(
		     0) "), which "
			"is held by a0, whose devices = any:1 expects it alone: both use it now; "
			"restart "
			"a0, which then takes a free GPU, or select for c9 a GPU that no portable "
			"selection holds, or any:N",
		 root);
	assert_string_equal(said.text, want);
	/* The holder's ini is another container's, which any node may write: escaped. */
	write_ini("a0", "any:1\x1b[2J");
	assert_int_equal(alloc_beside("0", p), 0);
	assert_int_equal(said.count, 1);
	assert_null(strchr(said.text, '\x1b'));
	assert_non_null(strstr(said.text, "devices = any:1\\x1b[2J expects"));
	/* Fixed beside fixed: shared as before, nothing said. */
	assert_int_equal(alloc_beside("1", p), 0);
	assert_int_equal(said.count, 0);
	/* A portable start never takes a held GPU: nothing to say. */
	assert_int_equal(alloc_beside("any:1", p), 0);
	assert_int_equal(said.count, 0);
	assert_string_equal(p->gpus[0].uuid, B200_UUID(2));
	free(p);
}

/*
 * What a running portable selection got is its plan's record alone: without one nothing is
 * guessed, and why is said.
 */
static void started_with_record_only(void **state)
{
	const char *g2[] = { B200_UUID(2) }, *q0[] = { quad.gpus[0].uuid };
	struct gp_plan *p = malloc(sizeof(*p));
	bool c[GP_MAX_GPUS];
	char why[600], path[128];

	(void)state;
	assert_non_null(p);
	snprintf(path, sizeof(path), "\"%s/run/gpu-provision/c9.plan\"", root);
	assert_int_equal(gp_alloc_started_with(root, "c9", &b200, p, c, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "no plan "));
	assert_non_null(strstr(why, path));
	assert_non_null(strstr(why, "other starts take its GPUs as free ones"));
	assert_false(c[0] || c[2]);
	write_owned("c9", dead, my_start, g2, 1);
	assert_int_equal(gp_alloc_started_with(root, "c9", &b200, p, c, why, sizeof(why)), -ESRCH);
	assert_non_null(strstr(why, "is of a start whose owner, pid "));
	write_plan("c9", "gpu-provision-plan 1\nnode nvidia2 195 2 0660 0 44\n");
	assert_int_equal(gp_alloc_started_with(root, "c9", &b200, p, c, why, sizeof(why)),
			 -ENODATA);
	write_owned("c9", getpid(), my_start, q0, 1);
	assert_int_equal(gp_alloc_started_with(root, "c9", &b200, p, c, why, sizeof(why)), -ENODEV);
	assert_non_null(strstr(why, "records GPUs this host lacks"));
	write_plan("c9", "gpu-provision-plan 2\nowner x\n");
	assert_int_equal(gp_alloc_started_with(root, "c9", &b200, p, c, why, sizeof(why)),
			 -GP_EBADCONF);
	write_owned("c9", getpid(), my_start, g2, 1);
	assert_int_equal(gp_alloc_started_with(root, "c9", &b200, p, c, why, sizeof(why)), 0);
	assert_true(c[2] && !c[0] && !c[1] && !c[3]);
	assert_int_equal(p->ngpus, 1);
	free(p);
}

/* Every GPU held: one message with the node, the selection, each GPU and its holder. */
static void refusal_names_holders(void **state)
{
	struct gp_plan *p = malloc(sizeof(*p));
	char name[16], want[1024];
	int len;

	(void)state;
	assert_non_null(p);
	for (int i = 0; i < 8; i++) {
		const char *u[] = { b200.gpus[i].uuid };

		snprintf(name, sizeof(name), "a%d", i);
		write_owned(name, getpid(), my_start, u, 1);
	}
	assert_int_equal(alloc_plan("any:1", p), -ENOSPC);
	assert_int_equal(said.count, 1);
	len = snprintf(want, sizeof(want),
		       "/etc/gpu-provision/c9.ini:2: this host cannot give c9 devices = any:1: 1 "
		       "free GPU wanted, none is free; this host has 8 GPUs:");
	for (int i = 0; i < 8; i++)
		len += snprintf(want + len, sizeof(want) - (size_t)len,
				"%s %d NVIDIA B200 (held by a%d)", i ? "," : "", i, i);
	snprintf(want + len, sizeof(want) - (size_t)len,
		 "; stop a container that holds one, or start c9 on a node with free GPUs");
	assert_string_equal(said.text, want);
	/* One let go: 1 free of the 2 wanted. */
	sh("rm %s/run/gpu-provision/a5.plan", root);
	assert_int_equal(alloc_plan("model:B200:2", p), -ENOSPC);
	assert_non_null(strstr(said.text, "devices = model:B200:2: 2 free GPUs whose model "
					  "contains \"B200\" wanted, 1 is free;"));
	assert_non_null(strstr(said.text, "5 NVIDIA B200 (free)"));
	assert_int_equal(alloc_plan("any:1", p), 0);
	assert_int_equal(p->gpus[0].index, 5);
	free(p);
}

/* On Proxmox VE the node by its name; what it lacks, against what it has. */
static void refusal_names_the_node(void **state)
{
	static const struct {
		const char *devices, *why;
	} cases[] = {
		{ "model:H100:1", "node pve2 cannot give c9 devices = model:H100:1: model:H100:1 "
				  "wants 1 GPU whose model contains \"H100\"; the host has 0 (see "
				  "gpu-provision host); node pve2 has 8 GPUs: 0 NVIDIA B200 " },
		{ "any:9", "devices = any:9: any:9 wants 9 GPUs; the host has 8; node pve2 has 8 "
			   "GPUs:" },
		{ "9",
		  "node pve2 cannot give c9 devices = 9: no GPU has index 9 (the host has GPUs "
		  "0-7; see gpu-provision host); node pve2 has 8 GPUs:" },
		{ "GPU-1a2b3c4d-0000-4000-8000-000000000081",
		  "no GPU has UUID GPU-1a2b3c4d-0000-4000-8000-000000000081 (see gpu-provision "
		  "host); node pve2 has 8 GPUs: 0 NVIDIA B200 (free), 1 " },
		{ "0000:41:00.0",
		  "no GPU at PCI address 0000:41:00.0 (see gpu-provision host); node "
		  "pve2 has 8 GPUs:" },
	};
	struct gp_plan *p = malloc(sizeof(*p));

	(void)state;
	assert_non_null(p);
	sh("mkdir -p %s/etc/pve/lxc %s/etc/pve/nodes/pve2 && ln -s nodes/pve2 %s/etc/pve/local",
	   root, root, root);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(alloc_plan(cases[i].devices, p), -GP_EBADCONF);
		assert_int_equal(said.count, 1);
		if (!strstr(said.text, cases[i].why))
			fail_msg("\"%s\": \"%s\" not in \"%s\"", cases[i].devices, cases[i].why,
				 said.text);
		assert_non_null(strstr(said.text, "7 NVIDIA B200 (free); "));
	}
	assert_non_null(strstr(said.text, "; select GPUs it has, or any:N or model:TEXT:N, which "
					  "take free GPUs on whichever node starts c9"));
	free(p);
}

/* The lock is a file only while a start holds it. */
static void lock_file_lives_while_held(void **state)
{
	char path[128];
	int fd;

	(void)state;
	sh("rm -rf %s/run", root);
	snprintf(path, sizeof(path), "%s/run/gpu-provision/alloc.lock", root);
	fd = gp_alloc_lock(root, "c9");
	assert_true(fd >= 0);
	assert_int_equal(access(path, F_OK), 0);
	gp_alloc_unlock(root, fd);
	assert_int_equal(access(path, F_OK), -1);
	fd = gp_alloc_lock(root, "c9");
	assert_true(fd >= 0);
	gp_alloc_unlock(root, fd);
}

/*
 * A second start waits while another holds the lock, and takes it on the file that is there
 * then: the holder removed the one it held before letting go.
 */
static void lock_waits_for_holder(void **state)
{
	char path[128], c;
	struct stat a, b;
	int pipefd[2], fd, other, status;
	pid_t holder;

	(void)state;
	snprintf(path, sizeof(path), "%s/run/gpu-provision/alloc.lock", root);
	assert_int_equal(pipe(pipefd), 0);
	holder = fork();
	assert_true(holder >= 0);
	if (holder == 0) {
		int held = gp_alloc_lock(root, "c1");

		if (held < 0 || write(pipefd[1], "x", 1) != 1)
			_exit(1);
		usleep(500 * 1000);
		gp_alloc_unlock(root, held);
		_exit(0);
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &c, 1), 1);
	close(pipefd[0]);
	/* Held: any other start's flock of the file finds it taken. */
	other = open(path, O_RDWR | O_CLOEXEC);
	assert_true(other >= 0);
	assert_int_equal(flock(other, LOCK_EX | LOCK_NB), -1);
	assert_int_equal(errno, EWOULDBLOCK);
	close(other);
	fd = gp_alloc_lock(root, "c9"); /* waits for c1, well within the deadline */
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat(path, &b), 0);
	assert_true(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
	other = open(path, O_RDWR | O_CLOEXEC);
	assert_true(other >= 0);
	assert_int_equal(flock(other, LOCK_EX | LOCK_NB), -1);
	close(other);
	gp_alloc_unlock(root, fd);
	assert_int_equal(waitpid(holder, &status, 0), holder);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Read back by UUID: a GPU this host lacks, or a plan that records none, gives -ENOENT. */
static void plan_chosen_by_uuid(void **state)
{
	struct gp_plan p = { .ngpus = 1 };
	bool c[GP_MAX_GPUS];

	(void)state;
	snprintf(p.gpus[0].uuid, sizeof(p.gpus[0].uuid), "%s", quad.gpus[2].uuid);
	p.gpus[0].index = 7; /* the index then; the UUID decides */
	assert_int_equal(gp_alloc_plan_chosen(&p, &quad, c), 0);
	assert_true(c[2] && !c[0] && !c[1] && !c[3]);
	assert_int_equal(gp_alloc_plan_chosen(&p, &b200, c), -ENOENT);
	p.ngpus = 0;
	assert_int_equal(gp_alloc_plan_chosen(&p, &quad, c), -ENOENT);
}

/*
 * The GPUs the container's rules cover come first (a config a migration brought keeps the
 * rules the first node wrote); others only where too few of those are free.
 */
static void covered_gpus_first(void **state)
{
	struct gp_plan *p = malloc(sizeof(*p));
	struct gp_cg_rules rules = { .deny_all = true };
	struct gp_ini conf;

	(void)state;
	assert_non_null(p);
	conf_of(&conf, "any:1");
	assert_int_equal(gp_cg_rules_add(&rules, "lxc.cgroup2.devices", "lxc.cgroup2.devices.allow",
					 "c 195:5 rwm"),
			 0);
	gp_log_capture_start(&said);
	assert_int_equal(
	    gp_alloc_plan(test_ctx(root, NULL, NULL, false), "c9", &b200, &conf, &rules, p), 0);
	gp_log_capture_stop(&said);
	assert_int_equal(p->ngpus, 1);
	assert_string_equal(p->gpus[0].uuid, B200_UUID(5));
	/* any:2: one is covered, too few: the first free ones in index order */
	conf_of(&conf, "any:2");
	gp_log_capture_start(&said);
	assert_int_equal(
	    gp_alloc_plan(test_ctx(root, NULL, NULL, false), "c9", &b200, &conf, &rules, p), 0);
	gp_log_capture_stop(&said);
	assert_int_equal(p->ngpus, 2);
	assert_string_equal(p->gpus[0].uuid, B200_UUID(0));
	assert_string_equal(p->gpus[1].uuid, B200_UUID(1));
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(proc_stat_parse),
		cmocka_unit_test(owner_liveness),
		cmocka_unit_test(zombie_owner_gone),
		cmocka_unit_test(proc_errors_classified),
		cmocka_unit_test(owner_unreadable_holds),
		cmocka_unit_test_setup(held_by_live_plans, fresh),
		cmocka_unit_test(portable_parse),
		cmocka_unit_test(choose_first_free_in_index_order),
		cmocka_unit_test_setup(start_takes_free_gpus, fresh),
		cmocka_unit_test_setup(covered_gpus_first, fresh),
		cmocka_unit_test_setup(fixed_beside_portable_warned, fresh),
		cmocka_unit_test_setup(started_with_record_only, fresh),
		cmocka_unit_test_setup(refusal_names_holders, fresh),
		cmocka_unit_test_setup(refusal_names_the_node, fresh),
		cmocka_unit_test_setup(lock_file_lives_while_held, fresh),
		cmocka_unit_test_setup(lock_waits_for_holder, fresh),
		cmocka_unit_test(plan_chosen_by_uuid),
	};
	return cmocka_run_group_tests_name("alloc", tests, setup, teardown);
}
