/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision check's output: for people, --json, and node_exporter's textfile format. */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/escape.h"
#include "checkreport.h"
#include "cluster/checkcluster.h"
#include "cluster/cluster.h"
#include "cluster/judge.h"

static void print_group(FILE *out, const char *title, const struct gp_findings *f,
			const char *probe, bool tty)
{
	fprintf(out, "%s%s%s%s\n", title, probe && probe[0] ? " (probe: " : "", probe ? probe : "",
		probe && probe[0] ? ")" : "");
	if (f->n == 0)
		fprintf(out, "  no findings\n");
	gp_findings_print(f, out, "  ", tty);
}

static const char *start_word(enum gp_start s)
{
	return s == GP_START_YES ? "yes" : s == GP_START_NO ? "no" : "unknown";
}

/* "starts on A; not on B, C; unknown on D": a container's verdicts over the nodes. */
static void starts_text(const struct gp_cluster_check *cc, const struct gp_cluster_subject *s,
			char *buf, size_t size)
{
	static const char *const lead[] = { "starts on ", "not on ", "unknown on " };
	size_t len = 0;

	buf[0] = '\0';
	for (int w = GP_START_YES; w <= GP_START_UNKNOWN; w++) {
		const char *sep = len ? "; " : "";
		bool first = true;

		for (size_t i = 0; i < cc->cl.nnodes && len < size; i++) {
			if (s->starts[i].start != (enum gp_start)w)
				continue;
			len += (size_t)snprintf(buf + len, size - len, "%s%s%s", first ? sep : ", ",
						first ? lead[w] : "", cc->cl.nodes[i].name);
			first = false;
		}
	}
}

static void print_cluster(FILE *out, const struct gp_cluster_check *cc, bool tty)
{
	char title[GP_NODE_NAME_MAX + 64];

	snprintf(title, sizeof(title), "cluster (this node: %s; %zu node(s))", cc->cl.self,
		 cc->cl.nnodes);
	print_group(out, title, &cc->f, NULL, tty);
	for (size_t i = 0; i < cc->n; i++) {
		const struct gp_cluster_subject *s = &cc->subj[i];
		const char *devices = s->ct->ini_status == 0 ? s->ct->conf.devices : "?";
		char starts[512], esc[4 * sizeof(s->ct->conf.devices)], line[sizeof(esc) + 700];

		/* The ini's text is the cluster's, written on any node: escaped for a terminal. */
		gp_escape(esc, sizeof(esc), devices, strlen(devices), false);
		starts_text(cc, s, starts, sizeof(starts));
		snprintf(line, sizeof(line), "cluster container %s (node %s, devices %s): %s",
			 s->ct->id, s->ct->node, esc, starts);
		print_group(out, line, &s->f, NULL, tty);
	}
}

static void print_text(FILE *out, const struct gp_findings *host,
		       const struct gp_check_subject *subj, int n,
		       const struct gp_cluster_check *cluster)
{
	bool tty = out == stdout && isatty(STDOUT_FILENO);

	print_group(out, "host", host, NULL, tty);
	for (int i = 0; i < n; i++) {
		char title[96];

		snprintf(title, sizeof(title), "container %s", subj[i].name);
		print_group(out, title, &subj[i].f, subj[i].probe, tty);
	}
	if (cluster)
		print_cluster(out, cluster, tty);
}

/* A container's capabilities after --deep: {gpu, capability, status, injected} each. */
static struct json_object *caps_json(const struct gp_probe_caps *caps)
{
	struct json_object *a = json_object_new_array();

