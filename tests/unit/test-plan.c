/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Selectors and the plan of a start, through the NVIDIA provider. */
#include "unit.h"

#include "base/log.h"
#include "config/ini.h"
#include "host/host.h"
#include "plan/alloc.h"
#include "plan/plan.h"
#include "plan/planfile.h"
#include "plan/planner.h"
#include "plan/vendor.h"
#include "plan/vendors.h"

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
	assert_int_equal(select_gpus("all", &none, c), -GP_EBADCONF);
	assert_non_null(strstr(said.text, "\"all\" selects nothing"));
	assert_int_equal(count(c), 0);
	/* Cut at 1023 characters, "1 ... x" (no selector) would read as "1" and select GPU 1. */
	memset(spec, ' ', sizeof(spec));
	spec[0] = '1';
	memcpy(spec + sizeof(spec) - 2, "x", 2);
	assert_int_equal(select_gpus(spec, &quad, c), -GP_EBADCONF);
	assert_non_null(strstr(said.text, "longer than 1023 characters"));
	/* The last index there is, and no further. */
	assert_int_equal(select_gpus("3", &quad, c), 0);
	assert_int_equal(select_gpus("4", &quad, c), -GP_EBADCONF);
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
		assert_int_equal(select_gpus(cases[i].spec, &quad, c), -GP_EBADCONF);
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
	assert_int_equal(r, -GP_EBADCONF);
	assert_int_equal(c.count, 1);
	assert_string_equal(
	    c.text, "ct.ini:2: no GPU has index 4 (the host has GPUs 0-3; see gpu-provision host)");
	assert_int_equal(select_gpus("all", &uvmoff, chosen), 0);
	gp_log_capture_start(&c);
	r = gp_vendor_nvidia.plan(NULL, &uvmoff, chosen, "", "ct.ini", &p);
	gp_log_capture_stop(&c);
	assert_int_equal(r, -GP_EBADCONF);
	assert_int_equal(c.count, 1);
	assert_true(strncmp(c.text, "ct.ini: nvidia_uvm is not loaded", 32) == 0);
}

static const struct gp_devnode *find(const struct gp_plan *p, const char *name)
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
	const struct gp_devnode *n;

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
			 -GP_EBADCONF);
	assert_non_null(strstr(said.text, "not selected"));
	assert_int_equal(select_gpus("3", &quad, c), 0);
	assert_int_equal(plan_build(FIXTURES "/quad-550-proprietary", &quad, c, "gpu1/gi9/ci0", &p),
			 -GP_EBADCONF);
	assert_non_null(strstr(said.text, "gpu1/gi9/access"));
	assert_int_equal(plan_build(FIXTURES "/quad-550-proprietary", &quad, c, "gpu1/gi1/", &p),
			 -GP_EBADCONF);
	assert_non_null(strstr(said.text, "is not a cap"));
}

static void plan_needs_uvm(void **state)
{
	struct gp_plan p;
	bool c[GP_MAX_GPUS];

	(void)state;
	assert_int_equal(select_gpus("all", &uvmoff, c), 0);
	assert_int_equal(plan_build(NULL, &uvmoff, c, "", &p), -GP_EBADCONF);
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
	    gp_plan_parse("gpu-provision-plan 1\nnode ../etc/passwd 1 1 0666 0 0\n", &q),
	    -GP_EBADCONF);
	assert_int_equal(gp_plan_parse("gpu-provision-plan 1\nnode nvidia0 195 0 0666 0 0 x\n", &q),
			 -GP_EBADCONF);
	assert_int_equal(gp_plan_parse("gpu-provision-plan 1\nnode nvidia00 195 0 0666 0 0\n", &q),
			 -GP_EBADCONF);
	assert_int_equal(gp_plan_parse("gpu-provision-plan 1\nnode nvidia0 195 0 0666 0 0", &q),
			 -GP_EBADCONF);
	assert_int_equal(gp_plan_parse("gpu-provision-plan 3\n", &q), -GP_EBADCONF);
	/* Every word as written: the line's kind, an octal mode, numbers without a sign. */
	assert_int_equal(gp_plan_parse("gpu-provision-plan 1\nnods nvidia0 195 0 0666 0 0\n", &q),
			 -GP_EBADCONF);
	assert_int_equal(gp_plan_parse("gpu-provision-plan 1\nnode nvidia0 195 0 0686 0 0\n", &q),
			 -GP_EBADCONF);
	assert_int_equal(gp_plan_parse("gpu-provision-plan 1\nnode nvidia0 -195 0 0666 0 0\n", &q),
			 -GP_EBADCONF);
	assert_int_equal(gp_plan_parse("gpu-provision-plan 1\nnode nvidia0 195 0 0640 0 44\n", &q),
			 0);
	assert_true(q.n == 1 && q.nodes[0].mode == 0640 && q.nodes[0].gid == 44);
}

