/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/host/parse.c. */
#ifndef GP_PARSE_H
#define GP_PARSE_H

#include <stddef.h>

#include "host/facts.h"

/* Parsers: each takes a NUL-terminated buffer and fills its part. 0 or -GP_EBADCONF. */
int gp_parse_version(const char *buf, char *version, size_t size, enum gp_flavor *flavor);
int gp_parse_params(const char *buf, struct gp_params *params);
int gp_parse_information(const char *buf, struct gp_gpu *gpu);
int gp_parse_devices(const char *buf, struct gp_majors *majors);
/* The first character device of that major in /proc/devices: 0, -ENOENT none, -GP_EBADCONF. */
int gp_parse_major_name(const char *buf, unsigned int major, char *name, size_t size);
int gp_parse_mig_minors(const char *buf, struct gp_caps_table *caps);
void gp_parse_kconfig(const char *buf, struct gp_kconfig *kc);

#endif
