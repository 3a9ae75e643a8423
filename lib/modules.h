/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Implemented in lib/modules.c; gp_kmod_* in lib/kmod.c; gp_module_insert/remove in lib/modload.c.
 */
#ifndef GP_MODULES_H
#define GP_MODULES_H

#include <stdbool.h>
#include <stddef.h>

#include "host.h"

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

/*
 * libkmod context for root: the real one for NULL or "/", else one over
 * <root>/lib/modules/<release> and <root>/{etc,run,lib}/modprobe.d. NULL on failure.
 */
struct kmod_ctx *gp_kmod_new(const char *root, const char *release);
void gp_kmod_free(struct kmod_ctx *ctx);

/* The file libkmod would load for name (a module name or alias). 0 or -ENOENT. */
int gp_kmod_lookup_path(struct kmod_ctx *ctx, const char *name, char *path, size_t size);

/*
 * Reads the state of nvidia, nvidia_uvm and nvidia_modeset: through libkmod on the
 * real host; under a root from <root>/proc/modules and <root>/sys/module, which libkmod
 * cannot be pointed at. The modprobe.d view comes from libkmod in both cases.
 */
int gp_modules_read(const char *root, struct kmod_ctx *ctx, struct gp_modules *m);

/* The same from <root>/proc/modules and <root>/sys/module alone, without libkmod. */
int gp_modules_read_tree(const char *root, struct gp_modules *m);
void gp_modules_init(struct gp_modules *m);
void gp_modules_read_params(const char *root, struct gp_modules *m);

/* Parses one module's line out of a /proc/modules buffer; mod->loaded false if absent. */
int gp_parse_proc_modules(const char *buf, const char *name, struct gp_module *mod);

/* The "uvm_disable_hmm=..." value in an options string: GP_YES, GP_NO or GP_UNKNOWN. */
enum gp_tristate gp_options_disable_hmm(const char *options);

/*
 * The seam around module insertion and removal (tests link with --wrap): insert
 * nvidia/nvidia_uvm with extra options through libkmod's probe-insert, remove one.
 * Return 0 or -errno as libkmod gives it.
 */
int gp_module_insert(struct kmod_ctx *ctx, const char *name, const char *options);
int gp_module_remove(struct kmod_ctx *ctx, const char *name);

#endif
