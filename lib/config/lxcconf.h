/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/config/lxcconf.c. */
#ifndef GP_LXCCONF_H
#define GP_LXCCONF_H

#include <stdbool.h>
#include <stddef.h>

/* Text-level reading and editing of LXC config files ("key = value" lines). */

/* Splits one line into trimmed key and value in place; false for comments and blanks. */
bool gp_lxcconf_split(char *line, char **key, char **value);

typedef int (*gp_lxcconf_fn)(const char *key, const char *value, const char *file,
			     unsigned int line, void *user);

/*
 * Calls fn for every "key = value" of the file at path in order, following
 * lxc.include (files, and directories' *.conf in name order) up to a small depth.
 * A missing include is skipped, as LXC does. Returns 0, fn's first non-zero value,
 * or -errno for the top file.
 */
int gp_lxcconf_walk(const char *path, gp_lxcconf_fn fn, void *user);

/*
 * Returns buf without the lines equal (as "key = value") to one of remove[], and
 * add[] appended; *changed tells whether anything differs. Malloc'd, NULL on ENOMEM.
 */
char *gp_lxcconf_edit_text(const char *buf, const char *const *remove, size_t nremove,
			   const char *const *add, size_t nadd, bool *changed);

/*
 * Applies gp_lxcconf_edit_text to the file at path: the old file is kept as
 * "<path>.gpu-provision.bak" and the new one put in place atomically. Returns 1 when
 * the file changed, 0 when it already was as wanted, -errno on failure (the old file
 * is untouched then).
 */
int gp_lxcconf_edit(const char *path, const char *const *remove, size_t nremove,
		    const char *const *add, size_t nadd);

/* The most an LXC config file holds (each of its includes as much). */
#define GP_LXC_CONFIG_MAX (1u << 20)

#endif