	for (size_t k = 0; k < caps->n; k++) {
		const struct gp_probe_cap_row *c = &caps->v[k];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "gpu", c->gpu[0] ? json_object_new_string(c->gpu) : NULL);
		json_object_object_add(o, "capability",
				       json_object_new_string(gp_deep_cap_name(c->cap)));
		json_object_object_add(o, "status",
				       json_object_new_string(gp_deep_status_name(c->status)));
		json_object_object_add(o, "injected", json_object_new_boolean(c->injected));
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *node_json(const struct gp_cluster_node *node)
{
	struct json_object *o = json_object_new_object();
	const struct gp_node_inv *inv = node->inv;

	json_object_object_add(o, "name", json_object_new_string(node->name));
	json_object_object_add(o, "published", json_object_new_boolean(inv != NULL));
	json_object_object_add(o, "written", inv ? json_object_new_int64(inv->written) : NULL);
	json_object_object_add(
	    o, "driver", inv && inv->version[0] ? json_object_new_string(inv->version) : NULL);
	json_object_object_add(o, "gpus", inv ? json_object_new_int((int)inv->ngpus) : NULL);
	json_object_object_add(o, "hmm_active",
			       inv && inv->hmm_active != GP_UNKNOWN
				   ? json_object_new_boolean(inv->hmm_active == GP_YES)
				   : NULL);
	json_object_object_add(o, "error", inv ? NULL : json_object_new_string(node->why));
	return o;
}

static struct json_object *cluster_subject_json(const struct gp_cluster_check *cc,
						const struct gp_cluster_subject *s)
{
	struct json_object *o = json_object_new_object(), *starts = json_object_new_array();

	json_object_object_add(o, "name", json_object_new_string(s->ct->id));
	json_object_object_add(o, "node", json_object_new_string(s->ct->node));
	json_object_object_add(
	    o, "gpus", s->ct->ini_status == 0 ? json_object_new_string(s->ct->conf.devices) : NULL);
	for (size_t i = 0; i < cc->cl.nnodes; i++) {
		const struct gp_start_verdict *v = &s->starts[i];
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "node", json_object_new_string(cc->cl.nodes[i].name));
		json_object_object_add(x, "start", json_object_new_string(start_word(v->start)));
		json_object_object_add(x, "why", json_object_new_string(v->why));
		json_object_object_add(x, "note", json_object_new_string(v->note));
		json_object_array_add(starts, x);
	}
	json_object_object_add(o, "starts", starts);
	json_object_object_add(o, "findings", gp_findings_json(&s->f));
	return o;
}

/* check --json's "cluster": this node, every node's file, each GPU container's verdicts. */
static struct json_object *cluster_json(const struct gp_cluster_check *cc)
{
	struct json_object *o = json_object_new_object(), *nodes = json_object_new_array(),
			   *cts = json_object_new_array();

	json_object_object_add(o, "node", json_object_new_string(cc->cl.self));
	for (size_t i = 0; i < cc->cl.nnodes; i++)
		json_object_array_add(nodes, node_json(&cc->cl.nodes[i]));
	json_object_object_add(o, "nodes", nodes);
	json_object_object_add(o, "findings", gp_findings_json(&cc->f));
	for (size_t i = 0; i < cc->n; i++)
		json_object_array_add(cts, cluster_subject_json(cc, &cc->subj[i]));
	json_object_object_add(o, "containers", cts);
	return o;
}

