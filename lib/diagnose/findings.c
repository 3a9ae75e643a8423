/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The catalogue of findings and their rendering. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/escape.h"
#include "diagnose/findings.h"

#define REF_HMM                                                                                    \
	"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/797 "                            \
	"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/947 "                            \
	"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/901 "                            \
	"CUDA 12.9/13.0 release notes, known issues: CUDA initialization can fail on certain "     \
	"Linux kernels with KASLR enabled"
#define REF_ERRORS "CUDA Driver API, CUresult"
#define REF_XID "NVIDIA Xid Errors; nvidia-smi -q -d ECC"
#define REF_PTX                                                                                    \
	"CUDA Driver API, cuModuleLoadData; CUDA C++ Programming Guide, Just-in-Time "             \
	"Compilation"
#define REF_NVML "NVML API Reference, nvmlReturn_t"
#define REF_VIDEO "NVIDIA Video Codec SDK: NVDEC and NVENC API, status codes"
#define REF_VIDEO_MATRIX "NVIDIA Video Encode and Decode GPU Support Matrix"
#define REF_VULKAN "Vulkan loader, Driver Interface (ICD manifests)"
#define REF_TOOLKIT_CGROUPS                                                                        \
	"https://github.com/blakeblackshear/frigate/issues/8652 "                                  \
	"https://github.com/NVIDIA/libnvidia-container/issues/154"
#define REF_DOCKER_CDI                                                                             \
	"Docker Engine docs: Container Device Interface (\"features\": {\"cdi\": true}); Docker "  \
	"28.2 release notes: CDI enabled by default"
#define REF_CDI_CACHE                                                                              \
	"cncf-tags/container-device-interface pkg/cdi/cache.go: devices of one name in specs of "  \
	"one directory conflict and are dropped; a later directory's spec (/var/run/cdi after "    \
	"/etc/cdi) wins"
#define REF_PVE_CLUSTER "Proxmox VE Administration Guide: Cluster File System (pmxcfs)"

