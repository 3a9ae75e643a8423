/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* New containers with GPUs: plain LXC through liblxc, Proxmox VE through pct. */
#include <fcntl.h>
#include <lxc/lxccontainer.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "base/child.h"
#include "base/ctx.h"
#include "base/escape.h"
#include "base/paths.h"
#include "base/util.h"
#include "driver/rootdev.h"
#include "driver/runtime.h"
#include "ops/create.h"
#include "ops/target.h"

/* A template may download and unpack for a long time; this bounds one that hangs. */
#define CREATE_TIMEOUT_MS (60 * 60 * 1000)
#define CREATE_OUTPUT_MAX (64 * 1024)
#define FAILED_OUTPUT_SHOWN 4096

/* A template or pct may download through the admin's proxy. */
static const char *const proxy_env[] = { "http_proxy",	"https_proxy", "no_proxy", "HTTP_PROXY",
					 "HTTPS_PROXY", "NO_PROXY",    NULL };
static const struct gp_child_opts create_child = { .timeout_ms = CREATE_TIMEOUT_MS,
						   .output_max = CREATE_OUTPUT_MAX,
						   .merge_stderr = true,
						   .keep_env = proxy_env };

/* The end of what a failed child printed, escaped: a template may run container code. */
static void show_failure(const struct gp_child *c, const char *what)
{
	size_t from = c->out_len > FAILED_OUTPUT_SHOWN ? c->out_len - FAILED_OUTPUT_SHOWN : 0;

	if (c->timed_out)
		gp_error("%s did not finish within %d s", what, CREATE_TIMEOUT_MS / 1000);
	if (c->out_len == 0)
		return;
	fprintf(stderr, "%s said%s:\n", what, from ? " (the end of it)" : "");
	gp_escape_fputs(c->out + from, stderr);
	if (c->out[c->out_len - 1] != '\n')
		fputc('\n', stderr);
}

/* Waits for the child; on a terminal a ticking line, otherwise one line at the start and end. */
static int wait_with_progress(struct gp_child *c, const char *what)
{
	static const char spin[] = "|/-\\";
	bool tty = isatty(STDERR_FILENO);
	int tick = 0, r;

	if (!tty)
		fprintf(stderr, "%s ...\n", what);
	while (!gp_child_step(c, 200)) {
		if (tty)
			fprintf(stderr, "\r%s %c %d s", what, spin[tick % 4], tick / 5);
		tick++;
	}
	r = c->reaped && c->exit_code == 0 ? 0 : -EIO;
	fprintf(stderr, "%s%s %s in %.1f s\n", tty ? "\r" : "", what, r == 0 ? "done" : "FAILED",
		c->elapsed_ms / 1000);
	if (r < 0)
		show_failure(c, what);
	gp_child_free(c);
	return r;
}

/* Runs argv (no shell; found on PATH) and waits for it with progress. */
static int run_argv(char *const argv[], const char *what)
{
	struct gp_child c;
	int r = gp_child_start(&c, &create_child, gp_child_exec, (void *)argv);

	if (r < 0)
		return gp_error_errno(r, "Failed to run %s", argv[0]);
	return wait_with_progress(&c, what);
}

/* root's first subordinate range from <root>/etc/sub{u,g}id, or 100000:65536. */
static void subid_range(const char *root, const char *file, unsigned long *start,
			unsigned long *count)
{
	_cleanup_free_ char *buf = NULL;

	*start = 100000;
	*count = 65536;
	if (gp_read_file_at(root, file, GP_HOST_FILE_MAX, &buf, NULL) < 0)
		return;
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (sscanf(l, "root:%lu:%lu", start, count) == 2)
			return;
}

static bool set_idmap(const char *root, struct lxc_container *c)
{
	unsigned long us, uc, gs, gc;
	char u[64], g[64];

	subid_range(root, "/etc/subuid", &us, &uc);
	subid_range(root, "/etc/subgid", &gs, &gc);
	snprintf(u, sizeof(u), "u 0 %lu %lu", us, uc);
	snprintf(g, sizeof(g), "g 0 %lu %lu", gs, gc);
	printf("unprivileged: lxc.idmap = %s, lxc.idmap = %s\n", u, g);
	return c->set_config_item(c, "lxc.idmap", u) && c->set_config_item(c, "lxc.idmap", g);
}

