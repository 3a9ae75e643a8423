/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A node's published file, /etc/pve/gpu-provision/nodes/<node>.json: the one writer and reader
 * of it (nodefile.h).
 */
#include <stdarg.h>
#include <string.h>

#include "base/quorum.h"
#include "base/util.h"
#include "driver/hoststate.h"
#include "cluster/nodefile.h"

/* --- what a node publishes ------------------------------------------------------------- */

void gp_node_inv_from_state(const char *node, const struct gp_host_state *s,
			    const struct gp_ini *defaults, long now, struct gp_node_inv *inv)
{
	const struct gp_host *h = &s->host;

	memset(inv, 0, sizeof(*inv));
	snprintf(inv->node, sizeof(inv->node), "%s", node);
	inv->written = now;
	snprintf(inv->tool, sizeof(inv->tool), "%s", GP_VERSION);
	inv->driver_loaded = h->driver_loaded;
	snprintf(inv->version, sizeof(inv->version), "%s", h->version);
	inv->flavor = h->flavor;
	inv->ngpus = h->ngpus < GP_MAX_GPUS ? h->ngpus : GP_MAX_GPUS;
	memcpy(inv->gpus, h->gpus, inv->ngpus * sizeof(inv->gpus[0]));
	inv->major_nvidia = h->majors.nvidia;
	inv->major_uvm = h->majors.uvm;
	inv->major_caps = h->majors.caps;
	inv->registered_majors = h->majors.registered;
	inv->uvm_loaded = s->mods.uvm.loaded;
	inv->uvm_disable_hmm = s->mods.uvm_disable_hmm;
	inv->hmm_active = s->hmm.active;
	inv->hmm_would_be_active = s->hmm.would_be_active;
	inv->disable_hmm = defaults->disable_hmm;
	inv->on_conflict = defaults->on_conflict;
	inv->inject = defaults->inject;
}

static struct json_object *tristate_json(enum gp_tristate t)
{
	return t == GP_UNKNOWN ? NULL : json_object_new_boolean(t == GP_YES);
}

static struct json_object *major_json(unsigned int major)
{
	return major ? json_object_new_int((int)major) : NULL;
}

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static struct json_object *major_set_json(const struct gp_major_set *set)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int m = 0; m < GP_CHAR_MAJORS; m++)
		if (gp_major_set_has(set, m))
			json_object_array_add(a, json_object_new_int((int)m));
	return a;
}

static struct json_object *gpus_json(const struct gp_node_inv *inv)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < inv->ngpus; i++) {
		const struct gp_gpu *g = &inv->gpus[i];
		struct json_object *o = json_object_new_object();

		add(o, "index", json_object_new_int(g->index));
		add(o, "minor", json_object_new_int((int)g->minor));
		add(o, "pci", json_object_new_string(g->pci));
		add(o, "uuid", json_object_new_string(g->uuid));
		add(o, "model", json_object_new_string(g->model));
		add(o, "excluded", json_object_new_boolean(g->excluded));
		json_object_array_add(a, o);
	}
	return a;
}

struct json_object *gp_node_inv_json(const struct gp_node_inv *inv)
{
	struct json_object *o = json_object_new_object(), *driver = json_object_new_object(),
			   *majors = json_object_new_object(), *uvm = json_object_new_object(),
			   *policy = json_object_new_object();

