/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision check's output: for people, --json, and node_exporter's textfile format. */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checkreport.h"

static void print_group(FILE *out, const char *title, const struct gp_findings *f,
			const char *probe, bool tty)
{
	fprintf(out, "%s%s%s%s\n", title, probe && probe[0] ? " (probe: " : "", probe ? probe : "",
		probe && probe[0] ? ")" : "");
	if (f->n == 0)
		fprintf(out, "  no findings\n");
	gp_findings_print(f, out, "  ", tty);
}

static void print_text(FILE *out, const struct gp_findings *host,
		       const struct gp_check_subject *subj, int n)
{
	bool tty = out == stdout && isatty(STDOUT_FILENO);

	print_group(out, "host", host, NULL, tty);
	for (int i = 0; i < n; i++) {
		char title[96];

		snprintf(title, sizeof(title), "container %s", subj[i].name);
		print_group(out, title, &subj[i].f, subj[i].probe, tty);
	}
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

static void print_json(FILE *out, const struct gp_findings *host,
		       const struct gp_check_subject *subj, int n)
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

/*
 * The node_exporter textfile format: the findings by severity (all, the host's, each
 * container's) and each probed container's probe status. Container names are checked
 * names ([A-Za-z0-9_.-]), so they need no escaping in a label.
 */
static void print_prometheus(FILE *out, const struct gp_findings *host,
			     const struct gp_check_subject *subj, int n)
{
	static const char *statuses[] = { "ok", "failed", "timeout" };
	int by_sev[3] = { 0 };

	count(host, by_sev);
	for (int i = 0; i < n; i++)
		count(&subj[i].f, by_sev);
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
}

static void print_report(FILE *out, const struct gp_cli *cli, const struct gp_findings *host,
			 const struct gp_check_subject *subj, int n)
{
	if (cli->format && strcmp(cli->format, "prometheus") == 0)
		print_prometheus(out, host, subj, n);
	else if (cli->json)
		print_json(out, host, subj, n);
	else
		print_text(out, host, subj, n);
}

/*
 * --output: the whole report in memory, then a temp file beside path renamed onto it, so
 * a reader (node_exporter's textfile collector every scrape) sees the previous report or
 * this one, never a part of one.
 */
static int write_output(const struct gp_cli *cli, const struct gp_findings *host,
			const struct gp_check_subject *subj, int n)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int r;

	if (!out)
		return gp_error_errno(-errno, "Failed to hold the report in memory");
	print_report(out, cli, host, subj, n);
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
		    const struct gp_check_subject *subj, int n)
{
	int errors = gp_findings_errors(host);

	for (int i = 0; i < n; i++)
		errors += gp_findings_errors(&subj[i].f);
	if (cli->output) {
		int r = write_output(cli, host, subj, n);

		if (r < 0)
			return r;
	} else {
		print_report(stdout, cli, host, subj, n);
	}
	return errors;
}