const struct gp_finding_kind gp_finding_kinds[GP_FINDING_COUNT] = {
	[GP_FINDING_PROBE_TIMEOUT] = { "probe-timeout", GP_SEV_ERROR,
				       "the probe did not finish within [probe] timeout", NULL },
	[GP_FINDING_CUINIT_HANG] = { "cuinit-hang", GP_SEV_ERROR,
				     "cuInit did not return within [probe] timeout (state D: stuck "
				     "in the kernel)",
				     REF_HMM },
	[GP_FINDING_CUINIT_HMM] = { "cuinit-hmm", GP_SEV_ERROR,
				    "cuInit returned 3 (CUDA_ERROR_NOT_INITIALIZED) while HMM is "
				    "or may be active",
				    REF_HMM },
	[GP_FINDING_CUINIT_NOT_INITIALIZED] = { "cuinit-not-initialized", GP_SEV_ERROR,
						"cuInit returned 3 and HMM is off", REF_ERRORS },
	[GP_FINDING_UVM_BLOCKED] = { "uvm-blocked", GP_SEV_ERROR,
				     "cuInit returned 999, or /dev/nvidia-uvm is missing or "
				     "refused (EPERM)",
				     NULL },
	[GP_FINDING_NO_DEVICE] = { "no-device", GP_SEV_ERROR,
				   "cuInit returned 100 (CUDA_ERROR_NO_DEVICE)", REF_ERRORS },
	[GP_FINDING_STUB_LIBCUDA] = { "stub-libcuda", GP_SEV_ERROR,
				      "cuInit returned 34 (CUDA_ERROR_STUB_LIBRARY): the toolkit's "
				      "stub libcuda was loaded",
				      REF_ERRORS },
	[GP_FINDING_DRIVER_MISMATCH] = { "driver-mismatch", GP_SEV_ERROR,
					 "cuInit returned 803, or libcuda's version is not the "
					 "kernel module's",
					 REF_ERRORS },
	[GP_FINDING_FORWARD_COMPAT] = { "forward-compat", GP_SEV_ERROR,
					"cuInit returned 804: forward-compatibility libraries on a "
					"GPU they do not support",
					"CUDA Compatibility guide, forward compatibility" },
	[GP_FINDING_FABRIC_MANAGER] = { "fabric-manager", GP_SEV_ERROR,
					"cuInit returned 802 (CUDA_ERROR_SYSTEM_NOT_READY): "
					"NVSwitch fabric not ready",
					"NVIDIA Fabric Manager user guide" },
	[GP_FINDING_CUINIT_FAILED] = { "cuinit-failed", GP_SEV_ERROR,
				       "cuInit returned another error", REF_ERRORS },
	[GP_FINDING_LIBCUDA_MISSING] = { "libcuda-missing", GP_SEV_ERROR,
					 "dlopen(\"libcuda.so.1\") failed in the container", NULL },
	[GP_FINDING_LIBCUDA_BROKEN] = { "libcuda-broken", GP_SEV_ERROR,
					"libcuda.so.1 lacks cuInit, cuDriverGetVersion or "
					"cuDeviceGetCount",
					NULL },
	[GP_FINDING_PROBE_CRASHED] = { "probe-crashed", GP_SEV_ERROR, "the probe died of a signal",
				       NULL },
	[GP_FINDING_PROBE_OUTPUT] = { "probe-output", GP_SEV_ERROR,
				      "the probe's output was cut short or malformed", NULL },
	[GP_FINDING_PROBE_LINGERING] = { "probe-lingering", GP_SEV_WARNING,
					 "a process in the container kept the probe's output open "
					 "after the probe ended",
					 NULL },
	[GP_FINDING_NESTED_NO_GLIBC] = { "nested-no-glibc", GP_SEV_ERROR,
					 "the nested image could not execute gpu-probe: no glibc "
					 "2.28 or later in it",
					 NULL },
	[GP_FINDING_NESTED_FAILED] = { "nested-failed", GP_SEV_ERROR,
				       "the container's runtime did not run the nested container",
				       NULL },
	[GP_FINDING_NESTED_REMOVED] = { "nested-removed", GP_SEV_INFO,
					"the nested container outlived the probe and was removed",
					NULL },
	[GP_FINDING_NESTED_LEFT] = { "nested-left", GP_SEV_ERROR,
				     "the nested container outlived the probe and could not be "
				     "removed",
				     NULL },
	[GP_FINDING_NODE_MISSING] = { "node-missing", GP_SEV_ERROR,
				      "an expected /dev node is absent in the container", NULL },
	[GP_FINDING_NODE_STALE] = { "node-stale", GP_SEV_ERROR,
				    "a /dev node in the container has another number than the "
				    "host's",
				    NULL },
	[GP_FINDING_NODE_CGROUP] = { "node-cgroup", GP_SEV_ERROR,
				     "open(O_RDWR) of a node gave EPERM: the device cgroup", NULL },
	[GP_FINDING_NODE_MODE] = { "node-mode", GP_SEV_ERROR,
				   "open(O_RDWR) of a node gave EACCES: its mode or owner", NULL },
	[GP_FINDING_NODE_NO_DRIVER] = { "node-no-driver", GP_SEV_ERROR,
					"open(O_RDWR) of a node gave ENXIO or ENODEV: no driver "
					"behind it",
					NULL },
	[GP_FINDING_GPU_MISSING] = { "gpu-missing", GP_SEV_ERROR,
				     "a selected GPU is not among the devices CUDA sees", NULL },
	[GP_FINDING_GPU_EXTRA] = { "gpu-extra", GP_SEV_ERROR,
				   "CUDA sees a GPU the container was not given", NULL },
	/* gpu-provision check: the host */
	[GP_FINDING_DRIVER_MISSING] = { "driver-missing", GP_SEV_ERROR,
					"no /proc/driver/nvidia/version: the driver is not loaded",
					NULL },
	[GP_FINDING_GPU_EXCLUDED] = { "gpu-excluded", GP_SEV_WARNING,
				      "a GPU's information says GPU Excluded: Yes", NULL },
	[GP_FINDING_GSP_FIRMWARE_MISSING] = { "gsp-firmware-missing", GP_SEV_ERROR,
					      "open module, and no gsp_*.bin under "
					      "/lib/firmware/nvidia/<version>",
					      "NVIDIA open GPU kernel modules README: GSP "
					      "firmware" },
	[GP_FINDING_UVM_NOT_LOADED] = { "uvm-not-loaded", GP_SEV_ERROR,
					"nvidia_uvm is not loaded (no nvidia-uvm major)", NULL },
	[GP_FINDING_HMM_ACTIVE] = { "hmm-active", GP_SEV_ERROR,
				    "HMM is active in nvidia_uvm (the verdict of host)", REF_HMM },
	[GP_FINDING_HOST_NODE_MISSING] = { "host-node-missing", GP_SEV_ERROR,
					   "a host /dev node the driver has is absent", NULL },
	[GP_FINDING_HOST_NODE_STALE] = { "host-node-stale", GP_SEV_ERROR,
					 "a host /dev node has another number than today's", NULL },
	[GP_FINDING_HOST_NODE_MODE] = { "host-node-mode", GP_SEV_WARNING,
					"a host /dev node's mode or owner differs from the "
					"driver's params",
					NULL },
	[GP_FINDING_PERSISTENCED_MISSING] = { "persistenced-missing", GP_SEV_INFO,
					      "no nvidia-persistenced process: the driver is torn "
					      "down between users",
					      NULL },
	[GP_FINDING_FABRIC_MANAGER_MISSING] = { "fabric-manager-missing", GP_SEV_ERROR,
						"NVSwitch devices present and no nv-fabricmanager "
						"process",
						"NVIDIA Fabric Manager user guide" },
	[GP_FINDING_NOKASLR_HINT] = { "nokaslr-hint", GP_SEV_INFO,
				      "HMM would be active and the kernel runs with KASLR",
				      REF_HMM },
	[GP_FINDING_KMSG_SIGNATURE] = { "kmsg-signature", GP_SEV_ERROR,
					"the kernel log holds a known NVIDIA failure (Xid, fallen "
					"off the bus, RmInitAdapter, "
					"HMM init)",
					NULL },
	/* gpu-provision check: a container's config */
	[GP_FINDING_HOOK_MISSING] = { "hook-missing", GP_SEV_ERROR,
				      "the container has an ini but no gpu-hook lines", NULL },
	[GP_FINDING_HOOK_BINARY_MISSING] = { "hook-binary-missing", GP_SEV_ERROR,
					     "a gpu-hook line names a file that does not exist",
					     NULL },
	[GP_FINDING_RULE_STALE] = { "rule-stale", GP_SEV_ERROR,
				    "a device rule (attach's or a recipe's) whose major is no "
				    "NVIDIA major today",
				    NULL },
	[GP_FINDING_CGROUP_V1_KEYS] = { "cgroup-v1-keys", GP_SEV_ERROR,
					"lxc.cgroup.devices.* keys on a host whose devices "
					"controller is cgroup v2",
					NULL },
	[GP_FINDING_CGROUP_V1_LXC7] = { "cgroup-v1-lxc7", GP_SEV_ERROR,
					"lxc.cgroup.* keys under LXC 7, which knows none: the "
					"container does not start",
					NULL },
	[GP_FINDING_CGROUP_V1_PVE9] = { "cgroup-v1-pve9", GP_SEV_WARNING,
					"lxc.cgroup.* keys on Proxmox VE 9, whose pve-container "
					"warns of them and writes none",
					NULL },
	[GP_FINDING_CGROUP_LAYOUT_ASSUMED] = { "cgroup-layout-assumed", GP_SEV_INFO,
					       "--root names a capture without "
					       "proc/self/mountinfo: its device rules are judged "
					       "by this host's cgroup layout",
					       NULL },
	[GP_FINDING_OPTIONAL_MOUNT] = { "optional-mount", GP_SEV_WARNING,
					"an lxc.mount.entry for an NVIDIA node with \"optional\": "
					"a missing node is skipped "
					"silently",
					NULL },
	[GP_FINDING_UNPRIVILEGED_NODE_MODE] = { "unprivileged-node-mode", GP_SEV_WARNING,
						"an unprivileged container, and nodes that only a "
						"host group may open",
						NULL },
	[GP_FINDING_PVE_DUPLICATE] = { "pve-duplicate", GP_SEV_WARNING,
				       "a Proxmox devN entry and raw lxc.* lines for the same node",
				       NULL },
	[GP_FINDING_FIXTURE_HOST] = { "fixture-host", GP_SEV_INFO,
				      "--root names a captured host: ENXIO from its nodes is "
				      "expected and not reported",
				      NULL },
	[GP_FINDING_NOT_ATTACHED] = { "not-attached", GP_SEV_WARNING,
				      "the container has no ini: probed without knowing its GPUs",
				      NULL },
	[GP_FINDING_INI_INVALID] = { "ini-invalid", GP_SEV_ERROR,
				     "the container's ini or the host's gpu-provision.conf cannot "
				     "be read or parsed",
				     NULL },
	/* the driver's user space ([driver] inject) */
	[GP_FINDING_INJECT_CAPABILITY_MISSING] = { "inject-capability-missing", GP_SEV_ERROR,
						   "the ini asks to inject a capability none of "
						   "whose libraries the host has at the kernel "
						   "module's version: the start is refused",
						   NULL },
	[GP_FINDING_INJECT_OTHER_VERSION] = { "inject-other-version", GP_SEV_WARNING,
					      "the host's loader cache names driver libraries of "
					      "another version than the kernel module's: never "
					      "injected",
					      NULL },
	[GP_FINDING_CONTAINER_DRIVER_VERSION] = { "container-driver-version", GP_SEV_ERROR,
						  "the container's own driver libraries are of "
						  "another version than the kernel "
						  "module's (\"Driver/library version mismatch\"); "
						  "with injection the start is "
						  "refused",
						  NULL },
	[GP_FINDING_INJECT_DEVN] = { "inject-devn", GP_SEV_ERROR,
				     "the ini asks for injection in mode devn, where no hook runs",
				     NULL },
	[GP_FINDING_INJECT_MUSL] = { "inject-musl", GP_SEV_ERROR,
				     "the ini asks for injection into a musl container: the start "
				     "is refused",
				     NULL },
	[GP_FINDING_INJECT_FILE_UNTRUSTED] = { "inject-file-untrusted", GP_SEV_ERROR,
					       "a host file the ini asks to inject, or a directory "
					       "above it, is not root's or is writable by group or "
					       "others: the start is refused",
					       NULL },
	[GP_FINDING_CONTAINER_ROOTFS_UNREAD] = { "container-rootfs-unread", GP_SEV_WARNING,
						 "the container's loader cache was not read: not a "
						 "regular file of its rootfs, or a mount of the "
						 "container's did not answer by the deadline",
						 NULL },
	[GP_FINDING_CONTAINER_LIBRARIES_UNFOLLOWED] = { "container-libraries-unfollowed",
							GP_SEV_INFO,
							"the container's loader cache names driver "
							"libraries behind a mount of its own: not "
							"followed, so not judged",
							NULL },
	/* NVIDIA's container toolkit and Docker inside the container, read as files */
	[GP_FINDING_TOOLKIT_CGROUPS] = { "toolkit-cgroups", GP_SEV_ERROR,
					 "an unprivileged container whose "
					 "/etc/nvidia-container-runtime/config.toml leaves "
					 "[nvidia-container-cli] no-cgroups false (or unsaid): the "
					 "toolkit's hook fails with "
					 "bpf_prog_query(BPF_CGROUP_DEVICE) "
					 "failed: operation not permitted",
					 REF_TOOLKIT_CGROUPS },
	[GP_FINDING_DOCKER_CDI_OFF] = { "docker-cdi-off", GP_SEV_WARNING,
					"the start writes a CDI spec, and the container's Docker "
					"reads none: older than 25, or before 28.2 without "
					"\"features\": {\"cdi\": true} in /etc/docker/daemon.json, "
					"or CDI turned off there",
					REF_DOCKER_CDI },
	[GP_FINDING_DOCKER_DEFAULT_RUNTIME_MISSING] = { "docker-default-runtime-missing",
							GP_SEV_ERROR,
							"daemon.json's default-runtime is one it "
							"does not define, or whose program the "
							"container does not have: dockerd or every "
							"docker run fails",
							NULL },
	[GP_FINDING_DOCKER_RUNTIME_MISSING] = { "docker-runtime-missing", GP_SEV_WARNING,
						"daemon.json's runtimes.nvidia names a program the "
						"container does not have: docker run --runtime "
						"nvidia fails",
						NULL },
	[GP_FINDING_CDI_SPEC_CONFLICT] = { "cdi-spec-conflict", GP_SEV_ERROR,
					   "a spec of NVIDIA's generator in /etc/cdi defines kind "
					   "nvidia.com/gpu beside the start's: every device name "
					   "both define is dropped (nvidia.com/gpu=all is "
					   "unresolvable)",
					   REF_CDI_CACHE },
	[GP_FINDING_CDI_SPEC_OVERRIDES] = { "cdi-spec-overrides", GP_SEV_WARNING,
					    "/var/run/cdi/nvidia.yaml defines kind nvidia.com/gpu: "
					    "its devices win over the start's of the same names",
					    REF_CDI_CACHE },
	[GP_FINDING_CDI_SPEC_STALE] = { "cdi-spec-stale", GP_SEV_ERROR,
					"a spec of NVIDIA's generator names device nodes or files "
					"the container does not have: a nested container given its "
					"devices is not created",
					REF_CDI_CACHE },
	[GP_FINDING_TOOLKIT_FILE_UNREAD] = { "toolkit-file-unread", GP_SEV_WARNING,
					     "a file check reads of the toolkit's or Docker's "
					     "(config.toml, daemon.json, dpkg's status, a CDI "
					     "spec) "
					     "is a symbolic link, not a regular file, over its "
					     "size "
					     "limit or does not parse: not read, so not judged",
					     NULL },
	/* lines a recipe put into the container's config */
	[GP_FINDING_RECIPE_NODE_MISSING] = { "recipe-node-missing", GP_SEV_ERROR,
					     "a bind or devN of an NVIDIA node the host does not "
					     "have now (uvm after a reboot, a GPU gone); optional "
					     "hides it",
					     NULL },
	[GP_FINDING_RECIPE_RULE_MISSING] = { "recipe-rule-missing", GP_SEV_ERROR,
					     "an NVIDIA node bound with no device rule that lets "
					     "the container open it (uvm: cuInit 999)",
					     NULL },
	[GP_FINDING_RULE_OPENS_GPUS] = { "rule-opens-gpus", GP_SEV_ERROR,
					 "a device rule (a, c *:*, c 195:*) of a privileged "
					 "container that reaches GPUs it is not meant to have",
					 NULL },
	[GP_FINDING_UVM_TOOLS_MISSING] = { "uvm-tools-missing", GP_SEV_INFO,
					   "nvidia-uvm given by hand without nvidia-uvm-tools",
					   NULL },
	[GP_FINDING_OTHER_GPU_HOOK] = { "other-gpu-hook", GP_SEV_WARNING,
					"another GPU tool's hook (LXC's hooks/nvidia, "
					"nvidia-container-cli) in the config",
					NULL },
	[GP_FINDING_RECIPE_CONFLICT] = { "recipe-conflict", GP_SEV_ERROR,
					 "the config binds NVIDIA nodes itself while gpu-hook is "
					 "attached: the start is refused",
					 NULL },
	[GP_FINDING_RECIPE_LINES] = { "recipe-lines", GP_SEV_INFO,
				      "the container gets its GPUs from recipe lines, not from "
				      "gpu-provision",
				      NULL },
	/* lines of the config that are no rules or binds (lib/check/checklines.c) */
	[GP_FINDING_HOOK_INLINE_COMMENT] = { "hook-inline-comment", GP_SEV_WARNING,
					     "a hook's value ends in an inline \"# ...\": under "
					     "LXC's sh -c it swallows the hook's arguments (name, "
					     "section, type)",
					     "lxc/lxc src/lxc/conf.c, run_script_argv" },
	[GP_FINDING_HOOK_CHANGES_HOST_NODES] = { "hook-changes-host-nodes", GP_SEV_ERROR,
						 "a hook that runs on the host chowns or chmods "
						 "the host's /dev/nvidia* nodes: every container "
						 "and user of the host gets what it gives",
						 NULL },
	[GP_FINDING_HOOKS_NVIDIA_PRIVILEGED] = { "hooks-nvidia-privileged", GP_SEV_ERROR,
						 "LXC's hooks/nvidia in a privileged container: "
						 "it exits (\"only works in unprivileged mode\") "
						 "and the start fails",
						 "lxc/lxc hooks/nvidia" },
	[GP_FINDING_NVIDIA_ENV_UNREAD] = { "nvidia-env-unread", GP_SEV_INFO,
					   "NVIDIA_VISIBLE_DEVICES or NVIDIA_DRIVER_CAPABILITIES "
					   "set "
					   "with no hook that reads them (LXC's hooks/nvidia "
					   "does): "
					   "they change nothing",
					   NULL },
	[GP_FINDING_PRIVILEGED_UNCONFINED] = { "privileged-unconfined", GP_SEV_ERROR,
					       "a privileged container with lxc.apparmor.profile "
					       "unconfined and an empty lxc.cap.drop: root in it "
					       "is "
					       "root on the host, every GPU in its reach",
					       NULL },
	[GP_FINDING_NVIDIA_BLOCK_COMMENTED] = { "nvidia-block-commented", GP_SEV_INFO,
						"a Proxmox config whose NVIDIA lines are all "
						"commented out: Proxmox keeps them as the "
						"description, nothing of them applies",
						"pve-container src/PVE/LXC/Config.pm, "
						"parse_pct_config" },
	[GP_FINDING_RULES_INERT] = { "rules-inert", GP_SEV_INFO,
				     "device rules in an unprivileged Proxmox container, where "
				     "pve-container allows every device: they change nothing, what "
				     "is bound is what it reaches",
				     "pve-container src/lxc-pve-userns.conf" },
	[GP_FINDING_RULE_OTHER_NVIDIA_MAJOR] = { "rule-other-nvidia-major", GP_SEV_ERROR,
						 "a rule written for nvidia-uvm on the major "
						 "another NVIDIA device (caps, nvlink, nvswitch) "
						 "has today: uvm is denied (cuInit 999)",
						 NULL },
	[GP_FINDING_DEVN_NOT_DEVICE] = { "devn-not-device", GP_SEV_ERROR,
					 "a devN of a directory or of a file that is no device "
					 "node: Proxmox refuses the start",
					 "pve-container: devN, update_lxc_config" },
	[GP_FINDING_DEVN_DUPLICATE] = { "devn-duplicate", GP_SEV_WARNING,
					"two devN of one path in today's config: a script's "
					"duplicate check missed it; one line gives the node",
					NULL },
	[GP_FINDING_DEVN_MODE_WIDER] = { "devn-mode-wider", GP_SEV_WARNING,
					 "a devN whose mode= lets every user of the container "
					 "read or write a node the host keeps from them (a MIG "
					 "config cap at 0444 where the host has 0400)",
					 NULL },
	[GP_FINDING_DEVN_MODE_NARROWER] = { "devn-mode-narrower", GP_SEV_WARNING,
					    "devN nodes made 0660 root:root or root:GID (Proxmox's "
					    "default without mode=), where the host's are 0666: a "
					    "service of another user gets EACCES",
					    "pve-container: devN, "
					    "create_passthrough_device_node" },
	[GP_FINDING_BIND_COPY_STALE] = { "bind-copy-stale", GP_SEV_ERROR,
					 "a bind onto an NVIDIA node's name from a copy kept "
					 "outside /dev that is gone or is not today's node: the "
					 "container gets no GPU there, or another device",
					 NULL },
	[GP_FINDING_SELECTOR_ABSENT] = { "selector-absent", GP_SEV_ERROR,
					 "an NVIDIA_VISIBLE_DEVICES that a hook reads names a GPU "
					 "or MIG instance this host lacks: the hook fails the "
					 "start",
					 NULL },
	[GP_FINDING_BIND_DEVICE_DIR] = { "bind-device-dir", GP_SEV_WARNING,
					 "a bind of the whole /dev/nvidia-caps or /dev/dri: every "
					 "GPU's caps or DRM nodes, those added later too",
					 NULL },
	[GP_FINDING_BIND_HOST_LIBDIR] = { "bind-host-libdir", GP_SEV_ERROR,
					  "a bind of the host's system library directory over the "
					  "container's: its programs run on the host's C library",
					  NULL },
	/* check NAME: a running container's injected driver after an update (checkrestart.c) */
	[GP_FINDING_DRIVER_REPLACED] = { "driver-replaced", GP_SEV_WARNING,
					 "a running container's injected driver files were "
					 "replaced "
					 "on the host at the module's version: it runs the removed "
					 "ones until it restarts",
					 NULL },
	[GP_FINDING_DRIVER_VERSION_STALE] = { "driver-version-stale", GP_SEV_ERROR,
					      "a running container's injected libraries are of "
					      "another version than the module loaded since: CUDA "
					      "fails until it restarts",
					      NULL },
	[GP_FINDING_REBOOT_PENDING] = { "reboot-pending", GP_SEV_WARNING,
					"a running container's driver files were replaced by "
					"another version than the loaded module's: a start now is "
					"refused; the host reboots first",
					NULL },
	/* probe --deep: each capability proven on each GPU (lib/diagnose/diagnosedeep.c) */
	[GP_FINDING_COMPUTE_FAILED] = { "compute-failed", GP_SEV_ERROR,
					"a CUDA call of --deep's compute test failed (device, "
					"context, alloc, htod, dtoh, function, launch, sync, "
					"kernel-dtoh) or libcuda lacks its symbols",
					REF_ERRORS },
	[GP_FINDING_COMPUTE_WRONG_RESULT] = { "compute-wrong-result", GP_SEV_ERROR,
					      "the 1 MiB copied to the GPU and back, or a kernel's "
					      "result, differs from what it should be: ECC, an "
					      "Xid, "
					      "or a libcuda that is not the driver's",
					      REF_XID },
	[GP_FINDING_PTX_JIT_FAILED] = { "ptx-jit-failed", GP_SEV_ERROR,
					"a kernel from PTX text did not load: the driver's "
					"libnvidia-ptxjitcompiler.so.1 is missing or older than "
					"the "
					"driver",
					REF_PTX },
	[GP_FINDING_NVML_MISSING] = { "nvml-missing", GP_SEV_INFO,
				      "no libnvidia-ml.so.1 in the container (nvidia-smi, "
				      "monitoring); an error where the ini injects utility",
				      NULL },
	[GP_FINDING_NVDEC_MISSING] = { "nvdec-missing", GP_SEV_INFO,
				       "no libnvcuvid.so.1 in the container (NVDEC decoding); an "
				       "error where the ini injects video",
				       NULL },
	[GP_FINDING_NVENC_MISSING] = { "nvenc-missing", GP_SEV_INFO,
				       "no libnvidia-encode.so.1 in the container (NVENC "
				       "encoding); "
				       "an error where the ini injects video",
				       NULL },
	[GP_FINDING_NVML_FAILED] = { "nvml-failed", GP_SEV_ERROR,
				     "NVML's init, count or UUIDs failed (a library of another "
				     "version than the kernel module's, no /dev/nvidiactl)",
				     REF_NVML },
	[GP_FINDING_NVML_GPU_NOT_LISTED] = { "nvml-gpu-not-listed", GP_SEV_WARNING,
					     "NVML does not list a GPU that CUDA sees: "
					     "nvidia-smi and monitoring do not show it",
					     REF_NVML },
	[GP_FINDING_NVDEC_FAILED] = { "nvdec-failed", GP_SEV_ERROR,
				      "cuvidGetDecoderCaps failed, the GPU's CUDA context for it "
				      "failed, or libnvcuvid lacks the function",
				      REF_VIDEO },
	[GP_FINDING_NVENC_FAILED] = { "nvenc-failed", GP_SEV_ERROR,
				      "NVENC's instance or an encode session failed (an old "
				      "library, GeForce's session limit)",
				      REF_VIDEO },
	[GP_FINDING_VIDEO_ENGINE_ABSENT] = { "video-engine-absent", GP_SEV_INFO,
					     "the GPU has no NVENC or no decoder for a codec "
					     "(the H200 has neither NVENC nor an AV1 decoder): not "
					     "a "
					     "fault",
					     REF_VIDEO_MATRIX },
	[GP_FINDING_VULKAN_FAILED] = { "vulkan-failed", GP_SEV_WARNING,
				       "the container's Vulkan loader finds no NVIDIA device (no "
				       "ICD, a loader older than 1.1); an error where the ini "
				       "injects graphics",
				       REF_VULKAN },
	/* a Proxmox VE cluster: what the nodes published in /etc/pve/gpu-provision/nodes */
	[GP_FINDING_CLUSTER_START_REFUSED] = { "cluster-start-refused", GP_SEV_WARNING,
					       "a container's selection, its driver (inject = "
					       "no) or its HMM policy does not fit what another "
					       "node of the cluster published: it cannot start "
					       "there",
					       REF_PVE_CLUSTER },
	[GP_FINDING_CLUSTER_START_DIFFERS] = { "cluster-start-differs", GP_SEV_INFO,
					       "a container would start on another node, with "
					       "another driver version injected or HMM left on",
					       REF_PVE_CLUSTER },
	[GP_FINDING_CLUSTER_NODE_UNPUBLISHED] = { "cluster-node-unpublished", GP_SEV_INFO,
						  "a node of the cluster (/etc/pve/nodes) has no "
						  "readable /etc/pve/gpu-provision/nodes/"
						  "<node>.json: its GPUs are unknown",
						  REF_PVE_CLUSTER },
	[GP_FINDING_CLUSTER_INVENTORY_STALE] = { "cluster-inventory-stale", GP_SEV_WARNING,
						 "this node's published file names another "
						 "driver, other GPUs or another HMM state than "
						 "the host has now",
						 REF_PVE_CLUSTER },
	[GP_FINDING_CLUSTER_NOT_QUORATE] = { "cluster-not-quorate", GP_SEV_WARNING,
					     "this node's cluster filesystem has no quorum "
					     "(/etc/pve/.members): it refuses every write, so "
					     "attach, detach, sync and prepare's publishing fail",
					     REF_PVE_CLUSTER },
	[GP_FINDING_INI_NODE_LOCAL] = { "ini-node-local", GP_SEV_WARNING,
					"a Proxmox VE container's ini is still in the node's "
					"confdir, not in /etc/pve/gpu-provision",
					REF_PVE_CLUSTER },
	/* the list itself */
	[GP_FINDING_FINDINGS_CAPPED] = { "findings-capped", GP_SEV_ERROR,
					 "more findings than one list holds: the rest are counted, "
					 "not shown",
					 NULL },
};
const size_t gp_finding_nkinds = GP_FINDING_COUNT;

