/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision check: the host, its driver, modules, nodes and daemons, as findings with fixes. */
#include <dirent.h>
#include <glob.h>
#include <lxc/lxccontainer.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/ctx.h"
#include "base/paths.h"
#include "base/util.h"
#include "check/check.h"
#include "config/ini.h"
#include "plan/plan.h"
#include "plan/planner.h"

int gp_check_run_init(struct gp_check_run *run, const struct gp_ctx *ctx,
		      const struct gp_runtime *rt)
{
	const char *root = ctx->root;
	int r;

	memset(run, 0, sizeof(*run));
	run->ctx = ctx;
	run->rt = *rt;
	r = gp_host_state_read(root, GP_STATE_NVML, &run->hs);
	if (r < 0)
		return r;
	gp_read_file_at(root, "/proc/cmdline", 65536, &run->cmdline, NULL);
	return 0;
}

void gp_check_run_free(struct gp_check_run *run)
{
	gp_host_state_free(&run->hs);
	free(run->cmdline);
}

static void check_gpus(const struct gp_check_run *run, struct gp_findings *f)
{
	for (size_t i = 0; i < run->hs.host.ngpus; i++) {
		const struct gp_gpu *g = &run->hs.host.gpus[i];
		struct gp_finding *x;

		if (!g->excluded || !(x = gp_findings_add(f, GP_FINDING_GPU_EXCLUDED)))
			continue;
		GP_SET(x->summary, "GPU %zu (%s, %s) is excluded by the driver", i, g->pci,
		       g->uuid);
		GP_SET(x->evidence, "/proc/driver/nvidia/gpus/%s/information: GPU Excluded: Yes",
		       g->pci);
		GP_SET(x->fix,
		       "remove it from NVreg_ExcludedGpus (modprobe.d) and reload the driver, "
		       "or do not select it");
	}
}

/* The kernel's extra firmware directory (firmware_class.path), if one is set. */
static char *firmware_class_path(const char *root)
{
	char *buf = NULL;

	char *trimmed;

	if (gp_read_file_at(root, "/sys/module/firmware_class/parameters/path", 4096, &buf, NULL) <
	    0)
		return NULL;
	trimmed = gp_strtrim(buf);
	if (!*trimmed) {
		free(buf);
		return NULL;
	}
	memmove(buf, trimmed, strlen(trimmed) + 1);
	return buf;
}

/* The open module needs GSP firmware files of its exact version. */
static void check_firmware(const struct gp_check_run *run, struct gp_findings *f)
{
	_cleanup_free_ char *custom = firmware_class_path(run->ctx->root);
	const char *dirs[] = { "/lib/firmware", "/usr/lib/firmware", custom };
	struct gp_finding *x;

	if (run->hs.host.flavor != GP_FLAVOR_OPEN)
		return;
	for (size_t i = 0; i < GP_ARRAY_SIZE(dirs); i++) {
		_cleanup_free_ char *rel = NULL, *pattern = NULL;
		glob_t g;
		bool found;

		if (!dirs[i])
			continue;
		if (asprintf(&rel, "%s/nvidia/%s/gsp_*.bin", dirs[i], run->hs.host.version) < 0 ||
		    !(pattern = gp_path(run->ctx->root, rel)))
			return;
		found = glob(pattern, 0, NULL, &g) == 0;
		if (found)
			globfree(&g);
		if (found)
			return;
	}
	x = gp_findings_add(f, GP_FINDING_GSP_FIRMWARE_MISSING);
	if (!x)
		return;
	GP_SET(x->summary, "no GSP firmware files for %s on disk", run->hs.host.version);
	GP_SET(x->evidence,
	       "no nvidia/%s/gsp_*.bin under /lib/firmware, /usr/lib/firmware%s%s; GPU 0 "
	       "reports GPU Firmware: %s",
	       run->hs.host.version, custom ? " or " : "", custom ? custom : "",
	       run->hs.host.ngpus ? run->hs.host.gpus[0].firmware : "-");
	GP_SET(x->fix,
	       "install the firmware package of driver %s (the open module does not load "
	       "without it at the next boot)",
	       run->hs.host.version);
}

static void check_uvm(const struct gp_check_run *run, struct gp_findings *f)
{
	struct gp_finding *x;
	char ev[512] = "";
	size_t len = 0;

	if (!run->hs.host.majors.uvm && (x = gp_findings_add(f, GP_FINDING_UVM_NOT_LOADED))) {
		GP_SET(x->summary, "nvidia_uvm is not loaded: CUDA cannot initialise anywhere");
		GP_SET(x->evidence, "no nvidia-uvm line in /proc/devices");
		GP_SET(x->fix, "gpu-provision prepare  (loads it as the [uvm] policy wants)");
	}
	if (run->hs.hmm.active != GP_YES || !(x = gp_findings_add(f, GP_FINDING_HMM_ACTIVE)))
		return;
	for (size_t i = 0; i < run->hs.hmm.n && len < sizeof(ev); i++)
		len += (size_t)snprintf(ev + len, sizeof(ev) - len, "%s%s", i ? "; " : "",
					run->hs.hmm.evidence[i]);
	GP_SET(x->summary, "HMM is active in nvidia_uvm (from %s)", run->hs.hmm.source);
	GP_SET(x->evidence, "%s", ev);
	GP_SET(x->fix,
	       "gpu-provision prepare --persist, then reload nvidia_uvm (gpu-provision prepare "
	       "when nothing uses it) or reboot");
}

