/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/check/recipe.c. */
#ifndef GP_RECIPE_H
#define GP_RECIPE_H

#include <stdbool.h>
#include <stddef.h>

#include "config/cfglines.h"
#include "host/host.h"
#include "plan/cgroup.h"

/*
 * The lines of a container's config that give it NVIDIA GPUs by hand, as recipes from
 * wikis, forums and helper scripts write them, told apart from gpu-provision's own.
 */
enum gp_recipe_kind {
	GP_RECIPE_BIND,	    /* lxc.mount.entry of a /dev/nvidia* node gpu-hook can give */
	GP_RECIPE_DEVN,	    /* Proxmox devN of such a node */
	GP_RECIPE_RULE,	    /* a device rule on an NVIDIA major, today's or one no device has */
	GP_RECIPE_HOOK,	    /* another GPU tool's hook: LXC's hooks/nvidia, nvidia-container-cli */
	GP_RECIPE_ENV,	    /* an NVIDIA_* variable for such a hook */
	GP_RECIPE_OPEN_ALL, /* "a" or "c *:*" with r or w: every device, NVIDIA's among them */
	GP_RECIPE_UNSURE,   /* names NVIDIA, or may have been an NVIDIA major once */
};

struct gp_recipe_line {
	const struct gp_cfgline *cfg;
	enum gp_recipe_kind kind;
	char node[64];		/* BIND, DEVN: under /dev (nvidia0, nvidia-caps) */
	char source[320];	/* BIND, DEVN: the host's path given (under root for /dev) */
	bool optional;		/* BIND: "optional": a missing node is skipped silently */
	bool in_the_way;	/* a bind onto a node gpu-hook binds, whatever its source */
	bool copy;		/* BIND, UNSURE: its source is a path outside /dev */
	int gpu_minor;		/* BIND, DEVN of /dev/nvidiaN: N; else -1 */
	bool node_exists;	/* BIND, DEVN: source is a node (or directory) today */
	struct gp_cg_rule rule; /* RULE, OPEN_ALL */
	bool stale;		/* RULE: no device has its major today */
	bool removable;		/* adopt takes it out */
	const char *why;	/* why it is left alone, when not removable */
};

#define GP_RECIPE_MAX 256
struct gp_recipe {
	struct gp_cfglines *cfg;
	struct gp_recipe_line v[GP_RECIPE_MAX];
	size_t n;
	bool unprivileged;  /* Proxmox "unprivileged: 1", or an lxc.idmap */
	bool gpu_hook;	    /* gpu-hook's own lines are there */
	bool other_devices; /* it binds or gives other drivers' devices, of dynamic majors */
	size_t left_out;    /* NVIDIA lines past GP_RECIPE_MAX, config lines past the reader's */
	char devices[4096]; /* the host's /proc/devices, to name a major's owner */
};

/*
 * Reads the config at path (pve_config: one of Proxmox VE's) and sorts its NVIDIA lines; applied is
 * the text of <name>.applied (lines attach wrote, never a recipe's), or NULL. The host
 * (under root) says today's majors and nodes. 0; -ENOENT no such config; -errno said.
 */
int gp_recipe_read(const char *root, const struct gp_host *host, const char *path, bool pve_config,
		   const char *applied, struct gp_recipe *r);
void gp_recipe_free(struct gp_recipe *r);

/* A raw LXC line or a devN that names NVIDIA (a hostname or a tag that does is no matter). */
bool gp_recipe_mentions_nvidia(const struct gp_cfgline *c);

/* True for the kinds that give the container NVIDIA nodes (a start of gpu-hook clashes). */
bool gp_recipe_gives_nodes(const struct gp_recipe_line *l);

/* A line of today's config (not pending) that gives a node, or binds onto one gpu-hook binds. */
bool gp_recipe_gives_now(const struct gp_recipe_line *l);

/* A hook of today's config reads NVIDIA_* variables: hooks/nvidia, or one that names them. */
bool gp_recipe_env_read(const struct gp_cfglines *cfg);

/*
 * The GPUs the recipe gave, as a --gpus selection ("all" or nvidia-smi indices "0,2"),
 * from its node binds and devN, or NVIDIA_VISIBLE_DEVICES. 0; -ENOENT when it names none;
 * -GP_EBADCONF when it names one the host lacks (said, with the line).
 */
int gp_recipe_selection(const struct gp_recipe *r, const struct gp_host *host, char *out,
			size_t size);

/* The number node (nvidia0, nvidia-uvm, nvidia-caps/nvidia-cap1) has on the host today. */
bool gp_recipe_node_rdev(const struct gp_host *h, const char *node, unsigned int *major,
			 unsigned int *minor);

/* "file:line" of a recipe line (with " (pending)" for Proxmox's pending section). */
void gp_recipe_where(const struct gp_recipe *r, const struct gp_recipe_line *l, char *out,
		     size_t size);

#endif
