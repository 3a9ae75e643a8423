/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The NVIDIA provider (vendor.h): selectors (all, nvidia-smi index, GPU UUID, PCI address;
 * any:N and model:TEXT:N, which alloc.c resolves at each start) against the driver's GPUs, and
 * their nodes: nvidiactl, nvidiaN, nvidia-uvm(-tools) and the MIG caps, with the majors of
 * /proc/devices and the modes the driver asks for.
 */
#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/util.h"
#include "plan/select.h"
#include "plan/vendor.h"

static void normalize_pci(const char *tok, char *out, size_t size)
{
	size_t n = strlen(tok);

	/* "41:00.0" is short for domain 0000, as nvidia-smi prints it with -q. */
	snprintf(out, size, "%s%s", n == 7 ? "0000:" : "", tok);
	for (char *c = out; *c; c++)
		*c = (char)tolower((unsigned char)*c);
}

static bool looks_like_pci(const char *tok)
{
	size_t n = strlen(tok);

	return (n == 7 || n == 12) && tok[n - 2] == '.' && strchr(tok, ':');
}

/* Finds the GPU a single token names; returns its position, or says why not: -GP_EBADCONF. */
static int match_token(const char *tok, const struct gp_host *host, const char *where)
{
	char what[64], pci[32];
	unsigned int idx;

	if (gp_parse_uint(tok, &idx) == 0) {
		if (idx < host->ngpus)
			return (int)idx;
		gp_host_describe_indexes(host, what, sizeof(what));
		return gp_error_at(-GP_EBADCONF, where,
				   "no GPU has index %u (%s; see gpu-provision host)", idx, what);
	}
	if (strncasecmp(tok, "GPU-", 4) == 0) {
		for (size_t i = 0; i < host->ngpus; i++)
			if (strcasecmp(host->gpus[i].uuid, tok) == 0)
				return (int)i;
		return gp_error_at(-GP_EBADCONF, where,
				   "no GPU has UUID %s (see gpu-provision host)", tok);
	}
	if (strncasecmp(tok, "MIG-", 4) == 0) {
		return gp_error_at(-GP_EBADCONF, where,
				   "%s is a MIG device: select its GPU and give the instance "
				   "with caps = gpuM/giG/ciC",
				   tok);
	}
	if (looks_like_pci(tok)) {
		normalize_pci(tok, pci, sizeof(pci));
		for (size_t i = 0; i < host->ngpus; i++)
			if (strcmp(host->gpus[i].pci, pci) == 0)
				return (int)i;
		return gp_error_at(-GP_EBADCONF, where,
				   "no GPU at PCI address %s (see gpu-provision host)", pci);
	}
	return gp_error_at(-GP_EBADCONF, where,
			   "\"%s\" is not a GPU selector; use all, an index, a GPU-UUID, a PCI "
			   "address, any:N or model:TEXT:N",
			   tok);
}

static int select_all(const char *spec, const struct gp_host *host, const char *where, bool *chosen)
{
	if (strcmp(spec, "all") != 0)
		return gp_error_at(-GP_EBADCONF, where,
				   "\"all\" cannot be combined with other selectors");
	if (host->ngpus == 0)
		return gp_error_at(-GP_EBADCONF, where,
				   "\"all\" selects nothing: the host has no NVIDIA GPU");
	for (size_t i = 0; i < host->ngpus; i++)
		chosen[i] = true;
	return 0;
}

/*
 * any:N, model:TEXT:N: every GPU that may be one of them (the device rules attach writes
 * cover them all), as long as the host has N; alloc.c takes N free ones at each start.
 */
static int select_portable(const char *spec, const struct gp_host *host, const char *where,
			   bool *chosen)
{
	struct gp_portable p;
	unsigned int n = 0;
	int r = gp_portable_parse(spec, where, &p);

	memset(chosen, 0, GP_MAX_GPUS * sizeof(bool));
	if (r < 0)
		return r;
	for (size_t i = 0; i < host->ngpus; i++) {
		chosen[i] = gp_portable_matches(&p, &host->gpus[i]);
		n += chosen[i];
	}
	if (n >= p.count)
		return 0;
	memset(chosen, 0, GP_MAX_GPUS * sizeof(bool));
	if (p.model[0])
		return gp_error_at(-GP_EBADCONF, where,
				   "model:%s:%u wants %u GPU%s whose model contains \"%s\"; the "
				   "host has %u (see gpu-provision host)",
				   p.model, p.count, p.count, p.count == 1 ? "" : "s", p.model, n);
	return gp_error_at(-GP_EBADCONF, where, "any:%u wants %u GPU%s; the host has %u%s", p.count,
			   p.count, p.count == 1 ? "" : "s", n,
			   host->ngpus > n ? " not excluded by the driver" : "");
}

