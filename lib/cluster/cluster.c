/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cluster through Proxmox VE's cluster filesystem: what each node publishes of its GPUs,
 * every container's ini, whether a container could start on a node, and the guests' state
 * that Proxmox itself shares (.rrd).
 */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/util.h"
#include "cluster/cluster.h"
#include "driver/hoststate.h"
#include "plan/select.h"

static const char node_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-";

/* A node name as gp_pve_node_name takes one: what a file or directory of ours may be named. */
static bool node_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n && n < GP_NODE_NAME_MAX && name[0] != '.' &&
	       name[strspn(name, node_chars)] == '\0';
}

static void append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Adds a "; "-separated part to buf. */
static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len && len + 2 < size) {
		memcpy(buf + len, "; ", 3);
		len += 2;
	}
	if (len >= size - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

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
		gp_warn("Failed to publish this node's GPUs to \"%s\": %s%s", path, gp_strerror(-r),
			r == -EACCES || r == -EROFS
			    ? " (the cluster filesystem takes writes only with quorum); the other "
			      "nodes' check sees the last file until prepare runs again"
			    : "");
	return r;
}

/* --- the cluster as /etc/pve shows it ------------------------------------------------- */

static int is_node_dir(const struct dirent *e)
{
	return node_name_ok(e->d_name);
}

static int is_ct_conf(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 5 && n < 16 && strcmp(e->d_name + n - 5, ".conf") == 0 &&
	       strspn(e->d_name, "0123456789") == n - 5;
}

/* A node's published file: read, parsed, kept in node->inv; why it is not, in node->why. */
static void read_inventory(const char *root, struct gp_cluster_node *node)
{
	_cleanup_free_ char *path = gp_cluster_node_path(root, node->name);
	_cleanup_free_ char *buf = NULL;
	char why[256];

	node->status = path ? gp_read_file(path, GP_CLUSTER_FILE_MAX, &buf, NULL) : -ENOMEM;
	if (node->status < 0) {
		snprintf(node->why, sizeof(node->why), "\"%s\": %s", path ? path : node->name,
			 node->status == -EFBIG ? "larger than 256 KiB"
						: gp_strerror(-node->status));
		return;
	}
	node->inv = malloc(sizeof(*node->inv));
	if (!node->inv) {
		node->status = -ENOMEM;
		snprintf(node->why, sizeof(node->why), "out of memory");
		return;
	}
	node->status = gp_node_inv_parse(buf, node->name, node->inv, why, sizeof(why));
	if (node->status < 0) {
		snprintf(node->why, sizeof(node->why), "\"%s\": %s", path, why);
		free(node->inv);
		node->inv = NULL;
	}
}

static int read_nodes(const char *root, struct gp_cluster *c)
{
	_cleanup_free_ char *dir = gp_path(root, GP_PVE_NODES_DIR);
	struct dirent **list = NULL;
	int n = dir ? scandir(dir, &list, is_node_dir, alphasort) : -1;

	if (n < 0)
		return gp_error_errno(dir ? -errno : -ENOMEM, "Failed to read \"%s\"",
				      dir ? dir : GP_PVE_NODES_DIR);
	for (int i = 0; i < n; i++) {
		if (c->nnodes < GP_CLUSTER_MAX_NODES)
			snprintf(c->nodes[c->nnodes++].name, GP_NODE_NAME_MAX, "%.*s",
				 GP_NODE_NAME_MAX - 1, list[i]->d_name);
		else
			c->left_out++;
		free(list[i]);
	}
	free(list);
	return 0;
}

static int add_ct(struct gp_cluster *c, const char *root, const char *confdir, const char *node,
		  const char *id)
{
	_cleanup_free_ char *ini = gp_ini_path(root, confdir, id);
	struct gp_cluster_ct *grown, *ct;
	struct gp_log_capture said;

	if (!ini)
		return -ENOMEM;
	if (access(ini, F_OK) != 0)
		return 0; /* no GPUs of ours, or an ini still on its node only */
	grown = realloc(c->cts, (c->ncts + 1) * sizeof(*c->cts));
	if (!grown)
		return -ENOMEM;
	c->cts = grown;
	ct = &c->cts[c->ncts++];
	memset(ct, 0, sizeof(*ct));
	/* Both checked before: an ID of digits (pve_id), a node's name (gp_pve_node_name's rule).
	 */
	memcpy(ct->id, id, strnlen(id, sizeof(ct->id) - 1));
	memcpy(ct->node, node, strnlen(node, sizeof(ct->node) - 1));
	gp_log_capture_start(&said);
	ct->ini_status = gp_ini_load(root, confdir, id, &ct->conf);
	gp_log_capture_stop(&said);
	if (ct->ini_status < 0)
		snprintf(ct->ini_error, sizeof(ct->ini_error), "%s",
			 said.len ? said.text : gp_strerror(-ct->ini_status));
	return 0;
}

