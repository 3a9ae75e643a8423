/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/config/cfglines.c. */
#ifndef GP_CFGLINES_H
#define GP_CFGLINES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * A container's config as its lines, each with the file and line it came from: a plain
 * LXC config with its includes followed, or a Proxmox VE config's current section and
 * its pending changes (snapshots are other configs and are not read).
 */
#define GP_CFGLINES_MAX 1024
#define GP_CFGLINES_FILES 16
#define GP_CFGLINES_COMMENTED 64

struct gp_cfgline {
	char key[96];
	char value[512];
	unsigned int file; /* in gp_cfglines.files; 0 is the config itself */
	unsigned int line;
	bool pending;  /* Proxmox: in [pve:pending], applied at the next start or write */
	bool too_long; /* the value did not fit: it is shown cut and never edited */
};

struct gp_cfglines {
	char files[GP_CFGLINES_FILES][PATH_MAX];
	size_t nfiles;
	struct gp_cfgline v[GP_CFGLINES_MAX];
	size_t n;
	bool pve;
	size_t left_out; /* lines past GP_CFGLINES_MAX, or in files past GP_CFGLINES_FILES */
	/*
	 * Proxmox: "#key: value" lines of the current section, config lines commented out,
	 * which Proxmox keeps as the description (the first GP_CFGLINES_COMMENTED of them).
	 */
	struct gp_cfgline commented[GP_CFGLINES_COMMENTED];
	size_t ncommented;
};

/*
 * Reads the config at path (pve: as Proxmox VE's, else LXC's) into a new *out (free it).
 * 0; -ENOENT when there is no such file; another -errno said with the path.
 */
int gp_cfglines_read(const char *path, bool pve, struct gp_cfglines **out);

/* The file a line came from. */
const char *gp_cfgline_file(const struct gp_cfglines *c, const struct gp_cfgline *l);

/* The line as the config's own syntax writes it: "key = value" or "key: value". */
void gp_cfgline_text(const struct gp_cfglines *c, const struct gp_cfgline *l, char *out,
		     size_t size);

/* True when the line's key and value are those of text (either syntax, blanks aside). */
bool gp_cfgline_is(const struct gp_cfgline *l, const char *text);

/*
 * The host path a line gives the container: an lxc.mount.entry's source, or a Proxmox
 * devN's path ("[path=]/dev/X[,mode=..]"). False for any other line.
 */
bool gp_cfg_source(const struct gp_cfgline *l, char *out, size_t size);

/* An lxc.mount.entry's options (its fourth field) hold word ("bind", "optional"). */
bool gp_cfg_mount_option(const char *options, const char *word);

/*
 * A Proxmox devN's option name ("mode", "uid", "gid") into value (mode read in octal, the
 * others in decimal): 1 where given, 0 where the line is no devN or does not give it, -1
 * where it is given but is no such number ("mode=abc", "mode=", "mode=77777"), or the line
 * was cut.
 */
int gp_cfg_devn_option(const struct gp_cfgline *l, const char *name, unsigned int *value);

/*
 * An lxc.mount.entry's target as a path under the rootfs, as LXC reads it: no leading
 * "/" or "./", no doubled "/" ("/dev//nvidia0" is "dev/nvidia0"). Into out (size bytes).
 */
void gp_cfg_mount_target(const char *target, char *out, size_t size);

/* "file:line: key = value" (" (pending)" after the line of a pending change): where l is. */
void gp_cfgline_where(const struct gp_cfglines *c, const struct gp_cfgline *l, char *out,
		      size_t size);

#endif
