/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The day after a driver update (restart.h): a running container's injected files against
 * the host's now, from its start's record and its init's mount table, which the kernel
 * writes (a container can hide its own state in it, no other's). Nothing in it is run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/paths.h"
#include "base/util.h"
#include "check/restart.h"
#include "driver/runtime.h"
#include "host/userspace.h"

/* A mount table larger than this (thousands of mounts) is not judged. */
#define MOUNTINFO_MAX (8u << 20)
#define DELETED "//deleted"

const char *gp_restart_need_name(enum gp_restart_need need)
{
	static const char *const names[] = { "no", "restart", "restart", "reboot-first" };

	return names[need];
}

/* The injected file whose place in the container mountpoint is ("/usr/local/nvidia/lib64/x"). */
static const struct gp_inject_file *file_at(const struct gp_inject *inj, const char *mountpoint)
{
	size_t n = strlen(GP_INJECT_DIR "/");

	if (strncmp(mountpoint, GP_INJECT_DIR "/", n) != 0)
		return NULL;
	for (size_t i = 0; i < inj->n; i++) {
		const char *dir = gp_inject_dir(inj->v[i].kind);
		size_t d = strlen(dir);

		if (strncmp(mountpoint + n, dir, d) == 0 && mountpoint[n + d] == '/' &&
		    strcmp(mountpoint + n + d + 1, inj->v[i].name) == 0)
			return &inj->v[i];
	}
	return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A mount table's line: its root and mount point (fields 4 and 5), or false. */
static bool root_and_point(const char *at, size_t n, char *copy, size_t size, char **root,
			   char **point)
{
	char *words[5];

	if (n >= size)
		return false; /* a mount point longer than a line of ours is no bind of ours */
	memcpy(copy, at, n);
	copy[n] = '\0';
	if (gp_split_words(copy, words, 5) < 5)
		return false;
	*root = words[3];
	*point = words[4];
	return true;
}

size_t gp_restart_count_replaced(const char *mountinfo, const struct gp_inject *inj, size_t *bound,
				 char *example, size_t size)
{
	/* The last mount of each file is what the container sees there. */
	char *seen = calloc(inj->n ? inj->n : 1, 1), line[1024];
	const char *pos = mountinfo, *end = mountinfo + strlen(mountinfo), *at;
	size_t replaced = 0, n;

	*bound = 0;
	if (size)
		example[0] = '\0';
	if (!seen)
		return 0;
	while (gp_line_next(&pos, end, &at, &n)) {
		const struct gp_inject_file *f;
		char *root, *point;

		if (root_and_point(at, n, line, sizeof(line), &root, &point) &&
		    (f = file_at(inj, point)))
			seen[f - inj->v] = ends_with(root, DELETED) ? 2 : 1;
	}
	for (size_t i = 0; i < inj->n; i++) {
		*bound += seen[i] != 0;
		if (seen[i] != 2)
			continue;
		if (!replaced++ && size)
			snprintf(example, size, "%s", inj->v[i].name);
	}
	free(seen);
	return replaced;
}

/* Its binds of files since removed on the host, from its init's mount table. */
static void count_replaced(int pid, const struct gp_inject *inj, struct gp_restart *r)
{
	_cleanup_free_ char *buf = NULL;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	if (gp_read_file(path, MOUNTINFO_MAX, &buf, NULL) < 0)
		return;
	r->replaced =
	    gp_restart_count_replaced(buf, inj, &r->bound, r->example, sizeof(r->example));
}

/* A start now gets every capability of caps from the host's files at the module's version. */
static bool start_now_works(const struct gp_ctx *ctx, const struct gp_host *host, unsigned int caps)
{
	_cleanup_free_ struct gp_inject *next = malloc(sizeof(*next));
	struct gp_log_capture quiet;
	int s;

	if (!next)
		return true; /* not known: nothing is refused for it */
	gp_log_capture_start(&quiet);
	s = gp_inject_select(ctx, host->version, caps, next);
	gp_log_capture_stop(&quiet);
	return s == 0 && gp_inject_lacking(next, caps) == 0;
}

/* The version of the host's libcuda.so.1 now, whatever the module's is. */
static void userspace_version(const struct gp_ctx *ctx, const struct gp_host *host,
			      struct gp_restart *r)
{
	_cleanup_free_ struct gp_userspace *u = malloc(sizeof(*u));
	struct gp_log_capture quiet;

	if (!u)
		return;
	gp_log_capture_start(&quiet);
	if (gp_userspace_discover(ctx->root, host->version, u) < 0)
		u->n = 0;
	gp_log_capture_stop(&quiet);
	for (size_t i = 0; i < u->n; i++)
		if (strcmp(u->v[i].soname, "libcuda.so.1") == 0) {
			snprintf(r->userspace, sizeof(r->userspace), "%s", u->v[i].version);
			return;
		}
}

void gp_restart_judge(const struct gp_ctx *ctx, const struct gp_host *host, const char *name,
		      const struct gp_ini *conf, struct gp_restart *r)
{
	_cleanup_free_ struct gp_inject *inj = malloc(sizeof(*inj));
	_cleanup_free_ char *record = gp_inject_path(ctx->root, name);
	int pid;

	memset(r, 0, sizeof(*r));
	if (!inj || !record || !host->driver_loaded || gp_inject_read(record, inj) < 0 ||
	    (pid = gp_lxc_init_pid(ctx->lxcpath, name)) <= 0)
		return;
	snprintf(r->injected, sizeof(r->injected), "%s", inj->version);
	count_replaced(pid, inj, r);
	if (strcmp(inj->version, host->version) != 0)
		r->need = GP_RESTART_VERSION;
	else if (r->replaced)
		r->need = GP_RESTART_REPLACED;
	else
		return;
	r->start_refused =
	    conf->inject == GP_INJECT_YES && !start_now_works(ctx, host, conf->capabilities);
	if (!r->start_refused)
		return;
	userspace_version(ctx, host, r);
	if (r->userspace[0] && strcmp(r->userspace, host->version) != 0)
		r->need = GP_RESTART_REBOOT_FIRST; /* else check's own findings say why */
}

void gp_restart_host_read(const struct gp_ctx *ctx, struct gp_restart_host *h)
{
	struct gp_log_capture quiet;

	gp_log_capture_start(&quiet);
	h->read = gp_host_read(ctx->root, 0, &h->host) == 0;
	if (h->read && gp_hostconf_load(ctx, &h->defaults) < 0) {
		gp_host_free(&h->host);
		h->read = false;
	}
	gp_log_capture_stop(&quiet);
}

void gp_restart_host_free(struct gp_restart_host *h)
{
	if (h->read)
		gp_host_free(&h->host);
	h->read = false;
}

void gp_restart_judge_container(const struct gp_ctx *ctx, const struct gp_restart_host *h,
				const char *name, struct gp_restart *r)
{
	struct gp_ini conf;
	struct gp_log_capture quiet;
	int loaded;

	memset(r, 0, sizeof(*r));
	gp_log_capture_start(&quiet);
	loaded = gp_ini_load(ctx, name, &conf);
	gp_log_capture_stop(&quiet);
	if (!h->read || loaded < 0)
		return;
	gp_ini_merge_host(&conf, &h->defaults);
	gp_restart_judge(ctx, &h->host, name, &conf, r);
}