/* The containers whose config node holds (nodes/<node>/lxc/<id>.conf) with a cluster ini. */
static int read_containers(const char *root, const char *confdir, const char *node,
			   struct gp_cluster *c)
{
	char rel[256];
	_cleanup_free_ char *dir = NULL;
	struct dirent **list = NULL;
	int n, r = 0;

	snprintf(rel, sizeof(rel), GP_PVE_NODES_DIR "/%s/lxc", node);
	dir = gp_path(root, rel);
	n = dir ? scandir(dir, &list, is_ct_conf, alphasort) : -1;
	if (n < 0)
		return errno == ENOENT ? 0 : gp_error_errno(-errno, "Failed to read \"%s\"", dir);
	for (int i = 0; i < n; i++) {
		list[i]->d_name[strlen(list[i]->d_name) - 5] = '\0';
		if (r == 0)
			r = add_ct(c, root, confdir, node, list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return r;
}

static int by_id(const void *a, const void *b)
{
	const struct gp_cluster_ct *x = a, *y = b;
	size_t lx = strlen(x->id), ly = strlen(y->id);

	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x->id, y->id);
}

int gp_cluster_read(const char *root, const char *confdir, struct gp_cluster *c)
{
	int r;

	memset(c, 0, sizeof(*c));
	if (!gp_root_is_pve(root) || gp_pve_node_name(root, c->self) < 0)
		return -ENOENT;
	r = read_nodes(root, c);
	for (size_t i = 0; r == 0 && i < c->nnodes; i++) {
		read_inventory(root, &c->nodes[i]);
		r = read_containers(root, confdir, c->nodes[i].name, c);
	}
	if (r < 0) {
		gp_cluster_free(c);
		return r;
	}
	if (c->ncts > 1)
		qsort(c->cts, c->ncts, sizeof(*c->cts), by_id);
	return 0;
}

void gp_cluster_free(struct gp_cluster *c)
{
	for (size_t i = 0; i < c->nnodes; i++) {
		free(c->nodes[i].inv);
		c->nodes[i].inv = NULL;
	}
	free(c->cts);
	c->cts = NULL;
	c->ncts = 0;
}

const struct gp_cluster_node *gp_cluster_node(const struct gp_cluster *c, const char *name)
{
	for (size_t i = 0; i < c->nnodes; i++)
		if (strcmp(c->nodes[i].name, name) == 0)
			return &c->nodes[i];
	return NULL;
}

/* --- a container's selection against a node's GPUs ------------------------------------ */

static bool looks_like_pci(const char *tok)
{
	size_t n = strlen(tok);

	return (n == 7 || n == 12) && tok[n - 2] == '.' && strchr(tok, ':');
}

/* "8 x NVIDIA B200", or "1 x NVIDIA H200, 1 x NVIDIA A100": what a node has, for people. */
static void describe_gpus(const struct gp_node_inv *node, char *buf, size_t size)
{
	buf[0] = '\0';
	if (node->ngpus == 0) {
		snprintf(buf, size, "no NVIDIA GPU");
		return;
	}
	for (size_t i = 0; i < node->ngpus; i++) {
		size_t same = 0, len = strlen(buf);
		bool seen = false;

		for (size_t k = 0; k < node->ngpus; k++) {
			seen |= k < i && strcmp(node->gpus[k].model, node->gpus[i].model) == 0;
			same += strcmp(node->gpus[k].model, node->gpus[i].model) == 0;
		}
		if (!seen && len < size)
			snprintf(buf + len, size - len, "%s%zu x %s", len ? ", " : "", same,
				 node->gpus[i].model[0] ? node->gpus[i].model : "GPU");
	}
}

/* The GPU one explicit token names on node: its position; -ENOENT none; -GP_EBADCONF no token. */
static int find_explicit(const char *tok, const struct gp_node_inv *node)
{
	unsigned int idx;
	char pci[32];

	if (gp_parse_uint(tok, &idx) == 0)
		return idx < node->ngpus ? (int)idx : -ENOENT;
	if (strncasecmp(tok, "GPU-", 4) == 0) {
		for (size_t i = 0; i < node->ngpus; i++)
			if (strcasecmp(node->gpus[i].uuid, tok) == 0)
				return (int)i;
		return -ENOENT;
	}
	if (!looks_like_pci(tok))
		return -GP_EBADCONF;
	snprintf(pci, sizeof(pci), "%s%s", strlen(tok) == 7 ? "0000:" : "", tok);
	for (size_t i = 0; i < node->ngpus; i++)
		if (strcasecmp(node->gpus[i].pci, pci) == 0)
			return (int)i;
	return -ENOENT;
}

static void explain_missing(const char *tok, const struct gp_node_inv *node, char *why, size_t size)
{
	if (strspn(tok, "0123456789") == strlen(tok) && node->ngpus > 1)
		append(why, size, "index %s: %s has GPUs 0-%zu", tok, node->node, node->ngpus - 1);
	else if (strspn(tok, "0123456789") == strlen(tok))
		append(why, size, "index %s: %s has %s", tok, node->node,
		       node->ngpus ? "GPU 0 only" : "no NVIDIA GPU");
	else if (strncasecmp(tok, "GPU-", 4) == 0)
		append(why, size, "%s is not on %s (a UUID names one GPU of one node)", tok,
		       node->node);
	else
		append(why, size, "%s has no GPU at PCI address %s", node->node, tok);
}

/* The explicit tokens (all, indexes, UUIDs, PCI addresses): 0, 1 refused, -GP_EBADCONF unknown. */
static int judge_explicit(char **tok, size_t ntok, const struct gp_node_inv *node, char *why,
			  size_t size)
{
	int r = 0;

	for (size_t t = 0; t < ntok; t++) {
		int i;

		if (strcmp(tok[t], "all") == 0) {
			if (node->ngpus == 0)
				append(why, size, "all: %s has no NVIDIA GPU", node->node), r = 1;
			continue;
		}
		i = find_explicit(tok[t], node);
		if (i == -GP_EBADCONF) {
			append(why, size, "\"%s\" is no selector this check knows", tok[t]);
			return -GP_EBADCONF;
		}
		if (i < 0) {
			explain_missing(tok[t], node, why, size);
			r = 1;
		} else if (node->gpus[i].excluded) {
			append(why, size, "%s: GPU %d (%s) is excluded by the driver on %s", tok[t],
			       i, node->gpus[i].uuid, node->node);
			r = 1;
		}
	}
	return r;
}

/*
 * any:N, model:TEXT:N, read by alloc.c's own parser: N GPUs the node may give (before any
 * other container there holds one, which only the start can know).
 */
static int judge_portable(const char *devices, const struct gp_node_inv *node, char *why,
			  size_t size)
{
	struct gp_log_capture said;
	struct gp_portable p;
	unsigned int n = 0;
	char has[256];
	int r;

	gp_log_capture_start(&said);
	r = gp_portable_parse(devices, NULL, &p);
	gp_log_capture_stop(&said);
	if (r < 0) {
		append(why, size, "%s", said.len ? said.text : "not a portable selection");
		return -GP_EBADCONF;
	}
	for (size_t i = 0; i < node->ngpus; i++)
		n += gp_portable_matches(&p, &node->gpus[i]);
	if (n >= p.count)
		return 0;
	describe_gpus(node, has, sizeof(has));
	if (p.model[0])
		append(why, size,
		       "model:%s:%u: %s has %u GPU(s) whose model contains \"%s\" (it has %s)",
		       p.model, p.count, node->node, n, p.model, has);
	else
		append(why, size, "any:%u: %s has %u GPU(s) to give (it has %s)", p.count,
		       node->node, n, has);
	return 1;
}

int gp_selection_judge(const char *devices, const struct gp_node_inv *node, char *why, size_t size)
{
	char copy[1024], *tok[GP_MAX_GPUS * 2], *save = NULL;
	size_t ntok = 0;

	why[0] = '\0';
	if (gp_selection_is_portable(devices))
		return judge_portable(devices, node, why, size);
	snprintf(copy, sizeof(copy), "%s", devices);
	for (char *t = strtok_r(copy, ",", &save); t && ntok < GP_ARRAY_SIZE(tok);
	     t = strtok_r(NULL, ",", &save))
		if (*gp_strtrim(t))
			tok[ntok++] = t;
	if (ntok == 0) {
		append(why, size, "it selects no GPU");
		return -GP_EBADCONF;
	}
	return judge_explicit(tok, ntok, node, why, size);
}

/* --- a container's start on a node ---------------------------------------------------- */

int gp_version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		char *ea, *eb;
		unsigned long x = strtoul(a, &ea, 10), y = strtoul(b, &eb, 10);

