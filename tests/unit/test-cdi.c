/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CDI spec of a start (lib/start/cdi.c): the devices it gives and the files it injects. */
#include "unit.h"

#include <json-c/json.h>

#include "base/util.h"
#include "host/host.h"
#include "start/cdi.h"

#define INJECT                                                                                     \
	"gpu-provision-inject 1\n"                                                                 \
	"version 580.159.04\n"                                                                     \
	"ldconfig /usr/sbin/ldconfig 2049 1234\n"                                                  \
	"lib libcuda.so.580.159.04 libcuda.so.1 /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04\n" \
	"lib libnvidia-gpucomp.so.580.159.04 - /usr/lib/libnvidia-gpucomp.so.580.159.04\n"         \
	"bin nvidia-smi /usr/bin/nvidia-smi /usr/bin/nvidia-smi\n"

static struct gp_host quad;

static int setup(void **state)
{
	(void)state;
	return gp_host_read(FIXTURES "/quad-550-proprietary", GP_HOST_ALL, &quad) < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	gp_host_free(&quad);
	return 0;
}

static void add_node(struct gp_plan *p, const char *name, unsigned int major, unsigned int minor)
{
	struct gp_devnode *n = &p->nodes[p->n++];

	*n = (struct gp_devnode){ .major = major, .minor = minor, .mode = 0666 };
	snprintf(n->name, sizeof(n->name), "%s", name);
}

/* GPUs 1 and 3 of the quad host, as a start's plan gives them, and one the host lacks. */
static void plan_of(struct gp_plan *p)
{
	char name[32];

	memset(p, 0, sizeof(*p));
	add_node(p, "nvidiactl", 195, 255);
	for (int i = 1; i <= 3; i += 2) {
		snprintf(name, sizeof(name), "nvidia%u", quad.gpus[i].minor);
		add_node(p, name, 195, quad.gpus[i].minor);
		p->gpus[p->ngpus].index = (unsigned int)quad.gpus[i].index;
		snprintf(p->gpus[p->ngpus++].uuid, sizeof(p->gpus[0].uuid), "%s",
			 quad.gpus[i].uuid);
	}
	add_node(p, "nvidia-uvm", 238, 0);
	p->gpus[p->ngpus].index = 9;
	snprintf(p->gpus[p->ngpus++].uuid, sizeof(p->gpus[0].uuid), "GPU-not-here");
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, key, &v));
	return v;
}

static struct json_object *device(struct json_object *spec, const char *name)
{
	struct json_object *devices = get(spec, "devices");

	for (size_t i = 0; i < json_object_array_length(devices); i++) {
		struct json_object *d = json_object_array_get_idx(devices, i);

		if (strcmp(json_object_get_string(get(d, "name")), name) == 0)
			return d;
	}
	fail_msg("no device %s", name);
	return NULL;
}

/* The paths of a device's nodes, joined by spaces. */
static void paths_of(struct json_object *nodes, char *out, size_t size)
{
	out[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(nodes); i++)
		snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? " " : "",
			 json_object_get_string(get(json_object_array_get_idx(nodes, i), "path")));
}

static bool has_mount(struct json_object *spec, const char *host, const char *container)
{
	struct json_object *mounts = get(get(spec, "containerEdits"), "mounts");

	for (size_t i = 0; i < json_object_array_length(mounts); i++) {
		struct json_object *m = json_object_array_get_idx(mounts, i);
		const char *opts = json_object_to_json_string(get(m, "options"));

		if (strcmp(json_object_get_string(get(m, "hostPath")), host) == 0 &&
		    strcmp(json_object_get_string(get(m, "containerPath")), container) == 0 &&
		    strstr(opts, "\"ro\"") && strstr(opts, "\"nosuid\"") &&
		    strstr(opts, "\"nodev\""))
			return true;
	}
	return false;
}

