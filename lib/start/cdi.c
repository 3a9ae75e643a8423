/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CDI spec of a start: what it gives, for the container's own Podman or Docker. */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "start/cdi.h"

/* The C library's own default directories, searched where a loader cache names no file. */
#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#else
#error "the CDI spec needs this architecture's Debian multiarch directory"
#endif
static const char *const default_dirs[] = { GP_INJECT_LIBDIR, "/usr/lib/" MULTIARCH, "/usr/lib64" };

bool gp_cdi_is_lib_path(const char *path, const char *soname)
{
	char want[128];

	for (size_t d = 0; d < GP_ARRAY_SIZE(default_dirs); d++) {
		snprintf(want, sizeof(want), "%s/%s", default_dirs[d], soname);
		if (strcmp(path, want) == 0)
			return true;
	}
	return false;
}

/* The spec's version: what Podman 4.3 (Debian 12) and Docker 26 (Debian 13) read. */
#define CDI_VERSION "0.5.0"

/* Set where json-c ran out of memory for a part: the spec is then not written at all. */
static bool short_of_memory;

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	if (!o || !v || json_object_object_add(o, key, v) < 0) {
		short_of_memory = true;
		json_object_put(v);
	}
}

static void push(struct json_object *a, struct json_object *v)
{
	if (!a || !v || json_object_array_add(a, v) < 0) {
		short_of_memory = true;
		json_object_put(v);
	}
}

static struct json_object *node_json(const struct gp_devnode *n)
{
	struct json_object *o = json_object_new_object();
	char path[96];

	snprintf(path, sizeof(path), "/dev/%s", n->name);
	add(o, "path", json_object_new_string(path));
	add(o, "type", json_object_new_string("c"));
	add(o, "major", json_object_new_int64(n->major));
	add(o, "minor", json_object_new_int64(n->minor));
	return o;
}

static struct json_object *mount_json(const char *host_path, const char *container_path)
{
	static const char *const options[] = { "ro", "nosuid", "nodev", "bind" };
	struct json_object *o = json_object_new_object(), *opts = json_object_new_array();

	add(o, "hostPath", json_object_new_string(host_path));
	add(o, "containerPath", json_object_new_string(container_path));
	for (size_t i = 0; i < GP_ARRAY_SIZE(options); i++)
		push(opts, json_object_new_string(options[i]));
	add(o, "options", opts);
	return o;
}

/* The plan's node of the GPU g: nvidia<minor>, by its UUID on host; NULL for none. */
static const struct gp_devnode *gpu_node(const struct gp_host *host, const struct gp_plan *plan,
					 const struct gp_plan_gpu *g)
{
	char name[32];

	for (size_t i = 0; i < host->ngpus; i++) {
		if (strcmp(host->gpus[i].uuid, g->uuid) != 0)
			continue;
		snprintf(name, sizeof(name), "nvidia%u", host->gpus[i].minor);
		for (size_t k = 0; k < plan->n; k++)
			if (strcmp(plan->nodes[k].name, name) == 0)
				return &plan->nodes[k];
	}
	return NULL;
}

static bool is_gpu_node(const struct gp_devnode *n)
{
	return strncmp(n->name, "nvidia", 6) == 0 && n->name[6] >= '0' && n->name[6] <= '9';
}

/* A device of the spec: its name, and the nodes of the GPUs it stands for. */
static struct json_object *device_json(const char *name, struct json_object *nodes)
{
	struct json_object *d = json_object_new_object(), *edits = json_object_new_object();

	add(d, "name", json_object_new_string(name));
	add(edits, "deviceNodes", nodes);
	add(d, "containerEdits", edits);
	return d;
}

/* A name CDI takes for a device: letters, digits, '_', '-', '.', ':'. */
static bool cdi_name_is_valid(const char *s)
{
	return *s &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:") ==
		   strlen(s);
}

/* One node as the devices array of a device. */
static struct json_object *nodes_of(const struct gp_devnode *n)
{
	struct json_object *a = json_object_new_array();

