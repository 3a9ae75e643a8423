/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/diagnose/findings.c. */
#ifndef GP_FINDINGS_H
#define GP_FINDINGS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

enum gp_severity { GP_SEV_ERROR, GP_SEV_WARNING, GP_SEV_INFO };

/* One thing found: what, how bad, the evidence seen, the fix, and where to read more. */
struct gp_finding {
	const char *id;
	enum gp_severity severity;
	char summary[256];
	char evidence[768];
	char fix[512];
	const char *refs;
};

/* Every kind of finding: a row of gp_finding_kinds each, so a misspelt one does not build. */
enum gp_finding_id {
	GP_FINDING_PROBE_TIMEOUT,
	GP_FINDING_CUINIT_HANG,
	GP_FINDING_CUINIT_HMM,
	GP_FINDING_CUINIT_NOT_INITIALIZED,
	GP_FINDING_UVM_BLOCKED,
	GP_FINDING_NO_DEVICE,
	GP_FINDING_STUB_LIBCUDA,
	GP_FINDING_DRIVER_MISMATCH,
	GP_FINDING_FORWARD_COMPAT,
	GP_FINDING_FABRIC_MANAGER,
	GP_FINDING_CUINIT_FAILED,
	GP_FINDING_LIBCUDA_MISSING,
	GP_FINDING_LIBCUDA_BROKEN,
	GP_FINDING_PROBE_CRASHED,
	GP_FINDING_PROBE_OUTPUT,
	GP_FINDING_PROBE_LINGERING,
	GP_FINDING_NESTED_NO_GLIBC,
	GP_FINDING_NESTED_FAILED,
	GP_FINDING_NESTED_REMOVED,
	GP_FINDING_NESTED_LEFT,
	GP_FINDING_NODE_MISSING,
	GP_FINDING_NODE_STALE,
	GP_FINDING_NODE_CGROUP,
	GP_FINDING_NODE_MODE,
	GP_FINDING_NODE_NO_DRIVER,
	GP_FINDING_GPU_MISSING,
	GP_FINDING_GPU_EXTRA,
	GP_FINDING_DRIVER_MISSING,
	GP_FINDING_GPU_EXCLUDED,
	GP_FINDING_GSP_FIRMWARE_MISSING,
	GP_FINDING_UVM_NOT_LOADED,
	GP_FINDING_HMM_ACTIVE,
	GP_FINDING_HOST_NODE_MISSING,
	GP_FINDING_HOST_NODE_STALE,
	GP_FINDING_HOST_NODE_MODE,
	GP_FINDING_PERSISTENCED_MISSING,
	GP_FINDING_FABRIC_MANAGER_MISSING,
	GP_FINDING_NOKASLR_HINT,
	GP_FINDING_KMSG_SIGNATURE,
	GP_FINDING_HOOK_MISSING,
	GP_FINDING_HOOK_BINARY_MISSING,
	GP_FINDING_RULE_STALE,
	GP_FINDING_CGROUP_V1_KEYS,
	GP_FINDING_CGROUP_V1_LXC7,
	GP_FINDING_CGROUP_V1_PVE9,
	GP_FINDING_CGROUP_LAYOUT_ASSUMED,
	GP_FINDING_OPTIONAL_MOUNT,
	GP_FINDING_UNPRIVILEGED_NODE_MODE,
	GP_FINDING_PVE_DUPLICATE,
	GP_FINDING_FIXTURE_HOST,
	GP_FINDING_NOT_ATTACHED,
	GP_FINDING_INI_INVALID,
	GP_FINDING_INJECT_CAPABILITY_MISSING,
	GP_FINDING_INJECT_OTHER_VERSION,
	GP_FINDING_CONTAINER_DRIVER_VERSION,
	GP_FINDING_INJECT_DEVN,
	GP_FINDING_INJECT_MUSL,
	GP_FINDING_INJECT_FILE_UNTRUSTED,
	GP_FINDING_CONTAINER_ROOTFS_UNREAD,
	GP_FINDING_CONTAINER_LIBRARIES_UNFOLLOWED,
	/* NVIDIA's container toolkit and Docker inside the container (lib/check/checktoolkit.c) */
	GP_FINDING_TOOLKIT_CGROUPS,
	GP_FINDING_DOCKER_CDI_OFF,
	GP_FINDING_DOCKER_DEFAULT_RUNTIME_MISSING,
	GP_FINDING_DOCKER_RUNTIME_MISSING,
	GP_FINDING_CDI_SPEC_CONFLICT,
	GP_FINDING_CDI_SPEC_OVERRIDES,
	GP_FINDING_CDI_SPEC_STALE,
	GP_FINDING_TOOLKIT_FILE_UNREAD,
	GP_FINDING_RECIPE_NODE_MISSING,
	GP_FINDING_RECIPE_RULE_MISSING,
	GP_FINDING_RULE_OPENS_GPUS,
	GP_FINDING_UVM_TOOLS_MISSING,
	GP_FINDING_OTHER_GPU_HOOK,
	GP_FINDING_RECIPE_CONFLICT,
	GP_FINDING_RECIPE_LINES,
	GP_FINDING_HOOK_INLINE_COMMENT,
	GP_FINDING_HOOK_CHANGES_HOST_NODES,
	GP_FINDING_HOOKS_NVIDIA_PRIVILEGED,
	GP_FINDING_NVIDIA_ENV_UNREAD,
	GP_FINDING_PRIVILEGED_UNCONFINED,
	GP_FINDING_NVIDIA_BLOCK_COMMENTED,
	GP_FINDING_RULES_INERT,
	GP_FINDING_RULE_OTHER_NVIDIA_MAJOR,
	GP_FINDING_DEVN_NOT_DEVICE,
	GP_FINDING_DEVN_DUPLICATE,
	GP_FINDING_DEVN_MODE_WIDER,
	GP_FINDING_DEVN_MODE_NARROWER,
	GP_FINDING_BIND_COPY_STALE,
	GP_FINDING_SELECTOR_ABSENT,
	GP_FINDING_BIND_DEVICE_DIR,
	GP_FINDING_BIND_HOST_LIBDIR,
	GP_FINDING_DRIVER_REPLACED,
	GP_FINDING_DRIVER_VERSION_STALE,
	GP_FINDING_REBOOT_PENDING,
	GP_FINDING_COMPUTE_FAILED,
	GP_FINDING_COMPUTE_WRONG_RESULT,
	GP_FINDING_PTX_JIT_FAILED,
	GP_FINDING_NVML_MISSING,
	GP_FINDING_NVDEC_MISSING,
	GP_FINDING_NVENC_MISSING,
	GP_FINDING_NVML_FAILED,
	GP_FINDING_NVML_GPU_NOT_LISTED,
	GP_FINDING_NVDEC_FAILED,
	GP_FINDING_NVENC_FAILED,
	GP_FINDING_VIDEO_ENGINE_ABSENT,
	GP_FINDING_VULKAN_FAILED,
	/* a Proxmox VE cluster (lib/cluster/checkcluster.c) */
	GP_FINDING_CLUSTER_START_REFUSED,
	GP_FINDING_CLUSTER_START_DIFFERS,
	GP_FINDING_CLUSTER_NODE_UNPUBLISHED,
	GP_FINDING_CLUSTER_INVENTORY_STALE,
	GP_FINDING_CLUSTER_NOT_QUORATE,
	GP_FINDING_INI_NODE_LOCAL,
	GP_FINDING_FINDINGS_CAPPED,
	GP_FINDING_COUNT
};