		if (x != y)
			return x < y ? -1 : 1;
		a = *ea == '.' ? ea + 1 : ea + strlen(ea);
		b = *eb == '.' ? eb + 1 : eb + strlen(eb);
	}
	return 0;
}

static void refuse(struct gp_start_verdict *v, unsigned int reason)
{
	v->start = GP_START_NO;
	v->reasons |= reason;
}

/* Another driver than on its home node: its own user space (inject = no) would not match. */
static void judge_driver(const struct gp_cluster_ct *ct, const struct gp_node_inv *home,
			 const struct gp_node_inv *node, struct gp_start_verdict *v)
{
	enum gp_inject_choice inject = ct->conf.inject_set ? ct->conf.inject : node->inject;
	int cmp;

	if (!home || !home->version[0] || !node->version[0] ||
	    strcmp(home->node, node->node) == 0 || strcmp(home->version, node->version) == 0)
		return;
	cmp = gp_version_cmp(node->version, home->version);
	if (inject == GP_INJECT_NO) {
		append(v->why, sizeof(v->why),
		       "driver %s on %s, %s on %s: with inject = no it carries its own driver user "
		       "space, which must be the kernel module's version (cuInit 803 otherwise)",
		       node->version, node->node, home->version, home->node);
		refuse(v, GP_REASON_DRIVER);
		return;
	}
	append(v->note, sizeof(v->note),
	       "driver %s on %s, %s on %s: each start injects that node's user space%s",
	       node->version, node->node, home->version, home->node,
	       cmp < 0 ? "; an older one: CUDA applications built for the newer driver's CUDA "
			 "version may not run"
		       : "");
}

