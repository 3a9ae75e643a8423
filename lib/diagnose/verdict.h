/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/diagnose/verdict.c. */
#ifndef GP_VERDICT_H
#define GP_VERDICT_H

/*
 * The last probe's verdict of a container, kept in <root>/run/gpu-provision: its status
 * ("ok", "failed" or "timeout") and, after --deep, each capability's worst status over
 * the GPUs ("compute=ok,nvml=ok,...,vulkan=absent"), else NULL or "" (no GPU judged).
 */
int gp_verdict_save(const char *root, const char *name, const char *status, const char *deep);

struct gp_verdict {
	char status[16];
	long when;
	char deep[256]; /* "" when the last probe was not --deep */
};

/* Reads it back, checked word by word: -ENOENT for none, -GP_EBADCONF for a bad one. */
int gp_verdict_load(const char *root, const char *name, struct gp_verdict *v);

#endif
