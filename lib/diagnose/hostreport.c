/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision host: the same facts as JSON and as text. */
#include <string.h>

#include "base/paths.h"
#include "diagnose/hostreport.h"
#include "start/cdi.h"

static struct json_object *tristate_json(enum gp_tristate t)
{
	return t == GP_UNKNOWN ? NULL : json_object_new_boolean(t == GP_YES);
}

static struct json_object *major_json(unsigned int major)
{
	return major ? json_object_new_int((int)major) : NULL;
}

static struct json_object *gpu_json(const struct gp_gpu *g)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "index", json_object_new_int(g->index));
	json_object_object_add(o, "minor", json_object_new_int((int)g->minor));
	json_object_object_add(o, "pci", json_object_new_string(g->pci));
	json_object_object_add(o, "uuid", json_object_new_string(g->uuid));
	json_object_object_add(o, "model", json_object_new_string(g->model));
	json_object_object_add(o, "firmware", json_object_new_string(g->firmware));
	json_object_object_add(o, "excluded", json_object_new_boolean(g->excluded));
	return o;
}

static struct json_object *driver_json(const struct gp_host *h)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "loaded", json_object_new_boolean(h->driver_loaded));
	json_object_object_add(o, "version",
			       h->driver_loaded ? json_object_new_string(h->version) : NULL);
	json_object_object_add(o, "flavor",
			       h->driver_loaded ? json_object_new_string(gp_flavor_name(h->flavor))
						: NULL);
	json_object_object_add(o, "device_file_mode", json_object_new_int((int)h->params.mode));
	json_object_object_add(o, "device_file_uid", json_object_new_int((int)h->params.uid));
	json_object_object_add(o, "device_file_gid", json_object_new_int((int)h->params.gid));
	json_object_object_add(o, "modify_device_files",
			       json_object_new_boolean(h->params.modify != 0));
	return o;
}

static struct json_object *kernel_json(const struct gp_host *h)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "release", json_object_new_string(h->kernel_release));
	json_object_object_add(o, "config_source",
			       h->kconfig.source ? json_object_new_string(h->kconfig.source)
						 : NULL);
	json_object_object_add(o, "device_private", tristate_json(h->kconfig.device_private));
	json_object_object_add(o, "hmm_mirror", tristate_json(h->kconfig.hmm_mirror));
	json_object_object_add(o, "zone_device", tristate_json(h->kconfig.zone_device));
	return o;
}

static struct json_object *module_json(const struct gp_module *m)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "loaded", json_object_new_boolean(m->loaded));
	json_object_object_add(o, "use_count",
			       m->refcnt >= 0 ? json_object_new_int(m->refcnt) : NULL);
	json_object_object_add(o, "holders", json_object_new_string(m->holders));
	json_object_object_add(o, "modprobe_options", json_object_new_string(m->conf_options));
	return o;
}

static struct json_object *uvm_json(const struct gp_report *rep)
{
	struct json_object *o = json_object_new_object(), *ev = json_object_new_array();

	json_object_object_add(o, "loaded", json_object_new_boolean(rep->mods->uvm.loaded));
	json_object_object_add(o, "disable_hmm", tristate_json(rep->mods->uvm_disable_hmm));
	json_object_object_add(o, "hmm_active", tristate_json(rep->hmm->active));
	json_object_object_add(o, "hmm_active_with_disable_hmm_n",
			       tristate_json(rep->hmm->would_be_active));
	json_object_object_add(o, "hmm_source", json_object_new_string(rep->hmm->source));
	for (size_t i = 0; i < rep->hmm->n; i++)
		json_object_array_add(ev, json_object_new_string(rep->hmm->evidence[i]));
	json_object_object_add(o, "hmm_evidence", ev);
	json_object_object_add(
	    o, "ats_mode",
	    rep->mods->uvm_ats_mode >= 0 ? json_object_new_int(rep->mods->uvm_ats_mode) : NULL);
	return o;
}

static struct json_object *modules_json(const struct gp_modules *m)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "nvidia", module_json(&m->nvidia));
	json_object_object_add(o, "nvidia_uvm", module_json(&m->uvm));
	json_object_object_add(o, "nvidia_modeset", module_json(&m->modeset));
	return o;
}

