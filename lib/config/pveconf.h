/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/config/pveconf.c. */
#ifndef GP_PVECONF_H
#define GP_PVECONF_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A Proxmox VE container config (/etc/pve/lxc/<id>.conf): description comments,
 * "key: value" lines, then snapshot sections "[name]" and "[pve:pending]". The text is
 * kept as it is; edits touch only the current (first) section, so writing back an
 * unchanged file, or every other section, is byte-identical.
 */
struct gp_pveconf {
	const char *text;
	size_t len;
	size_t current_end;    /* offset of the first "[section]" line, or len */
	unsigned int bad_line; /* set by parse on -GP_EBADCONF */
};

/*
 * Splits one line of n bytes, "key: value" or "lxc.key = value" (both read by Proxmox),
 * into trimmed copies: false for anything else or what does not fit.
 */
bool gp_pveconf_split(const char *line, size_t n, char *key, size_t ksize, char *value,
		      size_t vsize);

/* Checks every line (blank, "#..." comment, "[name]", "key: value"); -GP_EBADCONF names the line.
 */
int gp_pveconf_parse(const char *buf, size_t len, struct gp_pveconf *c);

/* The value of key in the current section (copied into out), or -ENOENT. */
int gp_pveconf_get(const struct gp_pveconf *c, const char *key, char *out, size_t size);

/*
 * Returns the text with the current section's lines equal (as "key: value") to one of
 * remove[] taken out and add[] inserted after its last line; *changed says whether it
 * differs. Malloc'd; NULL on ENOMEM.
 */
char *gp_pveconf_edit(const struct gp_pveconf *c, const char *const *remove, size_t nremove,
		      const char *const *add, size_t nadd, bool *changed);

/* 0 when the current section has no "lock:" line; else -EBUSY, said naming container id. */
int gp_pveconf_check_unlocked(const struct gp_pveconf *c, const char *id);

/*
 * Applies e to the config of container id at path, refusing it (-EBUSY) when it holds a
 * "lock:" in the same read: atomic, old file kept as .gpu-provision.bak. 1, 0, -errno.
 */
struct gp_line_edit;
int gp_pveconf_edit_file(const char *path, const char *id, const struct gp_line_edit *e);

/* "devN" numbers already used in the current section, as a bit set of 0..63. */
unsigned long long gp_pveconf_used_devs(const struct gp_pveconf *c);

/* The most a Proxmox VE container config holds. */
#define GP_PVE_CONFIG_MAX (1u << 20)

#endif
