/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/driver/persist.c. */
#ifndef GP_PERSIST_H
#define GP_PERSIST_H

#include <stdbool.h>

#include "host/host.h"

#define GP_MODPROBE_CONF "/etc/modprobe.d/gpu-provision.conf"

/*
 * Makes <root>/etc/modprobe.d/gpu-provision.conf say "options nvidia_uvm
 * uvm_disable_hmm=1", atomically, touching no other file. Returns 1 when written (or
 * with dry_run, when it would be), 0 when it already says so, -errno on failure.
 */
int gp_persist_disable_hmm(const char *root, bool dry_run);

/*
 * Whether the initramfs loads NVIDIA modules (initramfs-tools' modules list or a
 * dracut drivers line names one), so that it must be rebuilt for the option to apply
 * at boot. GP_UNKNOWN where neither tool is configured.
 */
enum gp_tristate gp_initramfs_has_nvidia(const char *root);

#endif