static void print_json(FILE *out, const struct gp_findings *host,
		       const struct gp_check_subject *subj, int n,
		       const struct gp_cluster_check *cluster)
{
	struct json_object *o = json_object_new_object(), *cts = json_object_new_array();

	json_object_object_add(o, "host", gp_findings_json(host));
	for (int i = 0; i < n; i++) {
		struct json_object *c = json_object_new_object();

		json_object_object_add(c, "name", json_object_new_string(subj[i].name));
		json_object_object_add(
		    c, "probe", subj[i].probe[0] ? json_object_new_string(subj[i].probe) : NULL);
		json_object_object_add(c, "findings", gp_findings_json(&subj[i].f));
		if (subj[i].caps.n)
			json_object_object_add(c, "capabilities", caps_json(&subj[i].caps));
		json_object_array_add(cts, c);
	}
	json_object_object_add(o, "containers", cts);
	if (cluster)
		json_object_object_add(o, "cluster", cluster_json(cluster));
	fprintf(out, "%s\n",
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static void count(const struct gp_findings *f, int *by_sev)
{
	for (size_t i = 0; i < f->n; i++)
		by_sev[f->v[i].severity]++;
}

/* One gauge line per severity of f; labels come before severity (e.g. container="web",). */
static void print_by_severity(FILE *out, const char *metric, const char *labels,
			      const struct gp_findings *f)
{
	int by_sev[3] = { 0 };

	count(f, by_sev);
	for (int s = GP_SEV_ERROR; s <= GP_SEV_INFO; s++)
		fprintf(out, "gpu_provision_%s{%sseverity=\"%s\"} %d\n", metric, labels,
			gp_severity_name(s), by_sev[s]);
}

/*
 * Each GPU's capabilities after --deep: 1 that it works, 0 that it failed or that its
 * library is missing where the ini injects it. Left out, nothing to alert on: one the GPU
 * does not have (unsupported), a library the container was never given, and Vulkan where
 * the container has no loader (the loader is the distribution's, never injected).
 */
static void print_capabilities(FILE *out, const struct gp_check_subject *subj, int n)
{
	fprintf(out, "# HELP gpu_provision_capability What probe --deep proved of each GPU of each "
		     "container (1 works, 0 failed or library missing).\n"
		     "# TYPE gpu_provision_capability gauge\n");
	for (int i = 0; i < n; i++)
		for (size_t k = 0; k < subj[i].caps.n; k++) {
			const struct gp_probe_cap_row *c = &subj[i].caps.v[k];

			if (!c->gpu[0] || c->status == GP_DEEP_UNSUPPORTED ||
			    (c->status == GP_DEEP_ABSENT &&
			     (!c->injected || c->cap == GP_DEEP_VULKAN)))
				continue;
			fprintf(out,
				"gpu_provision_capability{container=\"%s\",gpu=\"%s\","
				"capability=\"%s\"} %d\n",
				subj[i].name, c->gpu, gp_deep_cap_name(c->cap),
				c->status == GP_DEEP_OK);
		}
}

static bool has(const struct gp_findings *f, enum gp_finding_id id)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].id == gp_finding_kinds[id].id)
			return true;
	return false;
}

/* The day after a driver update, per container: from its findings (lib/check/checkrestart.c). */
static void print_restart(FILE *out, const struct gp_check_subject *subj, int n)
{
	fprintf(out, "# HELP gpu_provision_restart_needed What each container needs after a driver "
		     "update: 0 nothing, 1 a restart (gpu-provision sync --restart), 2 the host's "
		     "reboot first.\n"
		     "# TYPE gpu_provision_restart_needed gauge\n");
	for (int i = 0; i < n; i++) {
		const struct gp_findings *f = &subj[i].f;
		int need =
		    has(f, GP_FINDING_REBOOT_PENDING) ? 2
		    : has(f, GP_FINDING_DRIVER_REPLACED) || has(f, GP_FINDING_DRIVER_VERSION_STALE)
			? 1
			: 0;

		fprintf(out, "gpu_provision_restart_needed{container=\"%s\"} %d\n", subj[i].name,
			need);
	}
}

/*
 * The node_exporter textfile format: the findings by severity (all, the host's, each
 * container's) and each probed container's probe status. Container names are checked
 * names ([A-Za-z0-9_.-]), so they need no escaping in a label.
 */
static void count_cluster(const struct gp_cluster_check *cc, int *by_sev)
{
	count(&cc->f, by_sev);
	for (size_t i = 0; i < cc->n; i++)
		count(&cc->subj[i].f, by_sev);
}

/* On a Proxmox VE node: the cluster's findings (its nodes' and its containers') by severity. */
static void print_cluster_gauges(FILE *out, const struct gp_cluster_check *cc)
{
	int by_sev[3] = { 0 };

	count_cluster(cc, by_sev);
	fprintf(out, "# HELP gpu_provision_cluster_findings Findings of the Proxmox VE cluster "
		     "(its nodes and where its containers could start), by severity.\n"
		     "# TYPE gpu_provision_cluster_findings gauge\n");
	for (int s = GP_SEV_ERROR; s <= GP_SEV_INFO; s++)
		fprintf(out, "gpu_provision_cluster_findings{severity=\"%s\"} %d\n",
			gp_severity_name(s), by_sev[s]);
}