	add(o, "format", json_object_new_int(GP_CLUSTER_FORMAT));
	add(o, "node", json_object_new_string(inv->node));
	add(o, "written", json_object_new_int64(inv->written));
	add(o, "gpu_provision", json_object_new_string(inv->tool));
	add(driver, "loaded", json_object_new_boolean(inv->driver_loaded));
	add(driver, "version", inv->version[0] ? json_object_new_string(inv->version) : NULL);
	add(driver, "flavor", json_object_new_string(gp_flavor_name(inv->flavor)));
	add(o, "driver", driver);
	add(o, "gpus", gpus_json(inv));
	add(majors, "nvidia", major_json(inv->major_nvidia));
	add(majors, "nvidia-uvm", major_json(inv->major_uvm));
	add(majors, "nvidia-caps", major_json(inv->major_caps));
	add(majors, "registered", major_set_json(&inv->registered_majors));
	add(o, "majors", majors);
	add(uvm, "loaded", json_object_new_boolean(inv->uvm_loaded));
	add(uvm, "disable_hmm", tristate_json(inv->uvm_disable_hmm));
	add(uvm, "hmm_active", tristate_json(inv->hmm_active));
	add(uvm, "hmm_active_with_disable_hmm_n", tristate_json(inv->hmm_would_be_active));
	add(o, "uvm", uvm);
	add(policy, "disable_hmm", json_object_new_string(gp_hmm_policy_name(inv->disable_hmm)));
	add(policy, "on_conflict", json_object_new_string(gp_conflict_name(inv->on_conflict)));
	add(policy, "inject", json_object_new_string(inv->inject == GP_INJECT_YES ? "yes" : "no"));
	add(o, "policy", policy);
	return o;
}

/* --- reading a node's file back: typed, bounded, every field checked ------------------ */

struct reader {
	char *why;
	size_t size;
	int r;
};

