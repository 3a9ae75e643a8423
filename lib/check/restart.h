/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/check/restart.c. */
#ifndef GP_RESTART_H
#define GP_RESTART_H

#include <stdbool.h>
#include <stddef.h>

#include "base/ctx.h"
#include "config/ini.h"
#include "host/host.h"
#include "start/inject.h"

/*
 * The day after a driver update: whether a running container's injected driver is still
 * the host's. Its start bound each file (lib/start/injectmount.c); a package that replaces
 * a file leaves the container's bind on the removed one, and a module loaded since may be
 * of another version than the libraries it runs.
 */
enum gp_restart_need {
	GP_RESTART_NONE,	 /* the host's still; or nothing injected, or not running */
	GP_RESTART_REPLACED,	 /* files replaced at the module's version: a restart takes them */
	GP_RESTART_VERSION,	 /* libraries of another version than the module's: CUDA fails */
	GP_RESTART_REBOOT_FIRST, /* the host's files are not at the module's version: a start
				    now is refused; the host's reboot (or module) first */
};

struct gp_restart {
	enum gp_restart_need need;
	char injected[32];  /* the version its start injected */
	size_t replaced;    /* its binds of files since removed on the host */
	size_t bound;	    /* its binds of the injected files, all */
	char example[128];  /* the first replaced file's name there */
	char userspace[32]; /* the host's libcuda's version now, where a start is refused */
	bool start_refused; /* a start now is refused: REBOOT_FIRST, or what check names (a
			       file untrusted, a capability lacking) */
};

/*
 * Judges the container name, where liblxc says it runs, against the host now: its start's
 * injection record, its init's mount table (/proc/PID/mountinfo: the kernel's, read
 * bounded; one it cannot read counts no file replaced), and whether a start now, as conf
 * asks, would get its capabilities at the module's version. Never fails: a container
 * without a record, or not running, is GP_RESTART_NONE.
 */
void gp_restart_judge(const struct gp_ctx *ctx, const struct gp_host *host, const char *name,
		      const struct gp_ini *conf, struct gp_restart *r);

/* What each container of a command is judged against: the host's driver and its defaults. */
struct gp_restart_host {
	struct gp_host host;
	struct gp_ini defaults; /* gpu-provision.conf */
	bool read;		/* false: the host could not be read, nothing is judged */
};
void gp_restart_host_read(const struct gp_ctx *ctx, struct gp_restart_host *h);
void gp_restart_host_free(struct gp_restart_host *h);

/* gp_restart_judge of name with its ini merged with the host's defaults (list, sync). */
void gp_restart_judge_container(const struct gp_ctx *ctx, const struct gp_restart_host *h,
				const char *name, struct gp_restart *r);

/*
 * In mountinfo (a mount table's text), the binds at GP_INJECT_DIR of inj's files: their
 * count into bound, and how many of them are of a file since removed (the kernel's
 * "//deleted"); the first such file's name into example.
 */
size_t gp_restart_count_replaced(const char *mountinfo, const struct gp_inject *inj, size_t *bound,
				 char *example, size_t size);

/* "no", "restart", "restart" (CUDA fails until then), "reboot-first". */
const char *gp_restart_need_name(enum gp_restart_need need);

#endif
