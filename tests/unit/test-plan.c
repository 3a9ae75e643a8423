/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Selectors and the plan of a start, through the NVIDIA provider. */
#include "unit.h"

#include "host.h"
#include "log.h"
#include "plan.h"
#include "vendor.h"

static struct gp_host quad, h200, uvmoff;

static int setup(void **state)
{
	(void)state;
	if (gp_host_read(FIXTURES "/quad-550-proprietary", GP_HOST_ALL, &quad) < 0 ||
	    gp_host_read(FIXTURES "/h200-580-open", GP_HOST_ALL, &h200) < 0 ||
	    gp_host_read(FIXTURES "/uvm-unloaded-580-open", GP_HOST_ALL, &uvmoff) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gp_host_free(&quad);
	gp_host_free(&h200);
	gp_host_free(&uvmoff);
	return 0;
}

static int count(const bool *chosen)
{
	int n = 0;

	for (int i = 0; i < GP_MAX_GPUS; i++)
		n += chosen[i];
	return n;
}

/* What the last selection or plan said: the library says a refusal once, here captured. */
static struct gp_log_capture said;

static int select_gpus(const char *spec, const struct gp_host *host, bool *chosen)
{
	int r;

	gp_log_capture_start(&said);
	r = gp_vendor_nvidia.select(spec, host, NULL, chosen);
	gp_log_capture_stop(&said);
	return r;
}

static int plan_build(const char *root, const struct gp_host *host, const bool *chosen,
		      const char *caps, struct gp_plan *plan)
{
	int r;

	gp_log_capture_start(&said);
	r = gp_vendor_nvidia.plan(root, host, chosen, caps, NULL, plan);
	gp_log_capture_stop(&said);
	return r;
}

static void selectors(void **state)
{
	bool c[GP_MAX_GPUS];

	(void)state;
	assert_int_equal(select_gpus("all", &quad, c), 0);
	assert_int_equal(count(c), 4);
	assert_int_equal(select_gpus("1", &quad, c), 0);
	assert_true(c[1] && count(c) == 1);
	assert_int_equal(select_gpus("GPU-1A2B3C4D-0000-4000-8000-0000000000C1", &quad, c), 0);
	assert_true(c[3] && count(c) == 1);
	assert_int_equal(select_gpus("0000:81:00.0, 41:00.0", &quad, c), 0);
	assert_true(c[2] && c[1] && count(c) == 2);
}

/* UUIDs and PCI addresses in any case, as the tools around print them. */
static void selectors_in_any_case(void **state)
{
	bool c[GP_MAX_GPUS];

	(void)state;
	assert_int_equal(select_gpus("gpu-1a2b3c4d-0000-4000-8000-0000000000c1", &quad, c), 0);
	assert_true(c[3] && count(c) == 1);
	assert_int_equal(select_gpus("0000:C1:00.0", &quad, c), 0);
	assert_true(c[3] && count(c) == 1);
	assert_int_equal(select_gpus("C1:00.0", &quad, c), 0);
	assert_true(c[3] && count(c) == 1);
}

static void selector_limits(void **state)
{
	struct gp_host none = { 0 };
	bool c[GP_MAX_GPUS];
	char spec[1100];

	(void)state;
	assert_int_equal(select_gpus("all", &none, c), -EINVAL);
	assert_non_null(strstr(said.text, "\"all\" selects nothing"));
	assert_int_equal(count(c), 0);
	/* Cut at 1023 characters, "1 ... x" (no selector) would read as "1" and select GPU 1. */
	memset(spec, ' ', sizeof(spec));
	spec[0] = '1';
	memcpy(spec + sizeof(spec) - 2, "x", 2);
	assert_int_equal(select_gpus(spec, &quad, c), -EINVAL);
	assert_non_null(strstr(said.text, "longer than 1023 characters"));
	/* The last index there is, and no further. */
	assert_int_equal(select_gpus("3", &quad, c), 0);
	assert_int_equal(select_gpus("4", &quad, c), -EINVAL);
	assert_int_equal(count(c), 0);
}

static void selector_errors(void **state)
{
	static const struct {
		const char *spec, *message;
	} cases[] = {
		{ "4", "no GPU has index 4 (the host has GPUs 0-3" },
		{ "GPU-nope", "no GPU has UUID GPU-nope" },
		{ "0000:02:00.0", "no GPU at PCI address 0000:02:00.0" },
		{ "0,0000:01:00.0", "selected twice" },
		{ "all,1", "\"all\" cannot be combined" },
		{ "first", "\"first\" is not a GPU selector" },
		{ "MIG-abc", "is a MIG device" },
		{ ",", "no GPU selected" },
	};
	bool c[GP_MAX_GPUS];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(select_gpus(cases[i].spec, &quad, c), -EINVAL);
		if (!strstr(said.text, cases[i].message))
			fail_msg("\"%s\": \"%s\" not in \"%s\"", cases[i].spec, cases[i].message,
				 said.text);
	}
}

