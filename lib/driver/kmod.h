/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/driver/kmod.c; gp_module_insert and gp_module_remove in lib/driver/modload.c.
 */
#ifndef GP_KMOD_H
#define GP_KMOD_H

#include <stddef.h>

#include "host/modules.h"

struct kmod_ctx;

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

/*
 * The seam around module insertion and removal (tests link with --wrap): insert
 * nvidia/nvidia_uvm with extra options through libkmod's probe-insert, remove one.
 * Return 0 or -errno as libkmod gives it.
 */
int gp_module_insert(struct kmod_ctx *ctx, const char *name, const char *options);
int gp_module_remove(struct kmod_ctx *ctx, const char *name);

#endif