/* Whether inj holds the host's file l names. */
static bool injected(const struct gp_inject *inj, const struct gp_userspace_lib *l)
{
	for (size_t i = 0; inj && i < inj->n; i++)
		if (inj->v[i].kind == GP_INJECT_LIB && strcmp(inj->v[i].name, l->file) == 0 &&
		    l->matches)
			return true;
	return false;
}

static struct json_object *userspace_json(const struct gp_userspace *u, const struct gp_inject *inj)
{
	struct json_object *o = json_object_new_object(), *libs = json_object_new_array();
	struct json_object *files = json_object_new_array();

	json_object_object_add(o, "cache", json_object_new_boolean(u->cache_found));
	for (size_t i = 0; i < u->n; i++) {
		const struct gp_userspace_lib *l = &u->v[i];
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "capability",
				       json_object_new_string(gp_capability_name(l->cap)));
		json_object_object_add(x, "soname", json_object_new_string(l->soname));
		json_object_object_add(x, "path", json_object_new_string(l->path));
		json_object_object_add(x, "file", json_object_new_string(l->file));
		json_object_object_add(x, "version", json_object_new_string(l->version));
		json_object_object_add(x, "matches_module", json_object_new_boolean(l->matches));
		json_object_object_add(x, "injected", json_object_new_boolean(injected(inj, l)));
		json_object_array_add(libs, x);
	}
	json_object_object_add(o, "libraries", libs);
	for (size_t i = 0; i < u->nfiles; i++) {
		const struct gp_userspace_file *uf = &u->files[i];
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "capability",
				       json_object_new_string(gp_capability_name(uf->cap)));
		json_object_object_add(
		    x, "kind", json_object_new_string(uf->program ? "program" : "manifest"));
		json_object_object_add(x, "path", json_object_new_string(uf->where));
		json_object_object_add(x, "file", json_object_new_string(uf->real));
		json_object_array_add(files, x);
	}
	json_object_object_add(o, "files", files);
	json_object_object_add(o, "persistenced_socket",
			       u->persistenced[0] ? json_object_new_string(u->persistenced) : NULL);
	return o;
}

/* One capability's line: what a start would inject of it, each library with its version. */
static void print_capability(const struct gp_userspace *u, const struct gp_inject *inj,
			     enum gp_capability c, FILE *f)
{
	bool any = false;

	for (size_t i = 0; i < u->n; i++) {
		const struct gp_userspace_lib *l = &u->v[i];

		if (l->cap != c || !injected(inj, l))
			continue;
		fprintf(f, "%s%s %s", any ? ", " : "", l->soname, l->version);
		any = true;
	}
	for (size_t i = 0; i < u->nfiles; i++) {
		if (u->files[i].cap != c)
			continue;
		fprintf(f, "%s%s", any ? ", " : "", u->files[i].where);
		any = true;
	}
	if (!any)
		fprintf(f, "none");
}

/* Per capability what a start injects, then the libraries it never would (another version). */
static void print_userspace(const struct gp_userspace *u, const struct gp_inject *inj,
			    const char *module, FILE *f)
{
	if (!u->cache_found) {
		fprintf(f, "user space: no /etc/ld.so.cache to find the driver's libraries in\n");
		return;
	}
	fprintf(f, "user space: %zu driver libraries in /etc/ld.so.cache; injected, at %s:\n", u->n,
		module[0] ? module : "an unknown module version");
	for (int c = 0; c < GP_CAP_COUNT; c++) {
		if (c == GP_CAP_DISPLAY)
			continue; /* graphics' files and /dev/nvidia-modeset */
		fprintf(f, "  %-9s ", gp_capability_name((enum gp_capability)c));
		print_capability(u, inj, (enum gp_capability)c, f);
		fputc('\n', f);
	}
	for (size_t i = 0; i < u->n; i++) {
		const struct gp_userspace_lib *l = &u->v[i];

		if (!l->matches)
			fprintf(f, "  not injected: %s %s (%s, not the module's %s)\n", l->soname,
				l->version[0] ? l->version : "?", l->path, module);
	}
	if (u->persistenced[0])
		fprintf(f,
			"  not injected: %s (a container's /run is its own tmpfs once it boots)\n",
			u->persistenced);
}