/* A device per GPU by index and by UUID, and all; the other nodes for every device. */
static void devices(void **state)
{
	struct gp_plan *p = malloc(sizeof(*p));
	struct gp_inject *inj = malloc(sizeof(*inj));
	_cleanup_free_ char *text = NULL;
	struct json_object *spec, *d;
	char paths[256], want[256];

	(void)state;
	plan_of(p);
	assert_int_equal(gp_inject_parse(INJECT, inj), 0);
	text = gp_cdi_spec(&quad, p, inj);
	assert_non_null(text);
	spec = json_tokener_parse(text);
	assert_non_null(spec);
	assert_string_equal(json_object_get_string(get(spec, "kind")), "nvidia.com/gpu");
	assert_string_equal(json_object_get_string(get(spec, "cdiVersion")), "0.5.0");
	/* 1, its UUID, 3, its UUID, all: the GPU the host lacks is no device. */
	assert_int_equal(json_object_array_length(get(spec, "devices")), 5);
	d = device(spec, "1");
	paths_of(get(get(d, "containerEdits"), "deviceNodes"), paths, sizeof(paths));
	snprintf(want, sizeof(want), "/dev/nvidia%u", quad.gpus[1].minor);
	assert_string_equal(paths, want);
	assert_int_equal(
	    json_object_get_int(
		get(json_object_array_get_idx(get(get(d, "containerEdits"), "deviceNodes"), 0),
		    "minor")),
	    quad.gpus[1].minor);
	d = device(spec, quad.gpus[3].uuid);
	paths_of(get(get(d, "containerEdits"), "deviceNodes"), paths, sizeof(paths));
	snprintf(want, sizeof(want), "/dev/nvidia%u", quad.gpus[3].minor);
	assert_string_equal(paths, want);
	paths_of(get(get(device(spec, "all"), "containerEdits"), "deviceNodes"), paths,
		 sizeof(paths));
	snprintf(want, sizeof(want), "/dev/nvidia%u /dev/nvidia%u", quad.gpus[1].minor,
		 quad.gpus[3].minor);
	assert_string_equal(paths, want);
	paths_of(get(get(spec, "containerEdits"), "deviceNodes"), paths, sizeof(paths));
	assert_string_equal(paths, "/dev/nvidiactl /dev/nvidia-uvm");
	json_object_put(spec);
	free(p);
	free(inj);
}

/* Each library by its soname where a loader finds it; programs at their links; read-only. */
static void mounts(void **state)
{
	struct gp_plan *p = malloc(sizeof(*p));
	struct gp_inject *inj = malloc(sizeof(*inj));
	_cleanup_free_ char *text = NULL;
	struct json_object *spec;
	const char *cuda = "/usr/local/nvidia/lib64/libcuda.so.580.159.04";
	const char *comp = "/usr/local/nvidia/lib64/libnvidia-gpucomp.so.580.159.04";

	(void)state;
	plan_of(p);
	assert_int_equal(gp_inject_parse(INJECT, inj), 0);
	text = gp_cdi_spec(&quad, p, inj);
	spec = json_tokener_parse(text);
	assert_non_null(spec);
	assert_true(has_mount(spec, cuda, "/usr/local/nvidia/lib64/libcuda.so.1"));
	assert_true(has_mount(spec, cuda, "/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
	assert_true(has_mount(spec, cuda, "/usr/lib64/libcuda.so.1"));
	assert_false(has_mount(spec, cuda, "/usr/lib64/libcuda.so.580.159.04"));
	assert_true(has_mount(spec, comp, "/usr/lib64/libnvidia-gpucomp.so.580.159.04"));
	assert_true(has_mount(spec, "/usr/local/nvidia/bin/nvidia-smi", "/usr/bin/nvidia-smi"));
	assert_int_equal(json_object_array_length(get(get(spec, "containerEdits"), "mounts")), 7);
	assert_non_null(strstr(json_object_to_json_string(get(get(spec, "containerEdits"), "env")),
			       "NVIDIA_VISIBLE_DEVICES=void"));
	json_object_put(spec);
	free(p);
	free(inj);
}

/* A plan whose GPUs have no node in it (none the host has): no "all" of no node, which CDI
 * refuses as a device without edits. */
static void no_empty_all(void **state)
{
	struct gp_plan *p = malloc(sizeof(*p));
	struct gp_inject *inj = malloc(sizeof(*inj));
	_cleanup_free_ char *text = NULL;
	struct json_object *spec;

	(void)state;
	memset(p, 0, sizeof(*p));
	add_node(p, "nvidiactl", 195, 255);
	p->gpus[0].index = 9;
	snprintf(p->gpus[0].uuid, sizeof(p->gpus[0].uuid), "GPU-not-here");
	p->ngpus = 1;
	assert_int_equal(gp_inject_parse(INJECT, inj), 0);
	text = gp_cdi_spec(&quad, p, inj);
	spec = json_tokener_parse(text);
	assert_non_null(spec);
	assert_int_equal(json_object_array_length(get(spec, "devices")), 0);
	json_object_put(spec);
	free(p);
	free(inj);
}

/* Where the spec puts a library by its soname, as probe --nested reads libcuda's path. */
static void lib_paths(void **state)
{
	(void)state;
	assert_true(gp_cdi_is_lib_path("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so.1"));
	assert_true(gp_cdi_is_lib_path("/usr/lib64/libcuda.so.1", "libcuda.so.1"));
	assert_true(gp_cdi_is_lib_path(GP_INJECT_LIBDIR "/libcuda.so.1", "libcuda.so.1"));
	assert_false(gp_cdi_is_lib_path("/usr/lib/libcuda.so.1", "libcuda.so.1"));
	assert_false(gp_cdi_is_lib_path("/usr/lib64/libcuda.so.550.54.14", "libcuda.so.1"));
	assert_false(gp_cdi_is_lib_path("/usr/lib64/x/libcuda.so.1", "libcuda.so.1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(devices),
		cmocka_unit_test(mounts),
		cmocka_unit_test(no_empty_all),
		cmocka_unit_test(lib_paths),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
