/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/host/modules.c. */
#ifndef GP_MODULES_H
#define GP_MODULES_H

#include <stdbool.h>
#include <stddef.h>

#include "host/host.h"

struct kmod_ctx;

/* One kernel module as the running kernel (or a captured tree) sees it. */
struct gp_module {
	char name[32];
	bool loaded;
	int refcnt;		/* -1: unknown, or the kernel cannot unload ('-') */
	char holders[256];	/* modules that hold it, comma-separated */
	char conf_options[256]; /* what modprobe.d sets for it (libkmod's config view) */
};

struct gp_modules {
	struct gp_module nvidia, uvm, modeset;
	enum gp_tristate uvm_disable_hmm; /* the loaded module's parameter, Y/N */
	int uvm_ats_mode;		  /* -1 unknown */
	bool live;			  /* read from the running kernel through libkmod */
};

/* The same from <root>/proc/modules and <root>/sys/module alone, without libkmod. */
int gp_modules_read_tree(const char *root, struct gp_modules *m);
void gp_modules_init(struct gp_modules *m);
void gp_modules_read_params(const char *root, struct gp_modules *m);

/* Parses one module's line out of a /proc/modules buffer; mod->loaded false if absent. */
int gp_parse_proc_modules(const char *buf, const char *name, struct gp_module *mod);

/* The "uvm_disable_hmm=..." value in an options string: GP_YES, GP_NO or GP_UNKNOWN. */
enum gp_tristate gp_options_disable_hmm(const char *options);

#endif
