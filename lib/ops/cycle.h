/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/ops/cycle.c. */
#ifndef GP_CYCLE_H
#define GP_CYCLE_H

struct gp_ctx;

/*
 * Stops the running container name and starts it again, so that its start injects the
 * host's driver as it is now: on Proxmox VE through pct reboot (its own start, with its
 * locks), else lxc-stop (a clean shutdown of at most timeout_s seconds, then a kill) and
 * lxc-start, which runs gpu-hook; each a child of the runner, under a deadline. 0 once it
 * runs again; -errno, said.
 */
int gp_cycle_container(const struct gp_ctx *ctx, const char *name, unsigned int timeout_s);

#endif