static struct json_object *runtime_json(const struct gp_runtime *rt)
{
	static const char *const from[] = { [GP_LAYOUT_HOST] = "host",
					    [GP_LAYOUT_CAPTURE] = "capture",
					    [GP_LAYOUT_ASSUMED] = "assumed" };
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "lxc", rt->lxc[0] ? json_object_new_string(rt->lxc) : NULL);
	json_object_object_add(o, "cgroup",
			       json_object_new_string(rt->layout == GP_CG_V1 ? "hybrid" : "v2"));
	json_object_object_add(o, "cgroup_from", json_object_new_string(from[rt->layout_from]));
	json_object_object_add(o, "pve", rt->pve ? json_object_new_int((int)rt->pve) : NULL);
	return o;
}

/* A GPU's names on a line of their own (its index first), then all. */
static void print_cdi_name(const char *name, void *u)
{
	bool first = (*name >= '0' && *name <= '9') || strcmp(name, "all") == 0;

	fprintf(u, "%s" GP_CDI_KIND "=%s", first ? "\n  " : "  ", name);
}

static void add_cdi_name(const char *name, void *u)
{
	json_object_array_add(u, json_object_new_string(name));
}

/* What an injecting start's CDI spec would name, given every GPU. */
static struct json_object *cdi_json(const struct gp_host *h)
{
	struct json_object *o = json_object_new_object(), *names = json_object_new_array();

	gp_cdi_names(h, add_cdi_name, names);
	json_object_object_add(o, "kind", json_object_new_string(GP_CDI_KIND));
	json_object_object_add(o, "file", json_object_new_string(GP_CDI_LINK));
	json_object_object_add(o, "devices", names);
	return o;
}

struct json_object *gp_report_json(const struct gp_report *rep)
{
	const struct gp_host *h = rep->host;
	const char *root = rep->root;
	struct json_object *o = json_object_new_object(), *gpus = json_object_new_array();
	struct json_object *majors = json_object_new_object();

	json_object_object_add(o, "root", json_object_new_string(root ? root : "/"));
	json_object_object_add(o, "runtime", runtime_json(rep->rt));
	json_object_object_add(o, "driver", driver_json(h));
	for (size_t i = 0; i < h->ngpus; i++)
		json_object_array_add(gpus, gpu_json(&h->gpus[i]));
	json_object_object_add(o, "gpus", gpus);
	json_object_object_add(majors, "nvidia", major_json(h->majors.nvidia));
	json_object_object_add(majors, "nvidia-uvm", major_json(h->majors.uvm));
	json_object_object_add(majors, "nvidia-caps", major_json(h->majors.caps));
	json_object_object_add(majors, "nvidia-caps-imex-channels",
			       major_json(h->majors.caps_imex));
	json_object_object_add(majors, "nvidia-nvlink", major_json(h->majors.nvlink));
	json_object_object_add(majors, "nvidia-nvswitch", major_json(h->majors.nvswitch));
	json_object_object_add(o, "majors", majors);
	json_object_object_add(o, "mig_cap_minors", json_object_new_int((int)h->caps.n));
	json_object_object_add(o, "uvm", uvm_json(rep));
	json_object_object_add(o, "modules", modules_json(rep->mods));
	json_object_object_add(o, "kernel", kernel_json(h));
	if (rep->userspace)
		json_object_object_add(o, "userspace", userspace_json(rep->userspace, rep->inject));
	if (rep->host->driver_loaded)
		json_object_object_add(o, "cdi", cdi_json(rep->host));
	json_object_object_add(o, "findings", json_object_new_array());
	return o;
}

static const char *tristate_text(enum gp_tristate t)
{
	return t == GP_YES ? "yes" : t == GP_NO ? "no" : "unknown";
}

static void print_gpus(const struct gp_host *h, FILE *f)
{
	fprintf(f, "GPUs:       %zu\n", h->ngpus);
	if (h->ngpus)
		fprintf(f, "  %-5s %-5s %-13s %-41s %-12s %s\n", "index", "minor", "pci", "uuid",
			"firmware", "model");
	for (size_t i = 0; i < h->ngpus; i++) {
		const struct gp_gpu *g = &h->gpus[i];

		fprintf(f, "  %-5d %-5u %-13s %-41s %-12s %s%s\n", g->index, g->minor, g->pci,
			g->uuid, g->firmware, g->model, g->excluded ? " (excluded)" : "");
	}
}

