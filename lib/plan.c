/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The plan of one start: exactly which nodes, with which numbers. */
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "paths.h"
#include "plan.h"
#include "util.h"

int gp_plan_error(int ret, const char *where, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gp_error("%s%s%s", where ? where : "", where ? ": " : "", msg);
	return ret;
}

static int add_node(struct gp_plan *plan, const char *where, const char *name, unsigned int major,
		    unsigned int minor, unsigned int mode, const struct gp_params *params)
{
	struct gp_node *n;

	if (plan->n == GP_PLAN_MAX_NODES)
		return gp_plan_error(-E2BIG, where, "more than %d nodes planned",
				     GP_PLAN_MAX_NODES);
	for (size_t i = 0; i < plan->n; i++)
		if (strcmp(plan->nodes[i].name, name) == 0)
			return 0;
	n = &plan->nodes[plan->n++];
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->major = major;
	n->minor = minor;
	n->mode = mode & 07777;
	n->uid = params->uid;
	n->gid = params->gid;
	return 0;
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
		return gp_plan_error(
		    -EINVAL, where,
		    "MIG capability \"%s\" is not in /proc/driver/nvidia-caps/mig-minors", capname);
	if (!host->majors.caps)
		return gp_plan_error(-EINVAL, where,
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
		return gp_plan_error(
		    -EINVAL, where,
		    "\"%s\" is not a cap; use mig-config, mig-monitor, gpuM/giG or gpuM/giG/ciC",
		    tok);
	if (!gpu_minor_chosen(host, chosen, gpu))
		return gp_plan_error(-EINVAL, where,
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
		return gp_plan_error(-EINVAL, where,
				     "the NVIDIA driver is not loaded (no /proc/driver/nvidia/"
				     "version); load it with: modprobe nvidia");
	if (!host->majors.uvm)
		return gp_plan_error(-EINVAL, where,
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

int gp_plan_build(const char *root, const struct gp_host *host, const bool chosen[GP_MAX_GPUS],
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

int gp_plan_all(const char *root, const struct gp_host *host, struct gp_plan *plan)
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

bool gp_node_name_is_valid(const char *name)
{
	char canon[64];
	unsigned int n;

	if (strcmp(name, "nvidiactl") == 0 || strcmp(name, "nvidia-uvm") == 0 ||
	    strcmp(name, "nvidia-uvm-tools") == 0)
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

#define PLAN_HEADER "gpu-provision-plan 1\n"

char *gp_plan_format(const struct gp_plan *plan)
{
	struct gp_buf b = { 0 };

	if (gp_buf_printf(&b, PLAN_HEADER) < 0)
		return NULL;
	for (size_t i = 0; i < plan->n; i++) {
		const struct gp_node *n = &plan->nodes[i];

		if (gp_buf_printf(&b, "node %s %u %u %04o %u %u\n", n->name, n->major, n->minor,
				  n->mode, n->uid, n->gid) < 0) {
			gp_buf_free(&b);
			return NULL;
		}
	}
	return b.data;
}

static int parse_node_line(const char *line, struct gp_node *n)
{
	char name[64];
	int used = 0;

	if (sscanf(line, "node %63s %u %u %o %u %u%n", name, &n->major, &n->minor, &n->mode,
		   &n->uid, &n->gid, &used) != 6 ||
	    line[used] != '\0')
		return -EINVAL;
	if (!gp_node_name_is_valid(name) || n->major == 0 || n->major > 4095 ||
	    n->minor > 1048575 || n->mode > 07777)
		return -EINVAL;
	snprintf(n->name, sizeof(n->name), "%s", name);
	return 0;
}

int gp_plan_parse(const char *buf, struct gp_plan *plan)
{
	const char *p;

	memset(plan, 0, sizeof(*plan));
	if (strncmp(buf, PLAN_HEADER, strlen(PLAN_HEADER)) != 0)
		return -EINVAL;
	for (p = buf + strlen(PLAN_HEADER); *p;) {
		const char *nl = strchr(p, '\n');
		char line[160];
		size_t n;

		if (!nl || (size_t)(nl - p) >= sizeof(line) || plan->n == GP_PLAN_MAX_NODES)
			return -EINVAL;
		n = (size_t)(nl - p);
		memcpy(line, p, n);
		line[n] = '\0';
		if (parse_node_line(line, &plan->nodes[plan->n]) < 0)
			return -EINVAL;
		plan->n++;
		p = nl + 1;
	}
	return 0;
}