static bool bad(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool bad(struct reader *rd, const char *fmt, ...)
{
	va_list ap;

	if (rd->r == 0) {
		va_start(ap, fmt);
		vsnprintf(rd->why, rd->size, fmt, ap);
		va_end(ap);
	}
	rd->r = -GP_EBADCONF;
	return false;
}

/*
 * o's member key of type t into *out: true when it is there with that type, false when
 * absent or null (a failure when required) or of another type (always a failure).
 */
static bool member(struct reader *rd, struct json_object *o, const char *key, enum json_type t,
		   bool required, struct json_object **out)
{
	*out = NULL;
	if (!o || !json_object_object_get_ex(o, key, out) || !*out) {
		*out = NULL;
		return required ? bad(rd, "\"%s\" is missing", key) : false;
	}
	if (!json_object_is_type(*out, t)) {
		*out = NULL;
		return bad(rd, "\"%s\" has the wrong type", key);
	}
	return true;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

static void get_string(struct reader *rd, struct json_object *o, const char *key, bool required,
		       char *dst, size_t size)
{
	struct json_object *v;
	const char *s;

	dst[0] = '\0';
	if (!member(rd, o, key, json_type_string, required, &v))
		return;
	s = json_object_get_string(v);
	if (strlen(s) >= size || !printable(s))
		bad(rd, "\"%s\" is too long or not printable", key);
	else
		snprintf(dst, size, "%s", s);
}

static long get_int(struct reader *rd, struct json_object *o, const char *key, bool required,
		    long min, long max)
{
	struct json_object *v;
	int64_t n;

	if (!member(rd, o, key, json_type_int, required, &v))
		return 0;
	n = json_object_get_int64(v);
	if (n < min || n > max)
		return bad(rd, "\"%s\" is out of range", key), 0;
	return (long)n;
}

static bool get_bool(struct reader *rd, struct json_object *o, const char *key, bool required)
{
	struct json_object *v;

	return member(rd, o, key, json_type_boolean, required, &v) && json_object_get_boolean(v);
}

/* true, false or null (unknown), as gpu-provision host writes a tristate. */
static enum gp_tristate get_tristate(struct reader *rd, struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!member(rd, o, key, json_type_boolean, false, &v))
		return GP_UNKNOWN;
	return json_object_get_boolean(v) ? GP_YES : GP_NO;
}

static void read_gpu(struct reader *rd, struct json_object *o, struct gp_gpu *g)
{
	if (!json_object_is_type(o, json_type_object)) {
		bad(rd, "a GPU is not an object");
		return;
	}
	g->index = (int)get_int(rd, o, "index", true, 0, GP_MAX_GPUS - 1);
	g->minor = (unsigned int)get_int(rd, o, "minor", true, 0, 255);
	get_string(rd, o, "pci", true, g->pci, sizeof(g->pci));
	get_string(rd, o, "uuid", true, g->uuid, sizeof(g->uuid));
	get_string(rd, o, "model", false, g->model, sizeof(g->model));
	g->excluded = get_bool(rd, o, "excluded", false);
}

static void read_gpus(struct reader *rd, struct json_object *top, struct gp_node_inv *inv)
{
	struct json_object *a;
	size_t n;

	if (!member(rd, top, "gpus", json_type_array, true, &a))
		return;
	n = json_object_array_length(a);
	if (n > GP_MAX_GPUS) {
		bad(rd, "\"gpus\" lists %zu GPUs, more than %d", n, GP_MAX_GPUS);
		return;
	}
	for (size_t i = 0; i < n && rd->r == 0; i++)
		read_gpu(rd, json_object_array_get_idx(a, i), &inv->gpus[i]);
	inv->ngpus = n;
}

/* The node's defaults, read by the ini's own table of words. */
static void read_policy(struct reader *rd, struct json_object *top, struct gp_node_inv *inv)
{
	static const char *const keys[][2] = { { "uvm", "disable_hmm" },
					       { "uvm", "on_conflict" },
					       { "driver", "inject" } };
	struct gp_log_capture quiet;
	struct json_object *o;
	struct gp_ini conf;

	gp_ini_init(&conf);
	if (member(rd, top, "policy", json_type_object, false, &o)) {
		gp_log_capture_start(&quiet);
		for (size_t i = 0; i < GP_ARRAY_SIZE(keys); i++) {
			char word[16];

			get_string(rd, o, keys[i][1], false, word, sizeof(word));
			if (word[0] &&
			    gp_ini_set(&conf, keys[i][0], keys[i][1], word, "policy") < 0)
				bad(rd, "\"policy\".\"%s\" is \"%s\"", keys[i][1], word);
		}
		gp_log_capture_stop(&quiet);
	}
	inv->disable_hmm = conf.disable_hmm;
	inv->on_conflict = conf.on_conflict;
	inv->inject = conf.inject;
}

static void read_driver(struct reader *rd, struct json_object *top, struct gp_node_inv *inv)
{
	struct json_object *o;
	char flavor[16];

	if (!member(rd, top, "driver", json_type_object, true, &o))
		return;
	inv->driver_loaded = get_bool(rd, o, "loaded", true);
	get_string(rd, o, "version", false, inv->version, sizeof(inv->version));
	get_string(rd, o, "flavor", false, flavor, sizeof(flavor));
	inv->flavor = strcmp(flavor, "open") == 0	   ? GP_FLAVOR_OPEN
		      : strcmp(flavor, "proprietary") == 0 ? GP_FLAVOR_PROPRIETARY
							   : GP_FLAVOR_UNKNOWN;
}

static void read_major_set(struct reader *rd, struct json_object *o, const char *key,
			   struct gp_major_set *set)
{
	struct json_object *a, *v;
	size_t n;

	if (!member(rd, o, key, json_type_array, true, &a))
		return;
	n = json_object_array_length(a);
	if (n > GP_CHAR_MAJORS) {
		bad(rd, "\"%s\" lists %zu majors, more than %d", key, n, GP_CHAR_MAJORS);
		return;
	}
	for (size_t i = 0; i < n && rd->r == 0; i++) {
		v = json_object_array_get_idx(a, i);
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0 ||
		    json_object_get_int64(v) >= GP_CHAR_MAJORS)
			bad(rd, "\"%s\" holds a value that is no major", key);
		else
			gp_major_set_add(set, (unsigned int)json_object_get_int64(v));
	}
}

