/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HMM verdict and the [uvm] plan over the matrix of host states: module flavor,
 * uvm_disable_hmm, CONFIG_DEVICE_PRIVATE, nvidia_uvm loaded or not, idle or in use.
 * Each row states by hand what must come out.
 */
#include "unit.h"

#include "driver/nvml.h"
#include "driver/uvmapply.h"
#include "host/hmm.h"
#include "plan/uvm.h"
#include "base/error.h"

enum { PROP, OPEN };
enum { ABSENT, IDLE, BUSY, NOUNLOAD };
#define U GP_UNKNOWN
#define Y GP_YES
#define N GP_NO

struct row {
	int flavor;
	int uvm;		/* ABSENT, IDLE (use count 0), BUSY (2, held), NOUNLOAD ('-') */
	enum gp_tristate param; /* uvm_disable_hmm when loaded */
	enum gp_tristate dp;	/* CONFIG_DEVICE_PRIVATE */
	enum gp_hmm_policy policy;
	enum gp_tristate active; /* expected */
	enum gp_tristate would;
	const char *plan; /* expected actions, ';'-separated; "CONFLICT" for a refusal */
};

static const struct row rows[] = {
	/* proprietary module: never HMM; auto touches nothing that is loaded */
	{ PROP, IDLE, N, Y, GP_HMM_AUTO, N, N, "" },
	{ PROP, BUSY, N, Y, GP_HMM_AUTO, N, N, "" },
	{ PROP, IDLE, Y, N, GP_HMM_AUTO, N, N, "" },
	{ PROP, BUSY, N, N, GP_HMM_AUTO, N, N, "" },
	{ PROP, ABSENT, U, Y, GP_HMM_AUTO, N, N, "modprobe nvidia_uvm" },
	{ PROP, ABSENT, U, N, GP_HMM_AUTO, N, N, "modprobe nvidia_uvm" },
	/* open module, CONFIG_DEVICE_PRIVATE=y: HMM is on unless the parameter says Y */
	{ OPEN, IDLE, N, Y, GP_HMM_AUTO, Y, Y,
	  "modprobe -r nvidia_uvm;modprobe nvidia_uvm uvm_disable_hmm=1" },
	{ OPEN, BUSY, N, Y, GP_HMM_AUTO, Y, Y, "CONFLICT" },
	{ OPEN, NOUNLOAD, N, Y, GP_HMM_AUTO, Y, Y, "CONFLICT" },
	{ OPEN, IDLE, Y, Y, GP_HMM_AUTO, N, Y, "" },
	{ OPEN, BUSY, Y, Y, GP_HMM_AUTO, N, Y, "" },
	{ OPEN, ABSENT, U, Y, GP_HMM_AUTO, N, Y, "modprobe nvidia_uvm uvm_disable_hmm=1" },
	/* open module without CONFIG_DEVICE_PRIVATE (the H200 capture): HMM cannot be on */
	{ OPEN, IDLE, N, N, GP_HMM_AUTO, N, N, "" },
	{ OPEN, BUSY, N, N, GP_HMM_AUTO, N, N, "" },
	{ OPEN, IDLE, Y, N, GP_HMM_AUTO, N, N, "" },
	{ OPEN, BUSY, Y, N, GP_HMM_AUTO, N, N, "" },
	{ OPEN, ABSENT, U, N, GP_HMM_AUTO, N, N, "modprobe nvidia_uvm" },
	/* build options unknown: auto plays safe and disables */
	{ OPEN, IDLE, N, U, GP_HMM_AUTO, U, U,
	  "modprobe -r nvidia_uvm;modprobe nvidia_uvm uvm_disable_hmm=1" },
	{ OPEN, ABSENT, U, U, GP_HMM_AUTO, N, U, "modprobe nvidia_uvm uvm_disable_hmm=1" },
	/* yes: always off, whatever the verdict; no: never touch a loaded module */
	{ OPEN, IDLE, N, N, GP_HMM_YES, N, N,
	  "modprobe -r nvidia_uvm;modprobe nvidia_uvm uvm_disable_hmm=1" },
	{ PROP, ABSENT, U, N, GP_HMM_YES, N, N, "modprobe nvidia_uvm uvm_disable_hmm=1" },
	{ OPEN, BUSY, N, N, GP_HMM_YES, N, N, "CONFLICT" },
	{ OPEN, BUSY, N, Y, GP_HMM_NO, Y, Y, "" },
	{ OPEN, IDLE, N, Y, GP_HMM_NO, Y, Y, "" },
	{ OPEN, ABSENT, U, Y, GP_HMM_NO, N, Y, "modprobe nvidia_uvm" },
};

