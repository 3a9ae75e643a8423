/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * GPUs given at each start: portable selections (any:N, model:TEXT:N) resolved against
 * this node's GPUs that no other running container holds, under one lock, and the plans
 * that say who holds what. A container moved to another node of a cluster meets that
 * node's GPUs there; an index or a UUID would name another GPU, or none.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "base/ctx.h"
#include "base/escape.h"
#include "base/lock.h"
#include "base/paths.h"
#include "base/proc.h"
#include "base/util.h"
#include "config/ini.h"
#include "plan/alloc.h"
#include "plan/cgroup.h"
#include "plan/planfile.h"
#include "plan/planner.h"
#include "plan/vendors.h"

#define ALLOC_LOCK "alloc.lock"

enum gp_owner_state gp_alloc_owner_state(const struct gp_plan *plan, int *err)
{
	unsigned long long start;
	int r;

	if (err)
		*err = 0;
	if (plan->owner <= 0)
		return GP_OWNER_NONE;
	r = gp_proc_start_time(plan->owner, &start);
	if (r == -ENOENT)
		return GP_OWNER_GONE;
	if (r < 0) {
		if (err)
			*err = r;
		return GP_OWNER_UNKNOWN;
	}
	return start == plan->owner_start ? GP_OWNER_RUNS : GP_OWNER_GONE;
}

bool gp_alloc_owner_alive(const struct gp_plan *plan)
{
	return gp_alloc_owner_state(plan, NULL) != GP_OWNER_GONE;
}

bool gp_alloc_plan_live(const struct gp_plan *plan, const char *path, const char *name)
{
	int err;

	switch (gp_alloc_owner_state(plan, &err)) {
	case GP_OWNER_GONE:
		return false;
	case GP_OWNER_UNKNOWN:
		gp_warn("Failed to read \"/proc/%d/stat\", the owner of the plan \"%s\": %s; the "
			"plan holds its GPUs as if %s ran: if %s is stopped, remove the plan",
			(int)plan->owner, path, gp_strerror(-err), name, name);
		return true;
	default:
		return true;
	}
}

static void hold(struct gp_held *held, size_t i, const char *name)
{
	if (held->by[i][0])
		held->more[i]++;
	else
		snprintf(held->by[i], sizeof(held->by[i]), "%s", name);
}

/* The GPUs one plan holds: its gpu lines by UUID, or a version 1 plan's nvidiaN nodes. */
static void plan_gpus(const struct gp_plan *plan, const struct gp_host *host,
		      bool mine[GP_MAX_GPUS])
{
	unsigned int nv = host->majors.nvidia ? host->majors.nvidia : GP_MAJOR_NVIDIA, minor;

	if (gp_alloc_plan_chosen(plan, host, mine) == 0)
		return;
	for (size_t k = 0; k < plan->n; k++)
		for (size_t i = 0; i < host->ngpus; i++)
			if (sscanf(plan->nodes[k].name, "nvidia%u", &minor) == 1 &&
			    plan->nodes[k].major == nv && host->gpus[i].minor == minor)
				mine[i] = true;
}

/*
 * Whether name's selection, as its ini says now, is portable (its devices into holder):
 * the plan does not say, and the ini is what its start read. An ini that cannot be read
 * is none, quietly: it is its own container's to fix.
 */
static bool holder_is_portable(const struct gp_ctx *ctx, const char *name, struct gp_holder *holder)
{
	_cleanup_free_ struct gp_ini *conf = malloc(sizeof(*conf));
	struct gp_log_capture quiet;
	int r;

	if (!conf)
		return false;
	gp_log_capture_start(&quiet);
	r = gp_ini_load(ctx, name, conf);
	gp_log_capture_stop(&quiet);
	if (r < 0 || !gp_selection_is_portable(conf->devices))
		return false;
	snprintf(holder->name, sizeof(holder->name), "%s", name);
	snprintf(holder->devices, sizeof(holder->devices), "%s", gp_strtrim(conf->devices));
	return true;
}

/* "NAME.plan" of a container name: NAME, or NULL for any other file. */
static bool plan_owner_name(const char *file, char *name, size_t size)
{
	size_t n = strlen(file);

	if (n <= 5 || strcmp(file + n - 5, ".plan") != 0 || n - 5 >= size)
		return false;
	memcpy(name, file, n - 5);
	name[n - 5] = '\0';
	return gp_name_is_valid(name);
}

