/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/start/cdi.c. */
#ifndef GP_CDI_H
#define GP_CDI_H

#include <stdbool.h>

#include "host/host.h"
#include "plan/plan.h"
#include "start/inject.h"

/* Where the spec is in the container: in the injected tree, linked from CDI's directory. */
#define GP_CDI_FILE GP_INJECT_DIR "/cdi/gpu-provision.json"
#define GP_CDI_LINK "/etc/cdi/gpu-provision.json"
/* The kind its devices are of, as NVIDIA's generator names them: nvidia.com/gpu=0. */
#define GP_CDI_KIND "nvidia.com/gpu"

/* The most a spec holds: a node per GPU and three mounts per injected file fit. */
#define GP_CDI_FILE_MAX (256 * 1024)

/*
 * The CDI spec (cncf-tags/container-device-interface SPEC.md) of a start, for the Podman or
 * Docker of the container itself: kind GP_CDI_KIND, a device for each GPU the plan gives
 * (named by its index and by its UUID) and "all"; for every device, the plan's other nodes
 * and the files inj injects, mounted read-only where the nested container's loader finds
 * them without a cache of its own: the soname in GP_INJECT_LIBDIR (CUDA images name it in
 * LD_LIBRARY_PATH) and in the C library's default directories (Debian's multiarch one, and
 * lib64 for RHEL's), each program and manifest at its link. host gives the GPUs' minors.
 * JSON, malloc'd; NULL on allocation failure.
 */
char *gp_cdi_spec(const struct gp_host *host, const struct gp_plan *plan,
		  const struct gp_inject *inj);

/* Whether path is where the spec mounts a library by its soname (one of the directories above). */
bool gp_cdi_is_lib_path(const char *path, const char *soname);

/*
 * Calls fn with each device name a start given every GPU of host would have in its spec,
 * as gp_cdi_spec names them: each GPU's index and UUID, then "all".
 */
void gp_cdi_names(const struct gp_host *host, void (*fn)(const char *name, void *u), void *u);

#endif