/* Version 2: whose the plan is and the GPUs its start got, before the nodes; 1 still read. */
static void plan_v2_round_trip(void **state)
{
	static const char want[] = "gpu-provision-plan 2\n"
				   "owner 4242 123456789\n"
				   "gpu 0 GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460 0000:00:06.0\n"
				   "node nvidiactl 195 255 0666 0 0\n"
				   "node nvidia0 195 0 0666 0 0\n"
				   "node nvidia-uvm 238 0 0666 0 0\n"
				   "node nvidia-uvm-tools 238 1 0666 0 0\n";
	struct gp_plan p, q;
	bool c[GP_MAX_GPUS];
	char *text;

	(void)state;
	assert_int_equal(select_gpus("all", &h200, c), 0);
	assert_int_equal(plan_build(NULL, &h200, c, "", &p), 0);
	p.owner = 4242;
	p.owner_start = 123456789;
	p.gpus[0] = (struct gp_plan_gpu){ .index = 0 };
	snprintf(p.gpus[0].uuid, sizeof(p.gpus[0].uuid), "%s", h200.gpus[0].uuid);
	snprintf(p.gpus[0].pci, sizeof(p.gpus[0].pci), "%s", h200.gpus[0].pci);
	p.ngpus = 1;
	text = gp_plan_format(&p);
	assert_string_equal(text, want);
	assert_int_equal(gp_plan_parse(text, &q), 0);
	free(text);
	assert_int_equal(q.owner, 4242);
	assert_true(q.owner_start == 123456789ULL);
	assert_int_equal(q.ngpus, 1);
	assert_string_equal(q.gpus[0].uuid, h200.gpus[0].uuid);
	assert_string_equal(q.gpus[0].pci, h200.gpus[0].pci);
	assert_int_equal(q.n, 4);
	/* A version 1 plan, as a running container's from before: nodes, no owner, no GPUs. */
	assert_int_equal(gp_plan_parse("gpu-provision-plan 1\nnode nvidia3 195 3 0666 0 0\n", &q),
			 0);
	assert_true(q.n == 1 && q.ngpus == 0 && q.owner == 0);
	/* Nor is a plan without them written otherwise than before. */
	p.owner = 0;
	p.ngpus = 0;
	text = gp_plan_format(&p);
	assert_true(strncmp(text, "gpu-provision-plan 1\nnode ", 26) == 0);
	free(text);
}

