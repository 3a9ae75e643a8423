/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef GP_CTCONF_H
#define GP_CTCONF_H

#include <stdbool.h>
#include <sys/stat.h>

/* The per-container ini, <confdir>/<name>.ini. */

enum gp_hmm_policy { GP_HMM_AUTO, GP_HMM_YES, GP_HMM_NO };

#define GP_CTCONF_MAX_LINE 200
#define GP_CTCONF_MAX_SIZE (64 * 1024)

struct gp_ctconf {
	char path[512];
	char devices[1024];
	unsigned int devices_line;
	char caps[1024];
	unsigned int caps_line;
	enum gp_hmm_policy disable_hmm;
	unsigned int probe_timeout;
};

/*
 * Parses an ini held in buf; path is used in messages only. Every error is reported
 * once as "path:line: what is wrong" and gives -EINVAL.
 */
int gp_ctconf_parse(const char *buf, const char *path, struct gp_ctconf *conf);

/* Refuses a file not owned by root or writable by group or others: -EPERM. */
int gp_ctconf_check_owner(const char *path, const struct stat *st);

/* Opens, checks and parses <confdir>/<name>.ini. -ENOENT when it does not exist. */
int gp_ctconf_load(const char *confdir, const char *name, struct gp_ctconf *conf);

/* Renders conf as ini text into a malloc'd string. */
char *gp_ctconf_format(const struct gp_ctconf *conf);

/* Writes <confdir>/<name>.ini atomically, mode 0644. */
int gp_ctconf_save(const char *confdir, const char *name, const struct gp_ctconf *conf);

const char *gp_hmm_policy_name(enum gp_hmm_policy p);

#endif
