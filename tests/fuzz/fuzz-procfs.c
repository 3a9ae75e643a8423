/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: every parser of the driver's /proc and /sys files, on one input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "host/modules.h"
#include "host/parse.h"
#include "plan/cgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), version[32];
	struct gp_caps_table caps = { 0 };
	struct gp_cg_rule rule;
	struct gp_kconfig kc;
	struct gp_majors m;
	struct gp_params p;
	struct gp_gpu g;
	struct gp_module mod;
	enum gp_flavor fl;

	memcpy(buf, data, size);
	buf[size] = '\0';
	gp_parse_version(buf, version, sizeof(version), &fl);
	gp_parse_params(buf, &p);
	if (gp_parse_information(buf, &g) == 0 && g.minor >= GP_MINOR_MODESET)
		abort();
	gp_parse_devices(buf, &m);
	gp_parse_mig_minors(buf, &caps);
	free(caps.v);
	gp_parse_kconfig(buf, &kc);
	gp_parse_proc_modules(buf, "nvidia_uvm", &mod);
	gp_cgroup_layout_parse(buf);
	gp_cg_rule_parse(buf, &rule);
	gp_options_disable_hmm(buf);
	free(buf);
	return 0;
}