static void print_prometheus(FILE *out, const struct gp_findings *host,
			     const struct gp_check_subject *subj, int n,
			     const struct gp_cluster_check *cluster)
{
	static const char *statuses[] = { "ok", "failed", "timeout" };
	int by_sev[3] = { 0 };

	count(host, by_sev);
	for (int i = 0; i < n; i++)
		count(&subj[i].f, by_sev);
	if (cluster)
		count_cluster(cluster, by_sev);
	fprintf(out, "# HELP gpu_provision_findings Findings of gpu-provision check, by severity.\n"
		     "# TYPE gpu_provision_findings gauge\n");
	for (int s = GP_SEV_ERROR; s <= GP_SEV_INFO; s++)
		fprintf(out, "gpu_provision_findings{severity=\"%s\"} %d\n", gp_severity_name(s),
			by_sev[s]);
	fprintf(out, "# HELP gpu_provision_host_findings Findings on the host, by severity.\n"
		     "# TYPE gpu_provision_host_findings gauge\n");
	print_by_severity(out, "host_findings", "", host);
	fprintf(out, "# HELP gpu_provision_container_findings Findings of each container checked, "
		     "by severity.\n"
		     "# TYPE gpu_provision_container_findings gauge\n");
	for (int i = 0; i < n; i++) {
		char labels[96];

		snprintf(labels, sizeof(labels), "container=\"%s\",", subj[i].name);
		print_by_severity(out, "container_findings", labels, &subj[i].f);
	}
	fprintf(out, "# HELP gpu_provision_probe_status The last probe of each running container "
		     "(1 for its status).\n"
		     "# TYPE gpu_provision_probe_status gauge\n");
	for (int i = 0; i < n; i++)
		for (size_t k = 0; subj[i].probe[0] && k < GP_ARRAY_SIZE(statuses); k++)
			fprintf(out,
				"gpu_provision_probe_status{container=\"%s\",status=\"%s\"} %d\n",
				subj[i].name, statuses[k], strcmp(subj[i].probe, statuses[k]) == 0);
	print_capabilities(out, subj, n);
	print_restart(out, subj, n);
	if (cluster)
		print_cluster_gauges(out, cluster);
}

static void print_report(FILE *out, const struct gp_cli *cli, const struct gp_findings *host,
			 const struct gp_check_subject *subj, int n,
			 const struct gp_cluster_check *cluster)
{
	if (cli->format && strcmp(cli->format, "prometheus") == 0)
		print_prometheus(out, host, subj, n, cluster);
	else if (cli->json)
		print_json(out, host, subj, n, cluster);
	else
		print_text(out, host, subj, n, cluster);
}

/*
 * --output: the whole report in memory, then a temp file beside path renamed onto it, so
 * a reader (node_exporter's textfile collector every scrape) sees the previous report or
 * this one, never a part of one.
 */
static int write_output(const struct gp_cli *cli, const struct gp_findings *host,
			const struct gp_check_subject *subj, int n,
			const struct gp_cluster_check *cluster)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int r;

	if (!out)
		return gp_error_errno(-errno, "Failed to hold the report in memory");
	print_report(out, cli, host, subj, n, cluster);
	r = ferror(out) ? -ENOMEM : 0;
	if (fclose(out) != 0 && r == 0)
		r = -errno;
	if (r < 0)
		return gp_error_errno(r, "Failed to hold the report in memory");
	r = gp_write_file_atomic(cli->output, buf, len, 0644, 0);
	if (r < 0)
		return gp_error_errno(r, "Failed to write \"%s\"", cli->output);
	return 0;
}

int gp_check_report(const struct gp_cli *cli, const struct gp_findings *host,
		    const struct gp_check_subject *subj, int n,
		    const struct gp_cluster_check *cluster)
{
	int errors = gp_findings_errors(host);

	for (int i = 0; i < n; i++)
		errors += gp_findings_errors(&subj[i].f);
	for (size_t i = 0; cluster && i < cluster->n; i++)
		errors += gp_findings_errors(&cluster->subj[i].f);
	if (cluster)
		errors += gp_findings_errors(&cluster->f);
	if (cli->output) {
		int r = write_output(cli, host, subj, n, cluster);

		if (r < 0)
			return r;
	} else {
		print_report(stdout, cli, host, subj, n, cluster);
	}
	return errors;
}
