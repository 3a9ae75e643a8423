/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/config/ini.c. */
#ifndef GP_INI_H
#define GP_INI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

struct gp_ctx;

/* The per-container ini, <confdir>/<name>.ini. */

enum gp_hmm_policy { GP_HMM_AUTO, GP_HMM_YES, GP_HMM_NO };
/* What to do when nvidia_uvm runs with the wrong uvm_disable_hmm and cannot be reloaded. */
enum gp_conflict { GP_CONFLICT_REFUSE, GP_CONFLICT_WARN };

/* Whether the hook gives the container the host's driver user space ([driver] inject). */
enum gp_inject_choice { GP_INJECT_NO, GP_INJECT_YES };
/* Whether an injecting start also gives its nested runtimes a CDI spec ([driver] cdi). */
enum gp_cdi_choice { GP_CDI_NO, GP_CDI_YES };

/* Whether probe and check prove each capability, not only cuInit ([probe] deep). */
enum gp_deep_choice { GP_PROBE_DEEP_NO, GP_PROBE_DEEP_YES };

/* The per-container ini, or the host-wide defaults <confdir>/gpu-provision.conf. */
enum gp_conf_kind { GP_CONF_CONTAINER, GP_CONF_HOST };

/* inih reads a line into 200 bytes (INI_MAX_LINE), its newline and NUL included. */
#define GP_INI_MAX_LINE 198
#define GP_INI_MAX_SIZE (64 * 1024)

struct gp_ini {
	char path[512];
	char devices[1024];
	unsigned int devices_line;
	char caps[1024];
	unsigned int caps_line;
	char mode[8]; /* Proxmox: hook or devn; empty for the default */
	enum gp_hmm_policy disable_hmm;
	bool disable_hmm_set;
	enum gp_conflict on_conflict;
	bool on_conflict_set;
	unsigned int probe_timeout;
	bool probe_timeout_set;
	enum gp_deep_choice probe_deep;
	bool probe_deep_set;
	enum gp_inject_choice inject;
	bool inject_set;
	unsigned int capabilities; /* GP_CAP_BIT(enum gp_capability) of each named */
	bool capabilities_set;
	enum gp_cdi_choice cdi;
	bool cdi_set;
};

/*
 * Parses an ini held in buf; path is used in messages only. Every error is reported
 * once as "path:line: what is wrong" and gives -GP_EBADCONF.
 */
int gp_ini_parse(const char *buf, const char *path, struct gp_ini *conf);
int gp_ini_parse_as(const char *buf, const char *path, enum gp_conf_kind kind, struct gp_ini *conf);

/* One key the ini takes: ini.c has a row for each, and reads and writes by it. */
struct gp_ini_key {
	const char *section;
	const char *name;
	const char *def;     /* its value when left out, NULL for none (empty) */
	const char *example; /* a value it takes other than def, for tests */
	bool host;	     /* gpu-provision.conf may set it, for the inis that leave it out */
};

/* The i-th key, in the order the ini is written; NULL past the last. Static storage. */
const struct gp_ini_key *gp_ini_key(size_t i);

/*
 * Reads <confdir>/gpu-provision.conf, the host's defaults for the keys marked host in
 * gp_ini_key. A missing file gives the built-in defaults: 0.
 */
int gp_hostconf_load(const struct gp_ctx *ctx, struct gp_ini *conf);

/* Fills the keys the container's ini leaves out from the host's defaults. */
void gp_ini_merge_host(struct gp_ini *conf, const struct gp_ini *host);

/*
 * Refuses a file not owned by owner (gp_ctx's: root's on a host) or writable by group or
 * others: -GP_EBADCONF, said.
 */
int gp_ini_check_owner(const char *path, const struct stat *st, uid_t owner);

/*
 * A file of the container's or the host's (an ini, .applied) into *buf (malloc'd, NUL-ended)
 * when it passes gp_ini_check_owner (of owner) and has at most max bytes, through one descriptor
 * opened without following a link. 0; -ENOENT, said by no one; else said: -GP_EBADCONF for
 * the owner or mode, -EFBIG past max, another -errno.
 */
int gp_ini_read_owned(const char *path, uid_t owner, size_t max, char **buf);

/*
 * Opens, checks and parses the container's ini (gp_ini_path: in the cluster filesystem on
 * Proxmox VE, where one still in confdir from before is read when the cluster has none).
 * -ENOENT when there is none.
 */
int gp_ini_load(const struct gp_ctx *ctx, const char *name, struct gp_ini *conf);

/* Renders conf as ini text into a malloc'd string. */
char *gp_ini_format(const struct gp_ini *conf);

/*
 * Sets [section] name to value as if the ini said it: 0, -GP_EBADCONF (said, what naming
 * where the value came from, e.g. "--capabilities"), -ENOENT for no such key.
 */
int gp_ini_set(struct gp_ini *conf, const char *section, const char *name, const char *value,
	       const char *what);

/* The built-in defaults of every key (the table's), nothing set. */
void gp_ini_init(struct gp_ini *conf);

/* 0 when conf, written, reads back (a line too long would not); else -GP_EBADCONF, said. */
int gp_ini_check_readable(const struct gp_ini *conf);

/*
 * Says that writing a container's own file (path) failed with r, and returns r: in the
 * cluster filesystem without quorum, that it has none (gp_pve_write_refused).
 */
int gp_ini_write_failed(const char *path, int r);

/*
 * Writes the container's ini atomically (gp_ini_path, gp_container_file_mode) when it reads
 * back (above). On Proxmox VE one left in confdir from before stays: the caller removes it
 * once what depends on the new one is written too.
 */
int gp_ini_save(const struct gp_ctx *ctx, const char *name, const struct gp_ini *conf);

const char *gp_hmm_policy_name(enum gp_hmm_policy p);
const char *gp_conflict_name(enum gp_conflict c);

#endif