int gp_finding_id_parse(const char *name, enum gp_finding_id *id)
{
	for (size_t i = 0; i < GP_FINDING_COUNT; i++) {
		if (strcmp(gp_finding_kinds[i].id, name) == 0) {
			*id = (enum gp_finding_id)i;
			return 0;
		}
	}
	return -ENOENT;
}

static struct gp_finding *put_kind(struct gp_findings *f, enum gp_finding_id id)
{
	struct gp_finding *x = &f->v[f->n++];

	memset(x, 0, sizeof(*x));
	x->id = gp_finding_kinds[id].id;
	x->severity = gp_finding_kinds[id].severity;
	x->refs = gp_finding_kinds[id].refs;
	return x;
}

/* The last slot says how many findings did not fit, and is the only one not given out. */
static void count_left_out(struct gp_findings *f)
{
	struct gp_finding *x = &f->v[GP_MAX_FINDINGS - 1];

	if (f->n < GP_MAX_FINDINGS)
		x = put_kind(f, GP_FINDING_FINDINGS_CAPPED);
	f->left_out++;
	GP_SET(x->summary, "%zu more finding(s) left out: one list holds %d", f->left_out,
	       GP_MAX_FINDINGS);
	GP_SET(x->evidence, "the first %d findings are shown above", GP_MAX_FINDINGS - 1);
	GP_SET(x->fix, "fix those first, then run check again");
}