	push(a, node_json(n));
	return a;
}

/* The names of the GPU of index and uuid as a device: its index, and its UUID where CDI takes it.
 */
static void gpu_names(unsigned int index, const char *uuid, void (*fn)(const char *, void *),
		      void *u)
{
	char name[16];

	snprintf(name, sizeof(name), "%u", index);
	fn(name, u);
	if (cdi_name_is_valid(uuid))
		fn(uuid, u);
}

void gp_cdi_names(const struct gp_host *host, void (*fn)(const char *name, void *u), void *u)
{
	for (size_t i = 0; i < host->ngpus; i++)
		if (!host->gpus[i].excluded)
			gpu_names((unsigned int)host->gpus[i].index, host->gpus[i].uuid, fn, u);
	fn("all", u);
}

struct devices {
	struct json_object *array;
	const struct gp_devnode *node;
};

static void add_device(const char *name, void *u)
{
	struct devices *d = u;

	push(d->array, device_json(name, nodes_of(d->node)));
}

static struct json_object *devices_json(const struct gp_host *host, const struct gp_plan *plan)
{
	struct json_object *all = json_object_new_array();
	struct devices d = { json_object_new_array(), NULL };

	for (size_t i = 0; i < plan->ngpus; i++) {
		d.node = gpu_node(host, plan, &plan->gpus[i]);
		if (!d.node)
			continue;
		gpu_names(plan->gpus[i].index, plan->gpus[i].uuid, add_device, &d);
		push(all, node_json(d.node));
	}
	/* CDI refuses a device without edits: no all where no GPU was given. */
	if (all && json_object_array_length(all) > 0)
		push(d.array, device_json("all", all));
	else
		json_object_put(all);
	return d.array;
}

/* The soname of each library where a loader finds it, each program and manifest at its link. */
static struct json_object *mounts_json(const struct gp_inject *inj)
{
	struct json_object *mounts = json_object_new_array();
	char host_path[256], path[256];

	for (size_t i = 0; i < inj->n; i++) {
		const struct gp_inject_file *f = &inj->v[i];

		snprintf(host_path, sizeof(host_path), "%s/%s/%s", GP_INJECT_DIR,
			 gp_inject_dir(f->kind), f->name);
		if (f->kind != GP_INJECT_LIB) {
			push(mounts, mount_json(host_path, f->link));
			continue;
		}
		for (size_t d = 0; d < GP_ARRAY_SIZE(default_dirs); d++) {
			snprintf(path, sizeof(path), "%s/%s", default_dirs[d],
				 f->soname[0] ? f->soname : f->name);
			push(mounts, mount_json(host_path, path));
		}
	}
	return mounts;
}

char *gp_cdi_spec(const struct gp_host *host, const struct gp_plan *plan,
		  const struct gp_inject *inj)
{
	struct json_object *spec = json_object_new_object(), *edits = json_object_new_object();
	struct json_object *nodes = json_object_new_array(), *env = json_object_new_array();
	const char *out;
	char *text;

	short_of_memory = false;
	add(spec, "cdiVersion", json_object_new_string(CDI_VERSION));
	add(spec, "kind", json_object_new_string(GP_CDI_KIND));
	add(spec, "devices", devices_json(host, plan));
	for (size_t i = 0; i < plan->n; i++)
		if (!is_gpu_node(&plan->nodes[i]))
			push(nodes, node_json(&plan->nodes[i]));
	/* The nested container's own NVIDIA hook, if its image has one, adds nothing more. */
	push(env, json_object_new_string("NVIDIA_VISIBLE_DEVICES=void"));
	add(edits, "env", env);
	add(edits, "deviceNodes", nodes);
	add(edits, "mounts", mounts_json(inj));
	add(spec, "containerEdits", edits);
	out = spec ? json_object_to_json_string_ext(spec, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_SPACED |
							      JSON_C_TO_STRING_NOSLASHESCAPE)
		   : NULL;
	text = out && !short_of_memory ? strdup(out) : NULL;
	json_object_put(spec);
	return text;
}