/* HMM active in the node's nvidia_uvm, under the container's policy (the node's defaults). */
static void judge_hmm(const struct gp_cluster_ct *ct, const struct gp_node_inv *node,
		      struct gp_start_verdict *v)
{
	enum gp_hmm_policy policy =
	    ct->conf.disable_hmm_set ? ct->conf.disable_hmm : node->disable_hmm;
	enum gp_conflict conflict =
	    ct->conf.on_conflict_set ? ct->conf.on_conflict : node->on_conflict;

	if (node->hmm_active != GP_YES)
		return;
	if (policy == GP_HMM_NO) {
		append(v->note, sizeof(v->note),
		       "HMM is active in nvidia_uvm on %s, which disable_hmm = no accepts",
		       node->node);
		return;
	}
	if (conflict == GP_CONFLICT_WARN) {
		append(v->note, sizeof(v->note),
		       "HMM is active in nvidia_uvm on %s: the start reloads it with "
		       "uvm_disable_hmm=1, or goes on with HMM while the GPUs are in use there "
		       "(on_conflict = warn)",
		       node->node);
		return;
	}
	append(v->why, sizeof(v->why),
	       "HMM is active in nvidia_uvm on %s: the start must reload it with "
	       "uvm_disable_hmm=1, and is refused while anything uses the GPUs there "
	       "(disable_hmm = %s, on_conflict = refuse)",
	       node->node, gp_hmm_policy_name(policy));
	refuse(v, GP_REASON_HMM);
}