static void host_node_finding(const struct gp_check_run *run, const struct gp_devnode *n,
			      struct gp_findings *f)
{
	_cleanup_free_ char *rel = NULL, *path = NULL;
	struct gp_finding *x;
	struct stat st;

	if (asprintf(&rel, "/dev/%s", n->name) < 0 || !(path = gp_path(run->ctx->root, rel)))
		return;
	if (lstat(path, &st) < 0) {
		if ((x = gp_findings_add(f, GP_FINDING_HOST_NODE_MISSING))) {
			GP_SET(x->summary, "/dev/%s is missing on the host", n->name);
			GP_SET(x->evidence, "lstat(\"%s\"): no such file; the driver has c %u:%u",
			       path, n->major, n->minor);
			GP_SET(x->fix,
			       "gpu-provision prepare (and enable gpu-provision-prepare.service "
			       "so it is made at boot)");
		}
		return;
	}
	if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(n->major, n->minor)) {
		if ((x = gp_findings_add(f, GP_FINDING_HOST_NODE_STALE))) {
			GP_SET(x->summary, "/dev/%s is not today's c %u:%u", n->name, n->major,
			       n->minor);
			GP_SET(x->evidence, "%s is %s %u:%u", path,
			       S_ISCHR(st.st_mode) ? "c" : "not a char device", major(st.st_rdev),
			       minor(st.st_rdev));
			GP_SET(x->fix, "gpu-provision prepare  (replaces stale nodes)");
		}
		return;
	}
	if (((st.st_mode & 07777) != n->mode || st.st_uid != n->uid || st.st_gid != n->gid) &&
	    (x = gp_findings_add(f, GP_FINDING_HOST_NODE_MODE))) {
		GP_SET(x->summary, "/dev/%s has mode %04o %u:%u, the driver asks %04o %u:%u",
		       n->name, st.st_mode & 07777, st.st_uid, st.st_gid, n->mode, n->uid, n->gid);
		GP_SET(x->evidence, "%s; /proc/driver/nvidia/params (DeviceFileMode/UID/GID)",
		       path);
		GP_SET(x->fix, "chmod %04o %s && chown %u:%u %s", n->mode, path, n->uid, n->gid,
		       path);
	}
}

static void check_host_nodes(const struct gp_check_run *run, struct gp_findings *f)
{
	struct gp_plan plan;

	if (gp_plan_all(run->ctx->root, &run->hs.host, &plan) < 0)
		return;
	for (size_t i = 0; i < plan.n; i++)
		host_node_finding(run, &plan.nodes[i], f);
}

/* 1 when a process named comm (as /proc/PID/comm shows it) runs, 0 if not, -1 unknown. */
static int process_running(const char *root, const char *comm)
{
	_cleanup_free_ char *proc = gp_path(root, "/proc");
	DIR *d = proc ? opendir(proc) : NULL;
	struct dirent *e;
	int seen = -1;

	while (d && (e = readdir(d))) {
		_cleanup_free_ char *path = NULL, *buf = NULL;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		if (seen < 0)
			seen = 0;
		if (asprintf(&path, "%s/%s/comm", proc, e->d_name) < 0 ||
		    gp_read_file(path, 64, &buf, NULL) < 0)
			continue;
		if (strcmp(gp_strtrim(buf), comm) == 0) {
			seen = 1;
			break;
		}
	}
	if (d)
		closedir(d);
	return seen;
}

static bool has_nvswitch(const char *root)
{
	_cleanup_free_ char *pattern = gp_path(root, "/proc/driver/nvidia-nvswitch/devices/*");
	glob_t g;
	bool found = pattern && glob(pattern, 0, NULL, &g) == 0;

	if (found)
		globfree(&g);
	return found;
}