static void plan_v2_strictness(void **state)
{
	static const char *bad[] = {
		"gpu-provision-plan 1\nowner 1 2\n",		  /* owner in version 1 */
		"gpu-provision-plan 1\ngpu 0 GPU-a\n",		  /* gpu in version 1 */
		"gpu-provision-plan 2\nowner 1 2\nowner 1 2\n",	  /* twice */
		"gpu-provision-plan 2\ngpu 0 GPU-a\nowner 1 2\n", /* out of order */
		"gpu-provision-plan 2\nnode nvidia0 195 0 0666 0 0\ngpu 0 GPU-a\n",
		"gpu-provision-plan 2\nowner 0 2\n",
		"gpu-provision-plan 2\nowner -1 2\n",
		"gpu-provision-plan 2\nowner 1 -2\n",
		"gpu-provision-plan 2\nowner +1 2\n",
		"gpu-provision-plan 2\nowner 1 2 3\n",
		"gpu-provision-plan 2\nowner 99999999999 2\n",
		"gpu-provision-plan 2\nowner 1 99999999999999999999999\n",
		"gpu-provision-plan 2\ngpu 64 GPU-a\n",
		"gpu-provision-plan 2\ngpu -1 GPU-a\n",
		"gpu-provision-plan 2\ngpu +1 GPU-a\n",
		"gpu-provision-plan 2\ngpu 1\n",
		"gpu-provision-plan 2\ngpu 1 GPU-a b\n",
		"gpu-provision-plan 2\ngpu 1 GPU-\x7f\n",
		"gpu-provision-plan 2\ngpu 1 GPU-a 0000:01:00.0 x\n",
		"gpu-provision-plan 2\ngpu 1 GPU-a 0000:01:00.0/\n",
		"gpu-provision-plan 2\ngpu 1 GPU-a 0000:01:00.A\n", /* the driver's is lower case */
		"gpu-provision-plan 2\ngpu 1 GPU-a 000:01:00.0\n",
		"gpu-provision-plan 2\ngpu 1 GPU-a 0000:01:00.00\n",
		"gpu-provision-plan 2\ngpu 1 GPU-a 0000:01:00:0\n",
		"gpu-provision-plan 2\ngpu 1 GPU-a ../../etc\n",
		"gpu-provision-plan 2\ngpu 1 GPU-a 0000:01:00.\n",
	};
	struct gp_plan q;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (gp_plan_parse(bad[i], &q) != -GP_EBADCONF)
			fail_msg("took \"%s\"", bad[i]);
	assert_int_equal(gp_plan_parse("gpu-provision-plan 2\ngpu 1 GPU-a\ngpu 3 GPU-b\n", &q), 0);
	assert_true(q.ngpus == 2 && q.gpus[1].index == 3 && q.owner == 0);
	assert_int_equal(gp_plan_parse("gpu-provision-plan 2\ngpu 1 GPU-a 0000:01:00.0\n"
				       "gpu 3 GPU-b 10000:e1:1f.7\n",
				       &q),
			 0);
	assert_string_equal(q.gpus[0].pci, "0000:01:00.0");
	assert_string_equal(q.gpus[1].pci, "10000:e1:1f.7");
}

/* any:N and model:TEXT:N choose every GPU they may take; alloc.c takes N at the start. */
static void portable_selectors(void **state)
{
	bool c[GP_MAX_GPUS];

	(void)state;
	assert_int_equal(select_gpus("any:2", &quad, c), 0);
	assert_int_equal(count(c), 4);
	assert_int_equal(select_gpus(" any:4 ", &quad, c), 0);
	assert_int_equal(count(c), 4);
	assert_int_equal(select_gpus("model:a6000:1", &quad, c), 0);
	assert_int_equal(count(c), 4);
	assert_int_equal(select_gpus("model:H200:1", &h200, c), 0);
	assert_true(c[0] && count(c) == 1);
	assert_int_equal(select_gpus("model:NVIDIA:1", &h200, c), 0);
	assert_true(c[0] && count(c) == 1);
	assert_true(gp_selection_is_portable(" any:1"));
	assert_true(gp_selection_is_portable("model:x:1"));
	assert_false(gp_selection_is_portable("all"));
	assert_false(gp_selection_is_portable("0,any:1"));
}

static void portable_selector_errors(void **state)
{
	static const struct {
		const char *spec, *message;
	} cases[] = {
		{ "any:0", "\"any:0\" asks for 0 GPUs; write any:N" },
		{ "any:65", "\"any:65\" asks for 65 GPUs" },
		{ "any:x", "\"any:x\": \"x\" is not a number of GPUs" },
		{ "any:", "\"any:\": \"\" is not a number of GPUs" },
		{ "any:-1", "is not a number of GPUs" },
		{ "any:1:2", "is not a number of GPUs" },
		{ "model::1", "\"model::1\" names no model as TEXT" },
		{ "model:a:b:1", "\"model:a:b:1\" names no model as TEXT" },
		{ "model:a b:1", "names no model as TEXT" },
		{ "model:a", "\"model:a\" says no number of GPUs" },
		{ "model:a:", "is not a number of GPUs" },
		{ "model:a:0", "asks for 0 GPUs" },
		{ "any:1,0", "stand alone, not with other selectors" },
		{ "0,any:1", "stand alone" },
		{ "model:a6000:1,model:a6000:1", "stand alone" },
		{ "any:5", "any:5 wants 5 GPUs; the host has 4" },
		{ "model:H100:1",
		  "model:H100:1 wants 1 GPU whose model contains \"H100\"; the host "
		  "has 0 (see gpu-provision host)" },
		{ "ANY:1", "\"ANY:1\" is not a GPU selector; use all, an index, a GPU-UUID, a PCI "
			   "address, any:N or model:TEXT:N" },
	};
	bool c[GP_MAX_GPUS];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(select_gpus(cases[i].spec, &quad, c), -GP_EBADCONF);
		if (!strstr(said.text, cases[i].message))
			fail_msg("\"%s\": \"%s\" not in \"%s\"", cases[i].spec, cases[i].message,
				 said.text);
		assert_int_equal(count(c), 0);
	}
}