static void print_majors(const struct gp_host *h, FILE *f)
{
	fprintf(f, "majors:     nvidia %u", h->majors.nvidia);
	if (h->majors.uvm)
		fprintf(f, ", nvidia-uvm %u", h->majors.uvm);
	if (h->majors.caps)
		fprintf(f, ", nvidia-caps %u", h->majors.caps);
	fprintf(f, "%s\n", h->majors.uvm ? "" : " (no nvidia-uvm: nvidia_uvm not loaded)");
}

static void print_module(const struct gp_module *m, FILE *f)
{
	fprintf(f, "  %-15s %s", m->name, m->loaded ? "loaded" : "not loaded");
	if (m->loaded && m->refcnt >= 0)
		fprintf(f, ", use count %d", m->refcnt);
	else if (m->loaded)
		fprintf(f, ", use count unknown (cannot be unloaded)");
	if (m->holders[0])
		fprintf(f, ", held by %s", m->holders);
	if (m->conf_options[0])
		fprintf(f, "; modprobe.d: %s", m->conf_options);
	fprintf(f, "\n");
}

static void print_hmm(const struct gp_report *rep, FILE *f)
{
	fprintf(f, "HMM:        active %s (with uvm_disable_hmm=N: %s), from %s\n",
		tristate_text(rep->hmm->active), tristate_text(rep->hmm->would_be_active),
		rep->hmm->source);
	for (size_t i = 0; i < rep->hmm->n; i++)
		fprintf(f, "  - %s\n", rep->hmm->evidence[i]);
}

void gp_report_print(const struct gp_report *rep, FILE *f)
{
	const struct gp_host *h = rep->host;
	const char *root = rep->root;

	if (!gp_root_is_host(root))
		fprintf(f, "root:       %s (not this machine's driver)\n", root);
	fprintf(f, "runtime:    LXC %s, %s, read from %s\n",
		rep->rt->lxc[0] ? rep->rt->lxc : "unknown", gp_runtime_layout_words(rep->rt),
		gp_runtime_from_words(rep->rt));
	if (!h->driver_loaded) {
		fprintf(f, "driver:     not loaded (no /proc/driver/nvidia/version)\n");
		return;
	}
	fprintf(f, "driver:     %s (%s kernel module)\n", h->version, gp_flavor_name(h->flavor));
	fprintf(f, "kernel:     %s (CONFIG_DEVICE_PRIVATE %s, CONFIG_HMM_MIRROR %s, from %s)\n",
		h->kernel_release, tristate_text(h->kconfig.device_private),
		tristate_text(h->kconfig.hmm_mirror),
		h->kconfig.source ? h->kconfig.source : "nowhere");
	fprintf(f, "modules:\n");
	print_module(&rep->mods->nvidia, f);
	print_module(&rep->mods->uvm, f);
	print_module(&rep->mods->modeset, f);
	fprintf(f, "uvm:        uvm_disable_hmm %s, uvm_ats_mode %d\n",
		rep->mods->uvm_disable_hmm == GP_UNKNOWN ? "unknown"
		: rep->mods->uvm_disable_hmm == GP_YES	 ? "Y"
							 : "N",
		rep->mods->uvm_ats_mode);
	print_hmm(rep, f);
	fprintf(f, "nodes:      uid %u, gid %u, mode %04o, ModifyDeviceFiles %u\n", h->params.uid,
		h->params.gid, h->params.mode, h->params.modify);
	print_majors(h, f);
	fprintf(f, "MIG caps:   %zu minors in /proc/driver/nvidia-caps/mig-minors\n", h->caps.n);
	print_gpus(h, f);
	if (rep->userspace)
		print_userspace(rep->userspace, rep->inject, h->version, f);
	if (!h->driver_loaded)
		return; /* no GPU for a spec to name, as --json says by its absence */
	fprintf(f, "CDI:        %s of an injecting start (cdi = yes), for the GPUs it gets:",
		GP_CDI_LINK);
	gp_cdi_names(h, print_cdi_name, f);
	fputc('\n', f);
}