static void check_daemons(const struct gp_check_run *run, struct gp_findings *f)
{
	struct gp_finding *x;

	if (process_running(run->ctx->root, "nvidia-persiste") == 0 &&
	    (x = gp_findings_add(f, GP_FINDING_PERSISTENCED_MISSING))) {
		GP_SET(x->summary, "nvidia-persistenced is not running");
		GP_SET(x->evidence, "no process named nvidia-persistenced");
		GP_SET(x->fix,
		       "systemctl enable --now nvidia-persistenced  (keeps the GPUs initialised "
		       "between container starts)");
	}
	if (has_nvswitch(run->ctx->root) &&
	    process_running(run->ctx->root, "nv-fabricmanage") == 0 &&
	    (x = gp_findings_add(f, GP_FINDING_FABRIC_MANAGER_MISSING))) {
		GP_SET(x->summary, "NVSwitch system without the fabric manager");
		GP_SET(x->evidence, "/proc/driver/nvidia-nvswitch/devices lists switches; no "
				    "nv-fabricmanager process");
		GP_SET(x->fix,
		       "install nvidia-fabricmanager %s and systemctl enable --now "
		       "nvidia-fabricmanager",
		       run->hs.host.version);
	}
}

static const char *const kmsg_signatures[] = {
	"NVRM: Xid",
	"has fallen off the bus",
	"RmInitAdapter failed",
	"request_free_mem_region() err -34",
	"failed to intialize device private memory",
};

static void check_kernel(const struct gp_check_run *run, struct gp_findings *f)
{
	struct gp_finding *x;

	if (run->hs.hmm.would_be_active == GP_YES && run->cmdline &&
	    !strstr(run->cmdline, "nokaslr") && (x = gp_findings_add(f, GP_FINDING_NOKASLR_HINT))) {
		GP_SET(x->summary, "HMM would be active, and the kernel runs with KASLR");
		GP_SET(x->evidence, "/proc/cmdline has no nokaslr");
		GP_SET(x->fix,
		       "keep uvm_disable_hmm=1 (gpu-provision prepare --persist), or add nokaslr "
		       "to the kernel command line");
	}
	for (size_t i = 0; run->hs.kmsg && i < GP_ARRAY_SIZE(kmsg_signatures); i++) {
		const char *hit = strstr(run->hs.kmsg, kmsg_signatures[i]);
		const char *eol = hit ? strchr(hit, '\n') : NULL;

		if (!hit || !(x = gp_findings_add(f, GP_FINDING_KMSG_SIGNATURE)))
			continue;
		GP_SET(x->summary, "the kernel log has \"%s\"", kmsg_signatures[i]);
		GP_SET(x->evidence, "%.*s", eol ? (int)(eol - hit) : 200, hit);
		GP_SET(x->fix,
		       "see the driver's messages around it (dmesg | grep -i nvrm); for HMM: "
		       "gpu-provision prepare --persist");
	}
}

/* The host's defaults: a file that is there and refused stops every start that reads it. */
static void check_hostconf(const struct gp_check_run *run, struct gp_findings *f)
{
	struct gp_log_capture why;
	struct gp_ini conf;
	struct gp_finding *x;
	int r;

	gp_log_capture_start(&why);
	r = gp_hostconf_load(run->ctx, &conf);
	gp_log_capture_stop(&why);
	if (r == 0 || !(x = gp_findings_add(f, GP_FINDING_INI_INVALID)))
		return;
	GP_SET(x->summary, "the host's %s is refused: every start with gpu-hook would be too",
	       GP_HOSTCONF_NAME);
	GP_SET(x->evidence, "%s", why.text);
	GP_SET(x->fix, "correct the file as the message says (conf/example.ini has every key)");
}

/* A capture that does not say its cgroup layout: which one its rules are judged by. */
static void check_layout_known(const struct gp_check_run *run, struct gp_findings *f)
{
	struct gp_finding *x;

	if (run->rt.layout_from != GP_LAYOUT_ASSUMED ||
	    !(x = gp_findings_add(f, GP_FINDING_CGROUP_LAYOUT_ASSUMED)))
		return;
	GP_SET(x->summary, "device rules are judged as on a %s host: this host's layout",
	       gp_runtime_layout_words(&run->rt));
	GP_SET(x->evidence, "no %s/proc/self/mountinfo", run->ctx->root);
	GP_SET(x->fix, "capture the host with tools/capture-host.sh, which records it");
}

void gp_check_host(const struct gp_check_run *run, struct gp_findings *f)
{
	struct gp_finding *x;

	check_layout_known(run, f);
	check_hostconf(run, f);
	if (!run->hs.host.driver_loaded) {
		if ((x = gp_findings_add(f, GP_FINDING_DRIVER_MISSING))) {
			GP_SET(x->summary, "the NVIDIA driver is not loaded");
			GP_SET(x->evidence, "no /proc/driver/nvidia/version");
			GP_SET(x->fix,
			       "gpu-provision prepare  (modprobe nvidia), or install the driver");
		}
		return;
	}
	check_gpus(run, f);
	check_firmware(run, f);
	check_uvm(run, f);
	check_host_nodes(run, f);
	check_daemons(run, f);
	check_kernel(run, f);
}