static int select_gpus(const char *spec, const struct gp_host *host, const char *where,
		       bool chosen[GP_MAX_GPUS])
{
	char copy[1024];
	char *save = NULL, *tok;
	size_t picked = 0;

	memset(chosen, 0, GP_MAX_GPUS * sizeof(bool));
	if (strlen(spec) >= sizeof(copy))
		return gp_error_at(-GP_EBADCONF, where, "selector list longer than %zu characters",
				   sizeof(copy) - 1);
	snprintf(copy, sizeof(copy), "%s", spec);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i;

		tok = gp_strtrim(tok);
		if (gp_selection_is_portable(tok))
			return select_portable(spec, host, where, chosen);
		if (strcmp(tok, "all") == 0)
			return select_all(gp_strtrim(strcpy(copy, spec)), host, where, chosen);
		i = match_token(tok, host, where);
		if (i < 0)
			return i;
		if (chosen[i])
			return gp_error_at(-GP_EBADCONF, where,
					   "GPU %d (%s) is selected twice; \"%s\" repeats it", i,
					   host->gpus[i].uuid, tok);
		chosen[i] = true;
		picked++;
	}
	if (picked == 0)
		return gp_error_at(-GP_EBADCONF, where,
				   "no GPU selected; give all, an index, a UUID or a PCI address");
	return 0;
}

static int add_node(struct gp_plan *plan, const char *where, const char *name, unsigned int major,
		    unsigned int minor, unsigned int mode, const struct gp_params *params)
{
	struct gp_devnode n = {
		.major = major, .minor = minor, .mode = mode, .uid = params->uid, .gid = params->gid
	};

	snprintf(n.name, sizeof(n.name), "%s", name);
	return gp_plan_add(plan, &n, where);
}

/* The mode the driver asks for a cap node, from its capabilities file; 0444 if unknown. */
static unsigned int cap_mode(const char *root, const char *capname)
{
	_cleanup_free_ char *rel = NULL, *buf = NULL;
	unsigned int gpu, gi, ci, mode = 0444;
	const char *p;
	int r = -1;

	if (strcmp(capname, "config") == 0 || strcmp(capname, "monitor") == 0)
		r = asprintf(&rel, "/proc/driver/nvidia/capabilities/mig/%s", capname);
	else if (sscanf(capname, "gpu%u/gi%u/ci%u/access", &gpu, &gi, &ci) == 3)
		r = asprintf(&rel, "/proc/driver/nvidia/capabilities/gpu%u/mig/gi%u/ci%u/access",
			     gpu, gi, ci);
	else if (sscanf(capname, "gpu%u/gi%u/access", &gpu, &gi) == 2)
		r = asprintf(&rel, "/proc/driver/nvidia/capabilities/gpu%u/mig/gi%u/access", gpu,
			     gi);
	if (r < 0 || gp_read_file_at(root, rel, 4096, &buf, NULL) < 0)
		return mode;
	p = strstr(buf, "DeviceFileMode:");
	if (p && sscanf(p + 15, "%u", &mode) != 1)
		mode = 0444;
	return mode;
}

static int add_cap(const char *root, const struct gp_host *host, const char *capname,
		   const char *where, struct gp_plan *plan)
{
	char node[64];
	int minor = gp_caps_lookup(&host->caps, capname);

	if (minor < 0)
		return gp_error_at(
		    -GP_EBADCONF, where,
		    "MIG capability \"%s\" is not in /proc/driver/nvidia-caps/mig-minors", capname);
	if (!host->majors.caps)
		return gp_error_at(-GP_EBADCONF, where,
				   "no \"nvidia-caps\" major in /proc/devices; is the driver "
				   "loaded with MIG support?");
	snprintf(node, sizeof(node), "nvidia-caps/nvidia-cap%d", minor);
	return add_node(plan, where, node, host->majors.caps, (unsigned int)minor,
			cap_mode(root, capname), &(struct gp_params){ .uid = 0, .gid = 0 });
}