static void read_modules(struct reader *rd, struct json_object *top, struct gp_node_inv *inv)
{
	struct json_object *o;

	if (member(rd, top, "majors", json_type_object, true, &o)) {
		inv->major_nvidia = (unsigned int)get_int(rd, o, "nvidia", false, 0, 4095);
		inv->major_uvm = (unsigned int)get_int(rd, o, "nvidia-uvm", false, 0, 4095);
		inv->major_caps = (unsigned int)get_int(rd, o, "nvidia-caps", false, 0, 4095);
		read_major_set(rd, o, "registered", &inv->registered_majors);
	}
	inv->uvm_disable_hmm = inv->hmm_active = inv->hmm_would_be_active = GP_UNKNOWN;
	if (member(rd, top, "uvm", json_type_object, false, &o)) {
		inv->uvm_loaded = get_bool(rd, o, "loaded", false);
		inv->uvm_disable_hmm = get_tristate(rd, o, "disable_hmm");
		inv->hmm_active = get_tristate(rd, o, "hmm_active");
		inv->hmm_would_be_active = get_tristate(rd, o, "hmm_active_with_disable_hmm_n");
	}
}

int gp_node_inv_parse(const char *buf, const char *node, struct gp_node_inv *inv, char *why,
		      size_t size)
{
	struct reader rd = { .why = why, .size = size };
	struct json_tokener *tok = json_tokener_new();
	struct json_object *top = tok ? json_tokener_parse_ex(tok, buf, (int)strlen(buf)) : NULL;

	memset(inv, 0, sizeof(*inv));
	why[0] = '\0';
	if (!top || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(top, json_type_object))
		bad(&rd, "not a JSON object");
	/* Newer formats only add fields: what this code knows of them it reads. */
	if (rd.r == 0)
		get_int(&rd, top, "format", true, 1, 1000);
	get_string(&rd, top, "node", true, inv->node, sizeof(inv->node));
	if (rd.r == 0 && strcmp(inv->node, node) != 0)
		bad(&rd, "\"node\" is \"%s\", not the file's name", inv->node);
	inv->written = get_int(&rd, top, "written", true, 0, (long)1 << 40);
	get_string(&rd, top, "gpu_provision", false, inv->tool, sizeof(inv->tool));
	read_driver(&rd, top, inv);
	read_gpus(&rd, top, inv);
	read_modules(&rd, top, inv);
	read_policy(&rd, top, inv);
	if (top)
		json_object_put(top);
	if (tok)
		json_tokener_free(tok);
	return rd.r;
}

/* Makes <root>rel when it is missing; pmxcfs without quorum refuses even a mkdir of one. */
static int ensure_dir(const char *root, const char *rel)
{
	_cleanup_free_ char *dir = gp_path(root, rel);
	struct stat st;

	if (!dir)
		return -ENOMEM;
	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	return mkdir(dir, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

int gp_cluster_publish(const char *root, const struct gp_node_inv *inv)
{
	_cleanup_free_ char *path = gp_cluster_node_path(root, inv->node);
	struct json_object *o;
	const char *text;
	int r;

	if (!path)
		return -ENOMEM;
	r = ensure_dir(root, GP_CLUSTER_DIR);
	if (r == 0)
		r = ensure_dir(root, GP_CLUSTER_DIR "/nodes");
	if (r == 0) {
		o = gp_node_inv_json(inv);
		text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							     JSON_C_TO_STRING_NOSLASHESCAPE);
		r = gp_write_file_atomic(path, text, strlen(text), GP_CLUSTER_MODE, GP_DURABLE);
		json_object_put(o);
	}
	if (r < 0)
		gp_warn("Failed to publish this node's GPUs to \"%s\": %s%s%s; the other nodes' "
			"check sees the last file until prepare runs again",
			path, gp_strerror(-r), *gp_pve_write_refused(path, r) ? ": " : "",
			gp_pve_write_refused(path, r));
	return r;
}
