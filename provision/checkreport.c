/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision check's output: for people, --json, and node_exporter's textfile format. */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checkreport.h"

static void print_group(const char *title, const struct gp_findings *f, const char *probe, bool tty)
{
	printf("%s%s%s%s\n", title, probe && probe[0] ? " (probe: " : "", probe ? probe : "",
	       probe && probe[0] ? ")" : "");
	if (f->n == 0)
		printf("  no findings\n");
	gp_findings_print(f, stdout, "  ", tty);
}

static void print_text(const struct gp_findings *host, const struct gp_check_subject *subj, int n)
{
	bool tty = isatty(STDOUT_FILENO);

	print_group("host", host, NULL, tty);
	for (int i = 0; i < n; i++) {
		char title[96];

		snprintf(title, sizeof(title), "container %s", subj[i].name);
		print_group(title, &subj[i].f, subj[i].probe, tty);
	}
}

static void print_json(const struct gp_findings *host, const struct gp_check_subject *subj, int n)
{
	struct json_object *o = json_object_new_object(), *cts = json_object_new_array();

	json_object_object_add(o, "host", gp_findings_json(host));
	for (int i = 0; i < n; i++) {
		struct json_object *c = json_object_new_object();

		json_object_object_add(c, "name", json_object_new_string(subj[i].name));
		json_object_object_add(
		    c, "probe", subj[i].probe[0] ? json_object_new_string(subj[i].probe) : NULL);
		json_object_object_add(c, "findings", gp_findings_json(&subj[i].f));
		json_object_array_add(cts, c);
	}
	json_object_object_add(o, "containers", cts);
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static void count(const struct gp_findings *f, int *by_sev)
{
	for (size_t i = 0; i < f->n; i++)
		by_sev[f->v[i].severity]++;
}

/* The node_exporter textfile format: one gauge per severity, one per container probe. */
static void print_prometheus(const struct gp_findings *host, const struct gp_check_subject *subj,
			     int n)
{
	static const char *statuses[] = { "ok", "failed", "timeout" };
	int by_sev[3] = { 0 };

	count(host, by_sev);
	for (int i = 0; i < n; i++)
		count(&subj[i].f, by_sev);
	printf("# HELP gpu_provision_findings Findings of gpu-provision check, by severity.\n"
	       "# TYPE gpu_provision_findings gauge\n");
	for (int s = GP_SEV_ERROR; s <= GP_SEV_INFO; s++)
		printf("gpu_provision_findings{severity=\"%s\"} %d\n", gp_severity_name(s),
		       by_sev[s]);
	printf("# HELP gpu_provision_probe_status The last probe of each running container (1 for "
	       "its status).\n"
	       "# TYPE gpu_provision_probe_status gauge\n");
	for (int i = 0; i < n; i++)
		for (size_t k = 0; subj[i].probe[0] && k < GP_ARRAY_SIZE(statuses); k++)
			printf("gpu_provision_probe_status{container=\"%s\",status=\"%s\"} %d\n",
			       subj[i].name, statuses[k], strcmp(subj[i].probe, statuses[k]) == 0);
}

int gp_check_report(const struct gp_cli *cli, const struct gp_findings *host,
		    const struct gp_check_subject *subj, int n)
{
	int errors = gp_findings_errors(host);

	for (int i = 0; i < n; i++)
		errors += gp_findings_errors(&subj[i].f);
	if (cli->format && strcmp(cli->format, "prometheus") == 0)
		print_prometheus(host, subj, n);
	else if (cli->json)
		print_json(host, subj, n);
	else
		print_text(host, subj, n);
	return errors;
}
