/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plan of a start: an ini's selection against the host, through the host's vendor
 * (lib/plan/vendor.h). It knows no vendor of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "config/ini.h"
#include "host/userspace.h"
#include "plan/planner.h"
#include "plan/select.h"
#include "plan/vendors.h"

/* "path:line" of an ini's key for the hook and probe; NULL for attach (GP_WHERE_NONE). */
static const char *key_where(const struct gp_ini *conf, enum gp_conf_where where, unsigned int line,
			     char *buf, size_t size)
{
	if (where == GP_WHERE_NONE)
		return NULL;
	snprintf(buf, size, "%s:%u", conf->path, line);
	return buf;
}

/*
 * A portable selection is resolved by gpu-hook at each start: not with caps, which name
 * GPUs by device minor, nor in Proxmox's mode devn, which runs no hook.
 */
static int check_portable(const struct gp_ini *conf, enum gp_conf_where where)
{
	char line[sizeof(conf->path) + 16];

	if (!gp_selection_is_portable(conf->devices))
		return 0;
	if (strcmp(conf->mode, "devn") == 0)
		return gp_error_at(
		    -GP_EBADCONF, key_where(conf, where, conf->devices_line, line, sizeof(line)),
		    "devices = %s takes whichever GPUs are free at each start, which "
		    "gpu-hook decides, and mode devn runs no hook: use mode hook, or "
		    "select the GPUs by UUID, index or PCI address",
		    conf->devices);
	if (conf->caps[0])
		return gp_error_at(
		    -GP_EBADCONF, key_where(conf, where, conf->caps_line, line, sizeof(line)),
		    "caps = %s needs fixed GPUs (MIG caps name them by device minor, "
		    "gpuM/giG/ciC), but devices = %s takes whichever are free at each "
		    "start: select the GPUs by UUID, index or PCI address, or take caps "
		    "out",
		    conf->caps, conf->devices);
	return 0;
}

int gp_plan_for_chosen(const char *root, const struct gp_host *host, const struct gp_ini *conf,
		       enum gp_conf_where where, const bool chosen[GP_MAX_GPUS],
		       struct gp_plan *plan)
{
	const struct gp_vendor *vendor = gp_vendor_for_host(host);
	const char *at_file = where == GP_WHERE_NONE ? NULL : conf->path;
	int r = check_portable(conf, where);

	if (r == 0)
		r = vendor->plan(root, host, chosen, conf->caps, at_file, plan);
	if (r == 0 && conf->inject == GP_INJECT_YES &&
	    (conf->capabilities & (GP_CAP_BIT(GP_CAP_GRAPHICS) | GP_CAP_BIT(GP_CAP_DISPLAY))))
		r = vendor->plan_display(root, host, at_file, plan);
	return r;
}

int gp_plan_for_conf(const char *root, const struct gp_host *host, const struct gp_ini *conf,
		     enum gp_conf_where where, bool chosen[GP_MAX_GPUS], struct gp_plan *plan)
{
	char line[sizeof(conf->path) + 16];
	bool own[GP_MAX_GPUS];
	int r;

	if (!chosen)
		chosen = own;
	r = gp_vendor_for_host(host)->select(
	    conf->devices, host, key_where(conf, where, conf->devices_line, line, sizeof(line)),
	    chosen);
	return r < 0 ? r : gp_plan_for_chosen(root, host, conf, where, chosen, plan);
}

int gp_plan_all(const char *root, const struct gp_host *host, struct gp_plan *plan)
{
	return gp_vendor_for_host(host)->plan_all(root, host, plan);
}