/* Where read_one looks, and what it fills. */
struct scan {
	const struct gp_ctx *ctx;
	bool holders; /* whose selections are portable: read their inis */
	const char *dir, *self;
	const struct gp_host *host;
	struct gp_held *held;
};

/* Fills held with the GPUs of one live plan, name's; a version 1 one that holds any, said. */
static void hold_plan(const struct scan *sc, const struct gp_plan *plan, const char *path,
		      const char *name)
{
	bool mine[GP_MAX_GPUS] = { false }, any = false, portable;
	struct gp_holder holder = { "", "" };

	plan_gpus(plan, sc->host, mine);
	for (size_t i = 0; i < sc->host->ngpus; i++)
		any = any || mine[i];
	if (!any)
		return;
	portable = sc->holders && holder_is_portable(sc->ctx, name, &holder);
	for (size_t i = 0; i < sc->host->ngpus; i++) {
		if (!mine[i])
			continue;
		hold(sc->held, i, name);
		if (portable && !sc->held->alone[i].name[0])
			sc->held->alone[i] = holder;
	}
	if (plan->owner <= 0)
		gp_warn("the plan \"%s\" is of version 1, which names no owner, so its GPUs are "
			"held until %s's post-stop removes it or the host reboots: if %s is "
			"stopped, remove the plan",
			path, name, name);
}

static void read_one(const struct scan *sc, const char *file)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_free_ struct gp_plan *plan = NULL;
	char name[sizeof(sc->held->by[0])];
	struct stat st;
	int r;

	if (!plan_owner_name(file, name, sizeof(name)) || strcmp(name, sc->self) == 0 ||
	    asprintf(&path, "%s/%s", sc->dir, file) < 0 || lstat(path, &st) < 0 ||
	    !S_ISREG(st.st_mode) || !(plan = malloc(sizeof(*plan))))
		return;
	r = gp_plan_read(path, plan);
	if (r < 0 && r != -GP_EBADCONF)
		return; /* a plan removed meanwhile is one its container let go */
	if (r < 0) {
		gp_warn("the plan \"%s\" is damaged, so it holds no GPU here; remove it unless "
			"%s runs",
			path, name);
		return;
	}
	if (gp_alloc_plan_live(plan, path, name))
		hold_plan(sc, plan, path, name);
}