#define GP_MAX_FINDINGS 32
struct gp_findings {
	struct gp_finding v[GP_MAX_FINDINGS];
	size_t n;
	size_t left_out; /* past the cap: counted in the last finding, findings-capped */
};

/* Every finding the code can raise, with how it is detected: the source of the docs table. */
struct gp_finding_kind {
	const char *id;
	enum gp_severity severity;
	const char *detected;
	const char *refs;
};
extern const struct gp_finding_kind gp_finding_kinds[GP_FINDING_COUNT];
extern const size_t gp_finding_nkinds;

/*
 * Adds a finding of a kind (its id, severity and references come from the catalogue);
 * the caller fills summary, evidence and fix. When the list is full, NULL, and its last
 * finding (findings-capped, an error) counts what was left out.
 */
struct gp_finding *gp_findings_add(struct gp_findings *f, enum gp_finding_id id);
/* The kind whose id is name (a report read back): 0, or -ENOENT for an unknown id. */
int gp_finding_id_parse(const char *name, enum gp_finding_id *id);

/* snprintf into a finding's field; GP_SET(x->summary, "...", ...) sizes it from the field. */
void gp_finding_put(char *dst, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define GP_SET(field, ...) gp_finding_put(field, sizeof(field), __VA_ARGS__)

/* True when any finding is an error. */
int gp_findings_errors(const struct gp_findings *f);

const char *gp_severity_name(enum gp_severity s);
struct json_object *gp_findings_json(const struct gp_findings *f);
/*
 * Most severe first, one block each, every line after indent; the text escaped (a
 * finding can quote a container), the severity coloured when tty.
 */
void gp_findings_print(const struct gp_findings *f, FILE *out, const char *indent, bool tty);

#endif
