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
 * One item of a list value in the current section ("features: keyctl=1,nesting=1"), to
 * set or take out with the line's other items kept as they are, byte for byte.
 */
struct gp_pveconf_item {
	const char *key;     /* the line's: "features" */
	const char *name;    /* the item's: "nesting" */
	const char *value;   /* set it to this (appended when absent), or NULL: take it out */
	const char *only_if; /* change it only while its value is this; NULL: whatever it is */
};

/*
 * The value of item name of the current section's key line, into out: 0; -ENOENT when
 * there is no such line or item; -GP_EBADCONF when a part of that line is not
 * "name=value" (Proxmox refuses it too), *line then the line's number in the file.
 */
int gp_pveconf_item_get(const struct gp_pveconf *c, const char *key, const char *name, char *out,
			size_t size, unsigned int *line);

/*
 * Returns the text with it applied: in place on its line, a new "key: name=value" line
 * after the section's last when there is none, the line gone when its last item goes.
 * *changed says whether it differs. Malloc'd; NULL with errno GP_EBADCONF for a line
 * with a part that is not "name=value" (*line its number), ENOMEM.
 */
char *gp_pveconf_item_edit(const struct gp_pveconf *c, const struct gp_pveconf_item *it,
			   bool *changed, unsigned int *line);

/*
 * Applies e, then item (may be NULL), to the config of container id at path, refusing it
 * (-EBUSY) when it holds a "lock:" in the same read: atomic, old file kept as
 * .gpu-provision.bak. 1, 0, -errno.
 */
struct gp_line_edit;
int gp_pveconf_edit_file(const char *path, const char *id, const struct gp_line_edit *e,
			 const struct gp_pveconf_item *item);

/* "devN" numbers already used in the current section, as a bit set of 0..63. */
unsigned long long gp_pveconf_used_devs(const struct gp_pveconf *c);

/* The most a Proxmox VE container config holds. */
#define GP_PVE_CONFIG_MAX (1u << 20)

#endif
