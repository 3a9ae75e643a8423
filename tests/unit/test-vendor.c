/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The vendor seam: the table, the NVIDIA provider through it, and what the plan asks of it. */
#include "unit.h"

#include "base/log.h"
#include "base/util.h"
#include "config/ini.h"
#include "host/host.h"
#include "plan/plan.h"
#include "plan/planfile.h"
#include "plan/planner.h"
#include "plan/vendor.h"
#include "plan/vendors.h"

static struct gp_host quad, h200;

static int setup(void **state)
{
	(void)state;
	if (gp_host_read(FIXTURES "/quad-550-proprietary", GP_HOST_ALL, &quad) < 0 ||
	    gp_host_read(FIXTURES "/h200-580-open", GP_HOST_ALL, &h200) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gp_host_free(&quad);
	gp_host_free(&h200);
	return 0;
}

/* The plans these fixtures gave before the seam, from the code in lib/plan/plan.c and select.c. */
static const char quad_03_caps[] = "gpu-provision-plan 1\n"
				   "node nvidiactl 195 255 0660 0 44\n"
				   "node nvidia3 195 3 0660 0 44\n"
				   "node nvidia1 195 1 0660 0 44\n"
				   "node nvidia-uvm 509 0 0660 0 44\n"
				   "node nvidia-uvm-tools 509 1 0660 0 44\n"
				   "node nvidia-caps/nvidia-cap1 510 1 0400 0 0\n"
				   "node nvidia-caps/nvidia-cap21 510 21 0444 0 0\n"
				   "node nvidia-caps/nvidia-cap22 510 22 0444 0 0\n";
static const char quad_all[] = "gpu-provision-plan 1\n"
			       "node nvidiactl 195 255 0660 0 44\n"
			       "node nvidia3 195 3 0660 0 44\n"
			       "node nvidia2 195 2 0660 0 44\n"
			       "node nvidia0 195 0 0660 0 44\n"
			       "node nvidia1 195 1 0660 0 44\n"
			       "node nvidia-uvm 509 0 0660 0 44\n"
			       "node nvidia-uvm-tools 509 1 0660 0 44\n"
			       "node nvidia-caps/nvidia-cap1 510 1 0400 0 0\n"
			       "node nvidia-caps/nvidia-cap2 510 2 0444 0 0\n";
static const char h200_all[] = "gpu-provision-plan 1\n"
			       "node nvidiactl 195 255 0666 0 0\n"
			       "node nvidia0 195 0 0666 0 0\n"
			       "node nvidia-uvm 238 0 0666 0 0\n"
			       "node nvidia-uvm-tools 238 1 0666 0 0\n"
			       "node nvidia-caps/nvidia-cap1 241 1 0400 0 0\n"
			       "node nvidia-caps/nvidia-cap2 241 2 0444 0 0\n";

static void assert_plan_text(const struct gp_plan *plan, const char *want)
{
	char *text = gp_plan_format(plan);

	assert_non_null(text);
	assert_string_equal(text, want);
	free(text);
}

/* Every row has every function (a provider that lacks one does not get past this). */
static void every_vendor_complete(void **state)
{
	const struct gp_vendor *v;
	size_t n = 0;
	bool host_listed = false;

	(void)state;
	for (size_t i = 0; (v = gp_vendor_nth(i)); i++, n++) {
		assert_non_null(v->name);
		assert_true(v->name[0] != '\0');
		assert_non_null(v->select);
		assert_non_null(v->plan);
		assert_non_null(v->plan_all);
		assert_non_null(v->node_name_is_valid);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(gp_vendor_nth(j)->name, v->name);
		host_listed |= v == gp_vendor_for_host(&quad);
	}
	assert_true(n >= 1);
	assert_true(host_listed);
	assert_ptr_equal(gp_vendor_for_host(&quad), &gp_vendor_nvidia);
	assert_string_equal(gp_vendor_nvidia.name, "nvidia");
}

/* The NVIDIA provider through the table gives the plans of before the seam. */
static void nvidia_plans_as_before(void **state)
{
	const struct gp_vendor *v = gp_vendor_for_host(&quad);
	bool chosen[GP_MAX_GPUS];
	struct gp_plan p;

	(void)state;
	assert_int_equal(v->select("0,3", &quad, NULL, chosen), 0);
	assert_int_equal(v->plan(FIXTURES "/quad-550-proprietary", &quad, chosen,
				 "mig-config,gpu1/gi1/ci0", NULL, &p),
			 0);
	assert_plan_text(&p, quad_03_caps);
	assert_int_equal(v->plan_all(FIXTURES "/quad-550-proprietary", &quad, &p), 0);
	assert_plan_text(&p, quad_all);
	assert_int_equal(gp_plan_all(FIXTURES "/quad-550-proprietary", &quad, &p), 0);
	assert_plan_text(&p, quad_all);
	assert_int_equal(gp_plan_all(FIXTURES "/h200-580-open", &h200, &p), 0);
	assert_plan_text(&p, h200_all);
}

static void conf_of(struct gp_ini *conf, const char *devices, const char *caps)
{
	memset(conf, 0, sizeof(*conf));
	snprintf(conf->path, sizeof(conf->path), "/etc/gpu-provision/ct.ini");
	snprintf(conf->devices, sizeof(conf->devices), "%s", devices);
	snprintf(conf->caps, sizeof(conf->caps), "%s", caps);
	conf->devices_line = 2;
	conf->caps_line = 3;
}

/* An ini's selection and plan, one call: the same as select then plan through the table. */
static void plan_for_conf(void **state)
{
	struct gp_ini conf;
	bool chosen[GP_MAX_GPUS];
	struct gp_plan p;

	(void)state;
	conf_of(&conf, "0,3", "mig-config,gpu1/gi1/ci0");
	assert_int_equal(gp_plan_for_conf(FIXTURES "/quad-550-proprietary", &quad, &conf,
					  GP_WHERE_LINE, chosen, &p),
			 0);
	assert_plan_text(&p, quad_03_caps);
	assert_true(chosen[0] && !chosen[1] && !chosen[2] && chosen[3]);
	/* Without chosen: the plan only. */
	assert_int_equal(gp_plan_for_conf(FIXTURES "/quad-550-proprietary", &quad, &conf,
					  GP_WHERE_NONE, NULL, &p),
			 0);
	assert_plan_text(&p, quad_03_caps);
}

static void assert_said(const char *devices, const char *caps, enum gp_conf_where where,
			const char *want)
{
	struct gp_log_capture c;
	struct gp_ini conf;
	struct gp_plan p;
	int r;

	conf_of(&conf, devices, caps);
	gp_log_capture_start(&c);
	r = gp_plan_for_conf(FIXTURES "/quad-550-proprietary", &quad, &conf, where, NULL, &p);
	gp_log_capture_stop(&c);
	assert_int_equal(r, -GP_EBADCONF);
	assert_int_equal(c.count, 1);
	if (strncmp(c.text, want, strlen(want)) != 0)
		fail_msg("said \"%s\", not \"%s...\"", c.text, want);
}

/* Each caller's prefix: the ini's line for the hook and probe, none for attach (and check, quiet).
 */
static void plan_for_conf_says_where(void **state)
{
	(void)state;
	assert_said("7", "", GP_WHERE_LINE,
		    "/etc/gpu-provision/ct.ini:2: no GPU has index 7 (the host has GPUs 0-3");
	assert_said("3", "gpu1/gi1/", GP_WHERE_LINE,
		    "/etc/gpu-provision/ct.ini: \"gpu1/gi1/\" is not a cap");
	assert_said("7", "", GP_WHERE_NONE, "no GPU has index 7");
	assert_said("3", "gpu1/gi1/", GP_WHERE_NONE, "\"gpu1/gi1/\" is not a cap");
}

/* gp_plan_parse takes its names from the vendors: one none of them writes is refused. */
static void parse_refuses_names_no_vendor_knows(void **state)
{
	static const char *foreign[] = { "renderD128",	    "kfd",
					 "dri/renderD128",  "dri/card0",
					 "nvidia-modeset1", "nvidia254",
					 "nvidia-nvlink" };
	struct gp_plan p, q;
	char *text;

	(void)state;
	for (size_t i = 0; i < GP_ARRAY_SIZE(foreign); i++) {
		char buf[128];

		assert_false(gp_vendor_nvidia.node_name_is_valid(foreign[i]));
		assert_false(gp_devnode_name_is_valid(foreign[i]));
		snprintf(buf, sizeof(buf), "gpu-provision-plan 1\nnode %s 226 128 0666 0 0\n",
			 foreign[i]);
		assert_int_equal(gp_plan_parse(buf, &q), -GP_EBADCONF);
	}
	/* Every name the provider plans reads back. */
	assert_int_equal(gp_plan_all(FIXTURES "/quad-550-proprietary", &quad, &p), 0);
	for (size_t i = 0; i < p.n; i++)
		assert_true(gp_vendor_nvidia.node_name_is_valid(p.nodes[i].name));
	text = gp_plan_format(&p);
	assert_int_equal(gp_plan_parse(text, &q), 0);
	assert_int_equal(q.n, p.n);
	free(text);
}

/* A name is added once; a full plan is said once, with where, and left as it was. */
static void plan_add(void **state)
{
	struct gp_plan *p = calloc(1, sizeof(*p));
	struct gp_devnode n = { .major = 226, .minor = 0, .mode = 0100666 };
	struct gp_log_capture c;
	int r;

	(void)state;
	assert_non_null(p);
	snprintf(n.name, sizeof(n.name), "node0");
	assert_int_equal(gp_plan_add(p, &n, NULL), 0);
	assert_int_equal(gp_plan_add(p, &n, NULL), 0);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->nodes[0].mode, 0666);
	for (unsigned int i = 1; i < GP_PLAN_MAX_NODES; i++) {
		snprintf(n.name, sizeof(n.name), "node%u", i);
		assert_int_equal(gp_plan_add(p, &n, NULL), 0);
	}
	snprintf(n.name, sizeof(n.name), "one-more");
	gp_log_capture_start(&c);
	r = gp_plan_add(p, &n, "ct.ini");
	gp_log_capture_stop(&c);
	assert_int_equal(r, -E2BIG);
	assert_int_equal(p->n, GP_PLAN_MAX_NODES);
	assert_int_equal(c.count, 1);
	assert_string_equal(c.text, "ct.ini: more than 160 nodes planned");
	/* A name it holds needs no room. */
	snprintf(n.name, sizeof(n.name), "node7");
	assert_int_equal(gp_plan_add(p, &n, NULL), 0);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_vendor_complete),
		cmocka_unit_test(nvidia_plans_as_before),
		cmocka_unit_test(plan_for_conf),
		cmocka_unit_test(plan_for_conf_says_where),
		cmocka_unit_test(parse_refuses_names_no_vendor_knows),
		cmocka_unit_test(plan_add),
	};
	return cmocka_run_group_tests_name("vendor", tests, setup, teardown);
}