static bool gpu_minor_chosen(const struct gp_host *host, const bool *chosen, unsigned int minor)
{
	for (size_t i = 0; i < host->ngpus; i++)
		if (chosen[i] && host->gpus[i].minor == minor)
			return true;
	return false;
}

/* One caps token: mig-config, mig-monitor, gpuM/giG, gpuM/giG/ciC (M is the device minor). */
static int add_caps_token(const char *root, const struct gp_host *host, const bool *chosen,
			  const char *tok, const char *where, struct gp_plan *plan)
{
	unsigned int gpu, gi, ci;
	char name[64], extra;
	int r;

	if (strcmp(tok, "mig-config") == 0)
		return add_cap(root, host, "config", where, plan);
	if (strcmp(tok, "mig-monitor") == 0)
		return add_cap(root, host, "monitor", where, plan);
	r = sscanf(tok, "gpu%u/gi%u/ci%u%c", &gpu, &gi, &ci, &extra);
	if (r < 2 || r == 4 || (r == 2 && sscanf(tok, "gpu%u/gi%u%c", &gpu, &gi, &extra) == 3))
		return gp_error_at(
		    -GP_EBADCONF, where,
		    "\"%s\" is not a cap; use mig-config, mig-monitor, gpuM/giG or gpuM/giG/ciC",
		    tok);
	if (!gpu_minor_chosen(host, chosen, gpu))
		return gp_error_at(-GP_EBADCONF, where,
				   "cap \"%s\" names the GPU with device minor %u, which is not "
				   "selected in devices",
				   tok, gpu);
	snprintf(name, sizeof(name), "gpu%u/gi%u/access", gpu, gi);
	r = add_cap(root, host, name, where, plan);
	if (r < 0)
		return r;
	if (sscanf(tok, "gpu%u/gi%u/ci%u", &gpu, &gi, &ci) != 3)
		return 0;
	snprintf(name, sizeof(name), "gpu%u/gi%u/ci%u/access", gpu, gi, ci);
	return add_cap(root, host, name, where, plan);
}

static int add_caps(const char *root, const struct gp_host *host, const bool *chosen,
		    const char *caps, const char *where, struct gp_plan *plan)
{
	char copy[1024];
	char *save = NULL, *tok;

	if (!caps || !*caps)
		return 0;
	snprintf(copy, sizeof(copy), "%s", caps);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int r = add_caps_token(root, host, chosen, gp_strtrim(tok), where, plan);
		if (r < 0)
			return r;
	}
	return 0;
}

static int check_driver(const struct gp_host *host, const char *where)
{
	if (!host->driver_loaded)
		return gp_error_at(-GP_EBADCONF, where,
				   "the NVIDIA driver is not loaded (no /proc/driver/nvidia/"
				   "version); load it with: modprobe nvidia");
	if (!host->majors.uvm)
		return gp_error_at(-GP_EBADCONF, where,
				   "nvidia_uvm is not loaded (no \"nvidia-uvm\" in /proc/devices)"
				   "; CUDA needs it: modprobe nvidia_uvm");
	return 0;
}

/* nvidiactl, the chosen GPUs (all when chosen is NULL) and, with uvm loaded, its two nodes. */
static void add_device_nodes(const struct gp_host *host, const bool *chosen, struct gp_plan *plan)
{
	unsigned int nv = host->majors.nvidia ? host->majors.nvidia : GP_MAJOR_NVIDIA;
	unsigned int mode = host->params.mode;

	/* At most GP_MAX_GPUS + 3 nodes: the plan has room for them. */
	add_node(plan, NULL, "nvidiactl", nv, GP_MINOR_NVIDIACTL, mode, &host->params);
	for (size_t i = 0; i < host->ngpus; i++) {
		char name[32];

		if (chosen && !chosen[i])
			continue;
		snprintf(name, sizeof(name), "nvidia%u", host->gpus[i].minor);
		add_node(plan, NULL, name, nv, host->gpus[i].minor, mode, &host->params);
	}
	if (!host->majors.uvm)
		return;
	add_node(plan, NULL, "nvidia-uvm", host->majors.uvm, 0, mode, &host->params);
	add_node(plan, NULL, "nvidia-uvm-tools", host->majors.uvm, 1, mode, &host->params);
}

static int plan_build(const char *root, const struct gp_host *host, const bool chosen[GP_MAX_GPUS],
		      const char *caps, const char *where, struct gp_plan *plan)
{
	int r;

	memset(plan, 0, sizeof(*plan));
	r = check_driver(host, where);
	if (r < 0)
		return r;
	add_device_nodes(host, chosen, plan);
	return add_caps(root, host, chosen, caps, where, plan);
}