static void state_of(const struct row *r, struct gp_host *h, struct gp_modules *m)
{
	memset(h, 0, sizeof(*h));
	h->driver_loaded = true;
	h->flavor = r->flavor == OPEN ? GP_FLAVOR_OPEN : GP_FLAVOR_PROPRIETARY;
	snprintf(h->version, sizeof(h->version), "590.48.01");
	h->kconfig.device_private = r->dp;
	h->kconfig.source = "/boot/config-6.8.12-9-pve";
	gp_modules_init(m);
	m->nvidia.loaded = true;
	m->nvidia.refcnt = 1;
	m->uvm.loaded = r->uvm != ABSENT;
	m->uvm.refcnt = r->uvm == IDLE ? 0 : r->uvm == BUSY ? 2 : -1;
	if (r->uvm == BUSY)
		snprintf(m->uvm.holders, sizeof(m->uvm.holders), "nvidia_peermem");
	m->uvm_disable_hmm = r->uvm == ABSENT ? GP_UNKNOWN : r->param;
	m->uvm_ats_mode = -1;
}

static void plan_text(const struct gp_uvm_plan *p, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	if (p->status == GP_UVM_CONFLICT) {
		snprintf(buf, size, "CONFLICT");
		return;
	}
	for (size_t i = 0; i < p->n; i++) {
		char a[128];

		gp_mod_action_text(&p->act[i], a, sizeof(a));
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ";" : "", a);
	}
}

static void matrix(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct gp_host h;
		struct gp_modules m;
		struct gp_hmm hmm;
		struct gp_uvm_plan plan;
		char got[512];

		state_of(r, &h, &m);
		gp_hmm_judge(&h, &m, NULL, NULL, &hmm);
		gp_uvm_plan(r->policy, GP_CONFLICT_REFUSE, &m, &hmm, &plan);
		plan_text(&plan, got, sizeof(got));
		if (hmm.active != r->active || hmm.would_be_active != r->would ||
		    strcmp(got, r->plan) != 0)
			fail_msg("row %zu: active %d would %d plan \"%s\"; expected %d %d \"%s\"",
				 i, hmm.active, hmm.would_be_active, got, r->active, r->would,
				 r->plan);
	}
}

static void driver_not_loaded_loads_both(void **state)
{
	struct row r = { OPEN, ABSENT, U, Y, GP_HMM_AUTO, N, Y, "" };
	struct gp_host h;
	struct gp_modules m;
	struct gp_hmm hmm;
	struct gp_uvm_plan plan;
	char got[512];

	(void)state;
	state_of(&r, &h, &m);
	m.nvidia.loaded = false;
	gp_hmm_judge(&h, &m, NULL, NULL, &hmm);
	gp_uvm_plan(GP_HMM_AUTO, GP_CONFLICT_REFUSE, &m, &hmm, &plan);
	plan_text(&plan, got, sizeof(got));
	assert_string_equal(got, "modprobe nvidia;modprobe nvidia_uvm uvm_disable_hmm=1");
}

static void conflict_names_holders_and_ways_out(void **state)
{
	struct gp_host h;
	struct gp_modules m;
	struct gp_hmm hmm;
	struct gp_uvm_plan plan;

	(void)state;
	state_of(&rows[7], &h, &m);
	gp_hmm_judge(&h, &m, NULL, NULL, &hmm);
	gp_uvm_plan(GP_HMM_AUTO, GP_CONFLICT_REFUSE, &m, &hmm, &plan);
	assert_true(plan.refuse);
	assert_non_null(strstr(plan.why, "use count 2, held by nvidia_peermem"));
	assert_non_null(strstr(plan.why, "stop what uses the GPU"));
	assert_non_null(strstr(plan.why, "prepare --persist and reboot"));
	gp_uvm_plan(GP_HMM_AUTO, GP_CONFLICT_WARN, &m, &hmm, &plan);
	assert_int_equal(plan.status, GP_UVM_CONFLICT);
	assert_false(plan.refuse);
	state_of(&rows[8], &h, &m);
	gp_uvm_plan(GP_HMM_AUTO, GP_CONFLICT_REFUSE, &m, &hmm, &plan);
	assert_non_null(strstr(plan.why, "this kernel cannot unload modules"));
}

