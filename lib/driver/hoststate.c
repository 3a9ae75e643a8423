/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The host state of one command: read once, judged once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "driver/hoststate.h"
#include "driver/kmod.h"
#include "driver/nvml.h"

void gp_host_state_judge(const char *root, unsigned int what, struct gp_host_state *s)
{
	s->nvml = (struct gp_nvml){ .status = -ENOENT };
	if (!s->kconfig_read)
		gp_host_read_kconfig(root, &s->host);
	s->kconfig_read = true;
	s->kmod = gp_kmod_new(root, s->host.kernel_release);
	s->mods_status = gp_modules_read(root, s->kmod, &s->mods);
	if ((what & GP_STATE_NVML) && gp_root_is_host(root) && s->host.driver_loaded)
		gp_nvml_addressing(GP_NVML_TIMEOUT_MS, &s->nvml);
	s->kmsg = gp_kmsg_read(root);
	gp_hmm_judge(&s->host, &s->mods, &s->nvml, s->kmsg, &s->hmm);
}

int gp_host_state_read(const char *root, unsigned int what, struct gp_host_state *s)
{
	int r;

	memset(s, 0, sizeof(*s));
	r = gp_host_read(root, GP_HOST_ALL, &s->host);
	if (r < 0)
		return r;
	s->kconfig_read = true;
	gp_host_state_judge(root, what, s);
	return 0;
}

void gp_host_state_free(struct gp_host_state *s)
{
	gp_host_free(&s->host);
	gp_kmod_free(s->kmod);
	s->kmod = NULL;
	free(s->kmsg);
	s->kmsg = NULL;
}