void gp_cluster_judge(const struct gp_cluster_ct *ct, const struct gp_node_inv *home,
		      const struct gp_cluster_node *node, struct gp_start_verdict *v)
{
	char why[512];
	int r;

	memset(v, 0, sizeof(*v));
	v->start = GP_START_UNKNOWN;
	if (ct->ini_status < 0) {
		append(v->why, sizeof(v->why), "its ini cannot be read: %s", ct->ini_error);
		return;
	}
	if (!node->inv) {
		append(v->why, sizeof(v->why), "%s has published no GPUs: %s", node->name,
		       node->why);
		return;
	}
	v->start = GP_START_YES;
	if (!node->inv->driver_loaded) {
		append(v->why, sizeof(v->why), "%s has no NVIDIA driver loaded", node->name);
		refuse(v, GP_REASON_NO_DRIVER);
		return;
	}
	r = gp_selection_judge(ct->conf.devices, node->inv, why, sizeof(why));
	if (r != 0)
		append(v->why, sizeof(v->why), "%s", why);
	if (r > 0)
		refuse(v, GP_REASON_SELECTION);
	judge_driver(ct, home, node->inv, v);
	judge_hmm(ct, node->inv, v);
	if (r < 0 && v->start == GP_START_YES)
		v->start = GP_START_UNKNOWN;
}

/* --- Proxmox's guest status: /etc/pve/.rrd ----------------------------------------------- */

/*
 * pmxcfs serves /etc/pve/.rrd from its status hash (pve-cluster src/pmxcfs/pmxcfs.c,
 * create_dot_rrd_cb; src/pmxcfs/status.c, cfs_rrd_dump): one "KEY:DATA\n" line per entry
 * any node broadcast in the last 5 minutes (rrd_entry_is_old), then a NUL. pvestatd
 * broadcasts each container every 10 s (pve-manager PVE/Service/pvestatd.pm,
 * update_lxc_status, through PVE::Cluster::broadcast_rrd) with KEY "pve-vm-9.0/<vmid>"
 * (PVE 9) or "pve2.3-vm/<vmid>" (before), and DATA "uptime:name:status:template:ctime:..."
 * (generate_rrd_string: ':'-joined, "U" for none); status is PVE::LXC::vmstatus's
 * ("running", "stopped"), ctime pvestatd's time(). Proxmox's own reader prefers the 9.0 key
 * (pve-manager PVE/API2Tools.pm, get_rrd_key; extract_vm_stats reads status as field 2).
 */
static bool rrd_line(const char *buf, size_t len, const char *key, const char **data, size_t *dlen)
{
	const char *pos = buf, *end = buf + strnlen(buf, len), *line;
	size_t klen = strlen(key), n;

	while (gp_line_next(&pos, end, &line, &n)) {
		if (n > klen && memcmp(line, key, klen) == 0 && line[klen] == ':') {
			*data = line + klen + 1;
			*dlen = n - klen - 1;
			return true;
		}
	}
	return false;
}

static int rrd_fields(const char *data, size_t len, long now, char *state, size_t size)
{
	char copy[512], *field[6], *save = NULL;
	size_t n = 0;
	unsigned long long ctime;
	char *end;

	if (len >= sizeof(copy))
		len = sizeof(copy) - 1;
	memcpy(copy, data, len);
	copy[len] = '\0';
	for (char *f = strtok_r(copy, ":", &save); f && n < GP_ARRAY_SIZE(field);
	     f = strtok_r(NULL, ":", &save))
		field[n++] = f;
	if (n < 5 || !*field[2] || strlen(field[2]) >= size || strlen(field[2]) > 15 ||
	    field[2][strspn(field[2], "abcdefghijklmnopqrstuvwxyz")] != '\0')
		return -GP_EBADCONF;
	errno = 0;
	ctime = strtoull(field[4], &end, 10);
	if (errno || *end || end == field[4])
		return -GP_EBADCONF;
	for (size_t i = 0; field[2][i]; i++)
		state[i] = (char)toupper((unsigned char)field[2][i]);
	state[strlen(field[2])] = '\0';
	return now - (long)ctime > GP_RRD_STALE_S ? -ESTALE : 0;
}

int gp_rrd_state(const char *buf, size_t len, const char *id, long now, char *state, size_t size)
{
	static const char *const prefixes[] = { "pve-vm-9.0/", "pve2.3-vm/" };
	const char *data;
	size_t dlen;

	state[0] = '\0';
	for (size_t i = 0; i < GP_ARRAY_SIZE(prefixes); i++) {
		char key[64];

		snprintf(key, sizeof(key), "%s%s", prefixes[i], id);
		if (rrd_line(buf, len, key, &data, &dlen))
			return rrd_fields(data, dlen, now, state, size);
	}
	return -ENOENT;
}
