/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/driver/nvml.c. */
#ifndef GP_NVML_H
#define GP_NVML_H

#include "host/hmm.h"

/*
 * Asks NVML (dlopen "libnvidia-ml.so.1") for every GPU's addressing mode in a child
 * process, so a driver that hangs cannot hang the caller, within timeout_ms.
 */
void gp_nvml_addressing(int timeout_ms, struct gp_nvml *out);
/* How long the tools wait for that answer. */
#define GP_NVML_TIMEOUT_MS 10000

/* Parses the child's answer: "modes M M ...\n", strictly. */
int gp_nvml_parse(const char *buf, struct gp_nvml *out);

#endif