struct gp_finding *gp_findings_add(struct gp_findings *f, enum gp_finding_id id)
{
	if (f->n >= GP_MAX_FINDINGS - 1) {
		count_left_out(f);
		return NULL;
	}
	return put_kind(f, id);
}

void gp_finding_put(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, size, fmt, ap);
	va_end(ap);
}

int gp_findings_errors(const struct gp_findings *f)
{
	int n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += f->v[i].severity == GP_SEV_ERROR;
	return n;
}

const char *gp_severity_name(enum gp_severity s)
{
	return s == GP_SEV_ERROR ? "error" : s == GP_SEV_WARNING ? "warning" : "info";
}

struct json_object *gp_findings_json(const struct gp_findings *f)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < f->n; i++) {
		const struct gp_finding *x = &f->v[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "id", json_object_new_string(x->id));
		json_object_object_add(o, "severity",
				       json_object_new_string(gp_severity_name(x->severity)));
		json_object_object_add(o, "summary", json_object_new_string(x->summary));
		json_object_object_add(o, "evidence", json_object_new_string(x->evidence));
		json_object_object_add(o, "fix", json_object_new_string(x->fix));
		json_object_object_add(o, "refs", json_object_new_string(x->refs ? x->refs : ""));
		json_object_array_add(a, o);
	}
	return a;
}