/* Adds the access caps of instances that exist: capabilities/gpuM/mig/giG[/ciC]/access. */
static int add_existing_instances(const char *root, const struct gp_host *host,
				  struct gp_plan *plan)
{
	static const char *patterns[] = {
		"/proc/driver/nvidia/capabilities/gpu*/mig/gi*/access",
		"/proc/driver/nvidia/capabilities/gpu*/mig/gi*/ci*/access"
	};
	int r = 0;

	for (size_t k = 0; k < GP_ARRAY_SIZE(patterns) && r == 0; k++) {
		_cleanup_free_ char *pattern = gp_path(root, patterns[k]);
		size_t skip = strlen(pattern) - strlen(patterns[k]) +
			      strlen("/proc/driver/nvidia/capabilities/");
		glob_t g;

		if (!pattern || glob(pattern, 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc && r == 0; i++) {
			char name[64], *mig;

			snprintf(name, sizeof(name), "%s", g.gl_pathv[i] + skip);
			mig = strstr(name, "/mig/");
			if (!mig)
				continue;
			memmove(mig, mig + 4, strlen(mig + 4) + 1); /* gpu0/mig/gi1 -> gpu0/gi1 */
			/* An instance without a minor is none the driver made a node for. */
			if (gp_caps_lookup(&host->caps, name) >= 0)
				r = add_cap(root, host, name, NULL, plan);
		}
		globfree(&g);
	}
	return r;
}

/* X11, Wayland and Vulkan's display paths open nvidia-modeset, nvidia_modeset's node. */
static int plan_display(const char *root, const struct gp_host *host, const char *where,
			struct gp_plan *plan)
{
	_cleanup_free_ char *module = gp_path(root, "/sys/module/nvidia_modeset");

	if (!module)
		return -ENOMEM;
	if (access(module, F_OK) < 0) {
		gp_error("%s%s[driver] capabilities has graphics or display, which need "
			 "/dev/nvidia-modeset, but nvidia_modeset is not loaded: modprobe "
			 "nvidia_modeset, or take them out",
			 where ? where : "", where ? ": " : "");
		return -GP_EBADCONF;
	}
	return add_node(plan, where, "nvidia-modeset",
			host->majors.nvidia ? host->majors.nvidia : GP_MAJOR_NVIDIA,
			GP_MINOR_MODESET, host->params.mode, &host->params);
}

static int plan_all(const char *root, const struct gp_host *host, struct gp_plan *plan)
{
	int r = 0;

	memset(plan, 0, sizeof(*plan));
	if (!host->driver_loaded)
		return 0;
	add_device_nodes(host, NULL, plan);
	if (host->majors.caps && gp_caps_lookup(&host->caps, "config") >= 0)
		r = add_cap(root, host, "config", NULL, plan);
	if (r == 0 && host->majors.caps && gp_caps_lookup(&host->caps, "monitor") >= 0)
		r = add_cap(root, host, "monitor", NULL, plan);
	if (r == 0 && host->majors.caps)
		r = add_existing_instances(root, host, plan);
	return r;
}

static bool node_name_is_valid(const char *name)
{
	char canon[64];
	unsigned int n;

	if (strcmp(name, "nvidiactl") == 0 || strcmp(name, "nvidia-uvm") == 0 ||
	    strcmp(name, "nvidia-uvm-tools") == 0 || strcmp(name, "nvidia-modeset") == 0)
		return true;
	/* Numbered names must read back exactly as they would be printed. */
	if (sscanf(name, "nvidia%u", &n) == 1 && n < GP_MINOR_MODESET) {
		snprintf(canon, sizeof(canon), "nvidia%u", n);
		return strcmp(canon, name) == 0;
	}
	if (sscanf(name, "nvidia-caps/nvidia-cap%u", &n) == 1) {
		snprintf(canon, sizeof(canon), "nvidia-caps/nvidia-cap%u", n);
		return strcmp(canon, name) == 0;
	}
	return false;
}

const struct gp_vendor gp_vendor_nvidia = {
	.name = "nvidia",
	.select = select_gpus,
	.plan = plan_build,
	.plan_display = plan_display,
	.plan_all = plan_all,
	.node_name_is_valid = node_name_is_valid,
};
