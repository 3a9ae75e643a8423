/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/plan/vendors.c. */
#ifndef GP_VENDORS_H
#define GP_VENDORS_H

#include <stdbool.h>
#include <stddef.h>

#include "plan/vendor.h"

/*
 * The vendor of the GPUs a host view holds; static storage, never NULL. struct gp_host is
 * what the NVIDIA driver shows, so today that is gp_vendor_nvidia.
 */
const struct gp_vendor *gp_vendor_for_host(const struct gp_host *host);

/* The i-th vendor this build knows (node names are checked against all): NULL past the last. */
const struct gp_vendor *gp_vendor_nth(size_t i);

/* True when name is one that some vendor's plan may hold (vendor.h), nothing else. */
bool gp_devnode_name_is_valid(const char *name);

#endif