static const char *color(enum gp_severity s, bool tty)
{
	if (!tty)
		return "";
	return s == GP_SEV_ERROR ? "\033[31m" : s == GP_SEV_WARNING ? "\033[33m" : "\033[36m";
}

/* One field of a finding, escaped: evidence can quote what a container said. */
static void print_field(FILE *out, const char *indent, const char *label, const char *text)
{
	char esc[4 * sizeof(((struct gp_finding *)0)->evidence)];

	gp_escape(esc, sizeof(esc), text, strlen(text), false);
	fprintf(out, "%s%s%s\n", indent, label, esc);
}

void gp_findings_print(const struct gp_findings *f, FILE *out, const char *indent, bool tty)
{
	char more[32];

	snprintf(more, sizeof(more), "%s  ", indent);
	for (int sev = GP_SEV_ERROR; sev <= GP_SEV_INFO; sev++) {
		for (size_t i = 0; i < f->n; i++) {
			const struct gp_finding *x = &f->v[i];
			char esc[4 * sizeof(x->summary)];

			if ((int)x->severity != sev)
				continue;
			gp_escape(esc, sizeof(esc), x->summary, strlen(x->summary), false);
			fprintf(out, "%s%s%s%s %s: %s\n", indent, color(x->severity, tty),
				gp_severity_name(x->severity), tty ? "\033[0m" : "", x->id, esc);
			print_field(out, more, "evidence: ", x->evidence);
			if (x->fix[0])
				print_field(out, more, "fix:      ", x->fix);
			if (x->refs)
				print_field(out, more, "refs:     ", x->refs);
		}
	}
}