/* caps name GPUs by device minor, devn runs no hook: a selection that takes any GPU has neither. */
static void portable_refuses_caps(void **state)
{
	struct gp_ini conf;
	struct gp_plan p;
	int r;

	(void)state;
	memset(&conf, 0, sizeof(conf));
	snprintf(conf.path, sizeof(conf.path), "/etc/gpu-provision/ct.ini");
	snprintf(conf.devices, sizeof(conf.devices), "any:1");
	snprintf(conf.caps, sizeof(conf.caps), "mig-config");
	conf.devices_line = 2;
	conf.caps_line = 3;
	gp_log_capture_start(&said);
	r = gp_plan_for_conf(FIXTURES "/h200-580-open", &h200, &conf, GP_WHERE_LINE, NULL, &p);
	gp_log_capture_stop(&said);
	assert_int_equal(r, -GP_EBADCONF);
	assert_int_equal(said.count, 1);
	assert_string_equal(said.text,
			    "/etc/gpu-provision/ct.ini:3: caps = mig-config needs fixed GPUs (MIG "
			    "caps name them by device minor, gpuM/giG/ciC), but devices = any:1 "
			    "takes whichever are free at each start: select the GPUs by UUID, "
			    "index or PCI address, or take caps out");
	/* Nor in Proxmox's mode devn, which runs no hook to choose them. */
	conf.caps[0] = '\0';
	snprintf(conf.mode, sizeof(conf.mode), "devn");
	gp_log_capture_start(&said);
	r = gp_plan_for_conf(NULL, &quad, &conf, GP_WHERE_NONE, NULL, &p);
	gp_log_capture_stop(&said);
	assert_int_equal(r, -GP_EBADCONF);
	assert_string_equal(said.text, "devices = any:1 takes whichever GPUs are free at each "
				       "start, which gpu-hook decides, and mode devn runs no hook: "
				       "use mode hook, or select the GPUs by UUID, index or PCI "
				       "address");
	/* Otherwise it plans every GPU it may get: the rules attach writes. */
	conf.mode[0] = '\0';
	assert_int_equal(gp_plan_for_conf(NULL, &quad, &conf, GP_WHERE_NONE, NULL, &p), 0);
	assert_int_equal(p.n, 7);
	assert_int_equal(p.ngpus, 0);
}

static void node_names(void **state)
{
	(void)state;
	assert_true(gp_devnode_name_is_valid("nvidia0"));
	assert_true(gp_devnode_name_is_valid("nvidia-caps/nvidia-cap4323"));
	assert_false(gp_devnode_name_is_valid("nvidia254"));
	assert_false(gp_devnode_name_is_valid("nvidia 1"));
	assert_false(gp_devnode_name_is_valid("nvidia-caps/../nvidia0"));
	assert_true(gp_devnode_name_is_valid("nvidia-modeset")); /* graphics, display */
	assert_false(gp_devnode_name_is_valid("nvidia-modeset1"));
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
		cmocka_unit_test(plan_v2_round_trip),
		cmocka_unit_test(plan_v2_strictness),
		cmocka_unit_test(portable_selectors),
		cmocka_unit_test(portable_selector_errors),
		cmocka_unit_test(portable_refuses_caps),
		cmocka_unit_test(node_names),
	};
	return cmocka_run_group_tests_name("plan", tests, setup, teardown);
}