static void nvml_wins(void **state)
{
	struct gp_nvml none = { .status = 0, .modes = { GP_ADDR_NONE }, .n = 1 };
	struct gp_nvml hmm_on = { .status = 0, .modes = { GP_ADDR_NONE, GP_ADDR_HMM }, .n = 2 };
	struct gp_nvml absent = { .status = -ENOENT };
	struct gp_host h;
	struct gp_modules m;
	struct gp_hmm v;

	(void)state;
	/* Files say HMM (open, N, DEVICE_PRIVATE=y); NVML says None: NVML wins. */
	state_of(&rows[6], &h, &m);
	gp_hmm_judge(&h, &m, &none, NULL, &v);
	assert_int_equal(v.active, GP_NO);
	assert_int_equal(v.would_be_active, GP_NO);
	assert_string_equal(v.source, "nvml");
	gp_hmm_judge(&h, &m, &absent, NULL, &v);
	assert_int_equal(v.active, GP_YES);
	assert_string_equal(v.source, "host files");
	/* Files cannot tell (options unknown); NVML sees HMM on one GPU. */
	state_of(&rows[17], &h, &m);
	gp_hmm_judge(&h, &m, &hmm_on, NULL, &v);
	assert_int_equal(v.active, GP_YES);
	assert_int_equal(v.would_be_active, GP_YES);
}

static void kernel_log_signature(void **state)
{
	static const char log[] =
	    "[   12.3] nvidia-uvm: Loaded the UVM driver, major device number 511.\n"
	    "[   12.4] nvidia-uvm: uvm_pmm_gpu_devmem_init() "
	    "request_free_mem_region() err -34\n";
	struct gp_host h;
	struct gp_modules m;
	struct gp_hmm v;

	(void)state;
	assert_non_null(gp_kmsg_hmm_signature(log));
	assert_null(gp_kmsg_hmm_signature("nvidia-uvm: Loaded the UVM driver\n"));
	state_of(&rows[17], &h, &m);
	gp_hmm_judge(&h, &m, NULL, log, &v);
	assert_int_equal(v.would_be_active, GP_YES);
	assert_non_null(strstr(v.evidence[v.n - 1], "err -34"));
}

static void nvml_answer_is_parsed_strictly(void **state)
{
	struct gp_nvml n;

	(void)state;
	assert_int_equal(gp_nvml_parse("modes 0 1 2\n", &n), 0);
	assert_int_equal(n.n, 3);
	assert_int_equal(n.modes[1], GP_ADDR_HMM);
	assert_int_equal(gp_nvml_parse("modes\n", &n), 0);
	assert_int_equal(n.n, 0);
	assert_int_equal(gp_nvml_parse("modes 0 1", &n), -GP_EBADCONF);
	assert_int_equal(gp_nvml_parse("modes 0 x\n", &n), -GP_EBADCONF);
	assert_int_equal(gp_nvml_parse("modes -1\n", &n), -GP_EBADCONF);
	assert_int_equal(gp_nvml_parse("hello\n", &n), -GP_EBADCONF);
	assert_int_equal(gp_nvml_parse("modes 0\nextra", &n), -GP_EBADCONF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(matrix),
		cmocka_unit_test(driver_not_loaded_loads_both),
		cmocka_unit_test(conflict_names_holders_and_ways_out),
		cmocka_unit_test(nvml_wins),
		cmocka_unit_test(kernel_log_signature),
		cmocka_unit_test(nvml_answer_is_parsed_strictly),
	};
	return cmocka_run_group_tests_name("uvm", tests, NULL, NULL);
}