/* A refusal is said once, after the where its caller gives (an ini's path:line). */
static void refusal_said_once_after_where(void **state)
{
	struct gp_log_capture c;
	bool chosen[GP_MAX_GPUS];
	struct gp_plan p;
	int r;

	(void)state;
	gp_log_capture_start(&c);
	r = gp_vendor_nvidia.select("4", &quad, "ct.ini:2", chosen);
	gp_log_capture_stop(&c);
	assert_int_equal(r, -EINVAL);
	assert_int_equal(c.count, 1);
	assert_string_equal(
	    c.text, "ct.ini:2: no GPU has index 4 (the host has GPUs 0-3; see gpu-provision host)");
	assert_int_equal(select_gpus("all", &uvmoff, chosen), 0);
	gp_log_capture_start(&c);
	r = gp_vendor_nvidia.plan(NULL, &uvmoff, chosen, "", "ct.ini", &p);
	gp_log_capture_stop(&c);
	assert_int_equal(r, -EINVAL);
	assert_int_equal(c.count, 1);
	assert_true(strncmp(c.text, "ct.ini: nvidia_uvm is not loaded", 32) == 0);
}

static const struct gp_node *find(const struct gp_plan *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->nodes[i].name, name) == 0)
			return &p->nodes[i];
	return NULL;
}

static void plan_uses_minor_not_index(void **state)
{
	struct gp_plan p;
	bool c[GP_MAX_GPUS];

	(void)state;
	/* Index 0 is PCI 01:00.0 whose device minor is 3: /dev/nvidia3. */
	assert_int_equal(select_gpus("0", &quad, c), 0);
	assert_int_equal(plan_build(FIXTURES "/quad-550-proprietary", &quad, c, "", &p), 0);
	assert_int_equal(p.n, 4);
	assert_non_null(find(&p, "nvidia3"));
	assert_null(find(&p, "nvidia0"));
	assert_int_equal(find(&p, "nvidiactl")->minor, 255);
	assert_int_equal(find(&p, "nvidia-uvm")->major, 509);
	assert_int_equal(find(&p, "nvidia-uvm-tools")->minor, 1);
	/* Mode and group from the driver's params. */
	assert_int_equal(find(&p, "nvidia3")->mode, 0660);
	assert_int_equal(find(&p, "nvidia3")->gid, 44);
}