int gp_alloc_held(const struct gp_ctx *ctx, bool holders, const char *self,
		  const struct gp_host *host, struct gp_held *held)
{
	_cleanup_free_ char *dir = gp_path(ctx->root, GP_RUNDIR);
	struct scan sc = { ctx, holders && ctx->confdir, dir, self, host, held };
	struct dirent **list = NULL;
	int n;

	memset(held, 0, sizeof(*held));
	if (!dir)
		return -ENOMEM;
	/* In name order: which holder a refusal names first does not depend on the fs. */
	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0 && errno == ENOENT)
		return 0;
	if (n < 0)
		return gp_error_errno(-errno, "Failed to read \"%s\"", dir);
	for (int i = 0; i < n; i++) {
		read_one(&sc, list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return 0;
}

int gp_alloc_choose(const struct gp_host *host, const struct gp_portable *p,
		    const struct gp_held *held, bool chosen[GP_MAX_GPUS])
{
	bool pick[GP_MAX_GPUS] = { false };
	unsigned int n = 0;

	/* host->gpus is in nvidia-smi index order (gp_host_index_gpus). */
	for (size_t i = 0; i < host->ngpus && n < p->count; i++)
		if (chosen[i] && !held->by[i][0]) {
			pick[i] = true;
			n++;
		}
	if (n < p->count)
		return -ENOSPC;
	memcpy(chosen, pick, sizeof(pick));
	return 0;
}

static unsigned int count_free(const struct gp_host *host, const struct gp_portable *p,
			       const struct gp_held *held)
{
	unsigned int n = 0;

	for (size_t i = 0; i < host->ngpus; i++)
		n += gp_portable_matches(p, &host->gpus[i]) && !held->by[i][0];
	return n;
}

void gp_alloc_node_label(const struct gp_ctx *ctx, char *out, size_t size)
{
	if (ctx->node_err == 0)
		snprintf(out, size, "node %s", ctx->node);
	else
		snprintf(out, size, "this host");
}

/*
 * "8 GPUs: 0 NVIDIA B200 (held by c1), 1 NVIDIA B200 (free), ...", as a refusal says them:
 * by index and model, not UUID, so that an 8-GPU node's refusal stays within the 1024 bytes
 * of an LXC log line (gpu-provision host names the UUIDs).
 */
static void describe_gpus(const struct gp_host *host, const struct gp_held *held, struct gp_buf *b)
{
	if (host->ngpus == 0) {
		gp_buf_printf(b, "no NVIDIA GPU");
		return;
	}
	gp_buf_printf(b, "%zu GPU%s:", host->ngpus, host->ngpus == 1 ? "" : "s");
	for (size_t i = 0; i < host->ngpus; i++) {
		const struct gp_gpu *g = &host->gpus[i];

		gp_buf_printf(b, "%s %d %s", i ? "," : "", g->index, g->model);
		if (g->excluded)
			gp_buf_printf(b, " (excluded by the driver)");
		else if (held->by[i][0] && held->more[i])
			gp_buf_printf(b, " (held by %s and %u more)", held->by[i], held->more[i]);
		else if (held->by[i][0])
			gp_buf_printf(b, " (held by %s)", held->by[i]);
		else
			gp_buf_printf(b, " (free)");
	}
}

struct start {
	const struct gp_ctx *ctx;
	const char *name;
	const struct gp_host *host;
	const struct gp_ini *conf;
	const struct gp_held *held;
	const struct gp_cg_rules *rules; /* the container's device rules, NULL: none read */
};

/* Whether the container's rules let it open host GPU i's /dev/nvidiaN. */
static bool rules_cover(const struct start *s, size_t i)
{
	struct gp_devnode n = { .major = s->host->majors.nvidia, .minor = s->host->gpus[i].minor };

	snprintf(n.name, sizeof(n.name), "nvidia%u", s->host->gpus[i].minor);
	return !s->rules || gp_cg_rules_allow(s->rules, &n);
}

/*
 * Free GPUs the container's rules already cover first: its config came from the node that
 * attached it (a migration keeps the rules), so on another node these start without a
 * rewrite of its rules. Only where too few are covered are the others taken, and the
 * rules' check names what to run.
 */
static int choose_free(const struct start *s, const struct gp_portable *p, bool chosen[GP_MAX_GPUS])
{
	bool covered[GP_MAX_GPUS];

	memcpy(covered, chosen, sizeof(covered));
	for (size_t i = 0; i < s->host->ngpus; i++)
		covered[i] = covered[i] && rules_cover(s, i);
	if (gp_alloc_choose(s->host, p, s->held, covered) == 0) {
		memcpy(chosen, covered, sizeof(covered));
		return 0;
	}
	return gp_alloc_choose(s->host, p, s->held, chosen);
}

/* The one message of a refused start: where, node, selection, why, the node's GPUs, what to do. */
static int refuse(const struct start *s, int ret, const char *why, const char *fix)
{
	char node[GP_NODE_NAME_MAX + 8];
	struct gp_buf b = { 0 };

	gp_alloc_node_label(s->ctx, node, sizeof(node));
	gp_buf_printf(&b, "%s:%u: %s cannot give %s devices = %s: %s; %s has ", s->conf->path,
		      s->conf->devices_line, node, s->name, s->conf->devices, why, node);
	describe_gpus(s->host, s->held, &b);
	gp_buf_printf(&b, "; %s", fix);
	gp_error("%s", b.data ? b.data : why);
	gp_buf_free(&b);
	return ret;
}

static int refuse_too_few(const struct start *s, const struct gp_portable *p)
{
	unsigned int n = count_free(s->host, p, s->held);
	char why[256], fix[160], model[GP_PORTABLE_MODEL_MAX + 40] = "", have[32] = "none is";

	if (p->model[0])
		snprintf(model, sizeof(model), " whose model contains \"%s\"", p->model);
	if (n)
		snprintf(have, sizeof(have), "%u %s", n, n == 1 ? "is" : "are");
	snprintf(why, sizeof(why), "%u free GPU%s%s wanted, %s free", p->count,
		 p->count == 1 ? "" : "s", model, have);
	snprintf(fix, sizeof(fix),
		 "stop a container that holds one, or start %s on a node with free GPUs", s->name);
	return refuse(s, -ENOSPC, why, fix); /* the node's state, not the ini: exit 3 */
}

/* The GPUs a plan of a start got, as the probe and list read them back. */
static void record_gpus(const struct gp_host *host, const bool chosen[GP_MAX_GPUS],
			struct gp_plan *plan)
{
	plan->ngpus = 0;
	for (size_t i = 0; i < host->ngpus; i++) {
		struct gp_plan_gpu *g = &plan->gpus[plan->ngpus];

		if (!chosen[i])
			continue;
		g->index = (unsigned int)host->gpus[i].index;
		snprintf(g->uuid, sizeof(g->uuid), "%s", host->gpus[i].uuid);
		snprintf(g->pci, sizeof(g->pci), "%s", host->gpus[i].pci);
		plan->ngpus++;
	}
}

/*
 * Fixed selections share GPUs by design, but a portable one took its GPUs as free ones
 * and expects them alone: a fixed selection that takes one is said, naming the holder.
 */
static void warn_taken_from_portable(const struct start *s, const bool chosen[GP_MAX_GPUS])
{
	for (size_t i = 0; i < s->host->ngpus; i++) {
		const struct gp_holder *h = &s->held->alone[i];
		char devices[4 * sizeof(h->devices)];

		if (!chosen[i] || !h->name[0])
			continue;
		/* Another container's ini, which on Proxmox VE any node may write. */
		gp_escape(devices, sizeof(devices), h->devices, strlen(h->devices), false);
		gp_warn("%s:%u: %s starts with GPU %d (%s), which is held by %s, whose devices = "
			"%s expects it alone: both use it now; restart %s, which then takes a free "
			"GPU, or select for %s a GPU that no portable selection holds, or any:N",
			s->conf->path, s->conf->devices_line, s->name, s->host->gpus[i].index,
			s->host->gpus[i].uuid, h->name, devices, h->name, s->name);
	}
}

static int choose(const struct start *s, bool chosen[GP_MAX_GPUS])
{
	bool portable = gp_selection_is_portable(s->conf->devices);
	struct gp_log_capture said;
	struct gp_portable p;
	char fix[200];
	int r;

	gp_log_capture_start(&said);
	r = gp_vendor_for_host(s->host)->select(s->conf->devices, s->host, NULL, chosen);
	gp_log_capture_stop(&said);
	if (r < 0 && portable)
		snprintf(fix, sizeof(fix), "start %s on a node with such GPUs, or change devices",
			 s->name);
	else if (r < 0)
		snprintf(fix, sizeof(fix),
			 "select GPUs it has, or any:N or model:TEXT:N, which take free GPUs "
			 "on whichever node starts %s",
			 s->name);
	if (r < 0)
		return refuse(s, -GP_EBADCONF, said.text, fix);
	if (!portable) {
		warn_taken_from_portable(s, chosen);
		return 0;
	}
	if (gp_portable_parse(s->conf->devices, NULL, &p) < 0) /* select took it: never */
		return -GP_EBADCONF;
	return choose_free(s, &p, chosen) < 0 ? refuse_too_few(s, &p) : 0;
}

int gp_alloc_plan(const struct gp_ctx *ctx, const char *name, const struct gp_host *host,
		  const struct gp_ini *conf, const struct gp_cg_rules *rules, struct gp_plan *plan)
{
	_cleanup_free_ struct gp_held *held = malloc(sizeof(*held));
	struct start s = { ctx, name, host, conf, held, rules };
	bool chosen[GP_MAX_GPUS];
	int r;

	if (!held)
		return -ENOMEM;
	/* Only a fixed selection asks whose selections are portable: it may share theirs. */
	r = gp_alloc_held(ctx, !gp_selection_is_portable(conf->devices), name, host, held);
	if (r == 0)
		r = choose(&s, chosen);
	if (r == 0)
		r = gp_plan_for_chosen(ctx->root, host, conf, GP_WHERE_LINE, chosen, plan);
	if (r == 0)
		record_gpus(host, chosen, plan);
	return r;
}

/* True while fd is the file at path: the holder before us may have removed it. */
static bool is_current(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

static int lock_path(const char *path, const char *name)
{
	double deadline = gp_now_ms() + GP_LOCK_TIMEOUT_MS;
	int flags = O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;

	for (;;) {
		_cleanup_close_ int fd = open(path, flags, 0600);
		long long left = deadline - gp_now_ms();
		int r;

		if (fd < 0)
			return gp_error_errno(-errno, "Failed to open the lock \"%s\"", path);
		r = gp_lock_fd(fd, GP_LOCK_FLOCK, left > 0 ? (unsigned int)left : 0);
		if (r == -ETIMEDOUT) {
			gp_error("another start has held the GPU allocation lock \"%s\" for more "
				 "than %d s, so %s was not started: start it again (a gpu-hook "
				 "that hangs in pre-start holds it: fuser -v %s)",
				 path, GP_LOCK_TIMEOUT_MS / 1000, name, path);
			return -EBUSY;
		}
		if (r < 0)
			return gp_error_errno(r, "Failed to lock \"%s\"", path);
		if (is_current(fd, path))
			return steal_fd(fd);
	}
}

int gp_alloc_lock(const char *root, const char *name)
{
	_cleanup_free_ char *path = gp_run_path(root, ALLOC_LOCK);
	int r;

	if (!path)
		return -ENOMEM;
	r = gp_mkdir_parents(path);
	if (r < 0)
		return gp_error_errno(r, "Failed to create the directory of \"%s\"", path);
	return lock_path(path, name);
}

void gp_alloc_unlock(const char *root, int fd)
{
	_cleanup_free_ char *path = gp_run_path(root, ALLOC_LOCK);

	if (fd < 0)
		return;
	/* Removed while held: no start is between our unlink and our close. */
	if (path)
		unlink(path);
	close(fd);
}

int gp_alloc_read_plan(const char *root, const char *name, struct gp_plan *plan)
{
	_cleanup_free_ char *path = gp_plan_path(root, name);

	return path ? gp_plan_read(path, plan) : -ENOMEM;
}

int gp_alloc_plan_chosen(const struct gp_plan *plan, const struct gp_host *host,
			 bool chosen[GP_MAX_GPUS])
{
	memset(chosen, 0, GP_MAX_GPUS * sizeof(bool));
	if (plan->ngpus == 0)
		return -ENOENT;
	for (size_t k = 0; k < plan->ngpus; k++) {
		size_t i = 0;

		while (i < host->ngpus && strcasecmp(host->gpus[i].uuid, plan->gpus[k].uuid) != 0)
			i++;
		if (i == host->ngpus) {
			memset(chosen, 0, GP_MAX_GPUS * sizeof(bool));
			return -ENOENT;
		}
		chosen[i] = true;
	}
	return 0;
}

/* Why no record of name's start's GPUs is there, into why. */
static int no_record(int r, const char *path, const struct gp_plan *plan, char *why, size_t size)
{
	static const char taken[] = "other starts take its GPUs as free ones";

	if (r == -ENOENT)
		snprintf(why, size, "no plan \"%s\" records its start (%s)", path, taken);
	else if (r == -ESRCH)
		snprintf(why, size,
			 "its plan \"%s\" is of a start whose owner, pid %d, is gone (%s)", path,
			 (int)plan->owner, taken);
	else if (r == -ENODATA)
		snprintf(why, size, "its plan \"%s\" is of version 1, which records no GPU", path);
	else if (r == -ENODEV)
		snprintf(why, size, "its plan \"%s\" records GPUs this host lacks", path);
	else if (r == -GP_EBADCONF)
		snprintf(why, size, "its plan \"%s\" is damaged (%s)", path, taken);
	else
		snprintf(why, size, "its plan \"%s\" cannot be read: %s", path, gp_strerror(-r));
	return r;
}

int gp_alloc_started_with(const char *root, const char *name, const struct gp_host *host,
			  struct gp_plan *plan, bool chosen[GP_MAX_GPUS], char *why, size_t size)
{
	_cleanup_free_ char *path = gp_plan_path(root, name);
	int r;

	memset(chosen, 0, GP_MAX_GPUS * sizeof(bool));
	if (!path)
		return -ENOMEM;
	r = gp_alloc_read_plan(root, name, plan);
	if (r < 0)
		return no_record(r, path, plan, why, size);
	if (!gp_alloc_owner_alive(plan))
		return no_record(-ESRCH, path, plan, why, size);
	if (plan->ngpus == 0)
		return no_record(-ENODATA, path, plan, why, size);
	if (gp_alloc_plan_chosen(plan, host, chosen) < 0)
		return no_record(-ENODEV, path, plan, why, size);
	return 0;
}