struct template_job {
	struct lxc_container *c;
	const struct gp_create_opts *o;
};

static int template_child(void *arg)
{
	struct template_job *j = arg;

	return j->c->create(j->c, j->o->template_name, NULL, NULL, LXC_CREATE_QUIET, j->o->extra)
		   ? 0
		   : 1;
}

static int run_template(struct lxc_container *c, const struct gp_create_opts *o)
{
	struct template_job job = { c, o };
	struct gp_child ch;
	char what[128];
	int r;

	snprintf(what, sizeof(what), "creating %s from template %s", o->attach.name,
		 o->template_name);
	r = gp_child_start(&ch, &create_child, template_child, &job);
	return r < 0 ? r : wait_with_progress(&ch, what);
}

/* Formats the device or image (after libblkid found nothing on it) and mounts it as the rootfs. */
static int prepare_rootdev(const struct gp_create_opts *o, const char *rootfs)
{
	char what[128];
	struct stat st;
	char *mkfs[] = { (char *)"mkfs.ext4", (char *)"-q", (char *)"-F", (char *)o->rootfs_dev,
			 NULL };
	char *mnt[] = { (char *)"mount",       (char *)"-o",   (char *)"loop",
			(char *)o->rootfs_dev, (char *)rootfs, NULL };
	int r = gp_rootdev_check(o->rootfs_dev, o->force, what, sizeof(what));

	/* A filesystem there (without --force), or a probe that cannot tell: the admin's call. */
	if (r == -EUCLEAN || r == -EEXIST)
		return -GP_EBADCONF;
	if (r < 0)
		return r;
	if (stat(o->rootfs_dev, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		mnt[1] = (char *)"-t";
		mnt[2] = (char *)"ext4";
	}
	r = run_argv(mkfs, "formatting the rootfs (ext4)");
	if (r == 0 &&
	    (gp_mkdir_parents(rootfs) < 0 || (mkdir(rootfs, 0755) < 0 && errno != EEXIST)))
		r = -errno;
	return r == 0 ? run_argv(mnt, "mounting it") : r;
}

static void destroy_half_made(struct lxc_container *c, const struct gp_create_opts *o,
			      const char *rootfs)
{
	char dir[PATH_MAX + 8];

	umount2(rootfs, MNT_DETACH);
	if (!c->is_defined(c)) {
		rmdir(rootfs);
		snprintf(dir, sizeof(dir), "%s/%s", c->config_path, o->attach.name);
		rmdir(dir);
		return;
	}
	/* Never let LXC's destroy take the admin's device or image with it. */
	if (o->rootfs_dev) {
		snprintf(dir, sizeof(dir), "dir:%s", rootfs);
		c->set_config_item(c, "lxc.rootfs.path", dir);
		c->save_config(c, NULL);
	}
	if (!c->destroy(c))
		gp_warn("Failed to remove the half-made container \"%s\"", o->attach.name);
	else
		gp_info("removed the half-made container \"%s\"", o->attach.name);
}

static int finish_rootdev(struct lxc_container *c, const struct gp_create_opts *o,
			  const char *rootfs)
{
	char path[PATH_MAX + 8];
	struct stat st;

	int fd = open(rootfs, O_RDONLY | O_DIRECTORY | O_CLOEXEC), synced;

	/*
	 * The template's mount namespace can keep the filesystem mounted through our loop
	 * device a moment after our umount, while LXC's start mounts the image through
	 * another: what is not written to the image by then is missing there (a start once
	 * found no /sbin/init). Write it all out first, then take every layer off.
	 */
	synced = fd >= 0 ? syncfs(fd) : -1;
	gp_closep(&fd);
	if (synced < 0 || umount2(rootfs, 0) < 0)
		return -errno;
	while (umount2(rootfs, 0) == 0)
		;
	snprintf(
	    path, sizeof(path), "%s%s",
	    stat(o->rootfs_dev, &st) == 0 && S_ISBLK(st.st_mode) ? "" : "loop:", o->rootfs_dev);
	return c->set_config_item(c, "lxc.rootfs.path", path) && c->save_config(c, NULL) ? 0 : -EIO;
}

static int create_lxc(const struct gp_create_opts *o)
{
	struct lxc_container *c = lxc_container_new(o->attach.name, o->attach.ctx->lxcpath);
	_cleanup_free_ char *rootfs = NULL;
	bool started = false;
	int r = 0;

	if (!c)
		return -ENOMEM;
	if (c->is_defined(c)) {
		gp_error("container \"%s\" exists already: attach GPUs to it with gpu-provision "
			 "attach",
			 o->attach.name);
		lxc_container_put(c);
		return -GP_EBADCONF;
	}
	if (asprintf(&rootfs, "%s/%s/rootfs", c->config_path, o->attach.name) < 0)
		r = -ENOMEM;
	if (r == 0 && o->config_file && !c->load_config(c, o->config_file)) {
		gp_error("Failed to load \"%s\"", o->config_file);
		r = -GP_EBADCONF;
	}
	if (r == 0 && o->unprivileged && !set_idmap(o->attach.ctx->root, c))
		r = -GP_EBADCONF;
	started = r == 0;
	if (r == 0 && o->rootfs_dev)
		r = prepare_rootdev(o, rootfs);
	if (r == 0)
		r = run_template(c, o);
	if (r == 0 && o->rootfs_dev)
		r = finish_rootdev(c, o, rootfs);
	if (r == 0 && o->attach.gpus)
		r = gp_attach(&o->attach, NULL);
	if (r < 0 && started)
		destroy_half_made(c, o, rootfs);
	lxc_container_put(c);
	return r;
}

static char **pct_argv(const struct gp_create_opts *o)
{
	size_t n = 0, i = 0;
	char **argv;

	while (o->extra && o->extra[n])
		n++;
	argv = calloc(n + 5, sizeof(char *));
	if (!argv)
		return NULL;
	argv[i++] = (char *)"pct";
	argv[i++] = (char *)"create";
	argv[i++] = (char *)o->attach.name;
	argv[i++] = (char *)o->ostemplate;
	for (size_t k = 0; k < n; k++)
		argv[i++] = o->extra[k];
	return argv;
}

static int create_pve(const struct gp_create_opts *o)
{
	_cleanup_free_ char **argv = pct_argv(o);
	char *destroy[] = { (char *)"pct", (char *)"destroy", (char *)o->attach.name, NULL };
	int r;

	if (!argv)
		return -ENOMEM;
	if (o->attach.dry_run) {
		struct gp_attach_opts a = o->attach;

		printf("would run:");
		for (char **p = argv; *p; p++)
			printf(" %s", *p);
		printf("\n");
		a.assume_new = true;
		return a.gpus ? gp_attach(&a, NULL) : 0;
	}
	r = run_argv(argv, "pct create");
	if (r < 0) {
		gp_error("pct create %s failed: see its messages above", o->attach.name);
		return r;
	}
	if (!o->attach.gpus)
		return 0;
	r = gp_attach(&o->attach, NULL);
	if (r < 0 && run_argv(destroy, "pct destroy (undoing the half-made container)") < 0)
		gp_warn("Failed to remove container %s: run pct destroy %s", o->attach.name,
			o->attach.name);
	return r;
}

int gp_create(const struct gp_create_opts *o)
{
	bool pve = o->attach.ctx->pve;

	if (pve && !o->ostemplate) {
		gp_error("on Proxmox VE give --ostemplate VOLID (as for pct create)");
		return -GP_EBADCONF;
	}
	if (!pve && !o->template_name) {
		gp_error("give --template NAME (an lxc-create template, e.g. busybox or download)");
		return -GP_EBADCONF;
	}
	if (pve && (o->rootfs_dev || o->unprivileged)) {
		gp_error("on Proxmox VE give storage and --unprivileged 1 to pct, after --");
		return -GP_EBADCONF;
	}
	if (!pve && o->attach.dry_run) {
		gp_error("--dry-run of create is for Proxmox VE; on plain LXC run attach --dry-run "
			 "after creating");
		return -GP_EBADCONF;
	}
	/* Before the container is made: one that could never start is not made. */
	if (gp_runtime_can_start(o->attach.rt) < 0)
		return -GP_EBADCONF;
	return pve ? create_pve(o) : create_lxc(o);
}