static void plan_caps(void **state)
{
	struct gp_plan p;
	bool c[GP_MAX_GPUS];
	const struct gp_node *n;

	(void)state;
	/* Device minor 1 is index 3 (PCI c1:00.0). */
	assert_int_equal(select_gpus("3", &quad, c), 0);
	assert_int_equal(
	    plan_build(FIXTURES "/quad-550-proprietary", &quad, c, "mig-config,gpu1/gi1/ci0", &p),
	    0);
	n = find(&p, "nvidia-caps/nvidia-cap1");
	assert_non_null(n);
	assert_int_equal(n->major, 510);
	assert_int_equal(n->mode, 0400);
	assert_non_null(find(&p, "nvidia-caps/nvidia-cap21"));
	assert_non_null(find(&p, "nvidia-caps/nvidia-cap22"));
	/* A GI or CI of a GPU that is not selected is refused. */
	assert_int_equal(select_gpus("0", &quad, c), 0);
	assert_int_equal(plan_build(FIXTURES "/quad-550-proprietary", &quad, c, "gpu1/gi1", &p),
			 -EINVAL);
	assert_non_null(strstr(said.text, "not selected"));
	assert_int_equal(select_gpus("3", &quad, c), 0);
	assert_int_equal(plan_build(FIXTURES "/quad-550-proprietary", &quad, c, "gpu1/gi9/ci0", &p),
			 -EINVAL);
	assert_non_null(strstr(said.text, "gpu1/gi9/access"));
	assert_int_equal(plan_build(FIXTURES "/quad-550-proprietary", &quad, c, "gpu1/gi1/", &p),
			 -EINVAL);
	assert_non_null(strstr(said.text, "is not a cap"));
}

static void plan_needs_uvm(void **state)
{
	struct gp_plan p;
	bool c[GP_MAX_GPUS];

	(void)state;
	assert_int_equal(select_gpus("all", &uvmoff, c), 0);
	assert_int_equal(plan_build(NULL, &uvmoff, c, "", &p), -EINVAL);
	assert_non_null(strstr(said.text, "nvidia_uvm is not loaded"));
}

static void plan_text_round_trip_and_strictness(void **state)
{
	struct gp_plan p, q;
	bool c[GP_MAX_GPUS];
	char *text;

	(void)state;
	assert_int_equal(select_gpus("all", &h200, c), 0);
	assert_int_equal(plan_build(NULL, &h200, c, "mig-monitor", &p), 0);
	text = gp_plan_format(&p);
	assert_int_equal(gp_plan_parse(text, &q), 0);
	assert_int_equal(q.n, p.n);
	assert_memory_equal(q.nodes, p.nodes, p.n * sizeof(p.nodes[0]));
	free(text);
	assert_int_equal(
	    gp_plan_parse("gpu-provision-plan 1\nnode ../etc/passwd 1 1 0666 0 0\n", &q), -EINVAL);
	assert_int_equal(gp_plan_parse("gpu-provision-plan 1\nnode nvidia0 195 0 0666 0 0 x\n", &q),
			 -EINVAL);
	assert_int_equal(gp_plan_parse("gpu-provision-plan 1\nnode nvidia00 195 0 0666 0 0\n", &q),
			 -EINVAL);
	assert_int_equal(gp_plan_parse("gpu-provision-plan 1\nnode nvidia0 195 0 0666 0 0", &q),
			 -EINVAL);
	assert_int_equal(gp_plan_parse("gpu-provision-plan 2\n", &q), -EINVAL);
}

static void node_names(void **state)
{
	(void)state;
	assert_true(gp_node_name_is_valid("nvidia0"));
	assert_true(gp_node_name_is_valid("nvidia-caps/nvidia-cap4323"));
	assert_false(gp_node_name_is_valid("nvidia254"));
	assert_false(gp_node_name_is_valid("nvidia 1"));
	assert_false(gp_node_name_is_valid("nvidia-caps/../nvidia0"));
	assert_true(gp_node_name_is_valid("nvidia-modeset")); /* graphics, display */
	assert_false(gp_node_name_is_valid("nvidia-modeset1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(selectors),
		cmocka_unit_test(selectors_in_any_case),
		cmocka_unit_test(selector_limits),
		cmocka_unit_test(selector_errors),
		cmocka_unit_test(refusal_said_once_after_where),
		cmocka_unit_test(plan_uses_minor_not_index),
		cmocka_unit_test(plan_caps),
		cmocka_unit_test(plan_needs_uvm),
		cmocka_unit_test(plan_text_round_trip_and_strictness),
		cmocka_unit_test(node_names),
	};
	return cmocka_run_group_tests_name("plan", tests, setup, teardown);
}
