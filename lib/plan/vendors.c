/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The device vendors this build knows: the one place that names them. */
#include "base/util.h"
#include "plan/vendors.h"

static const struct gp_vendor *const vendors[] = {
	&gp_vendor_nvidia,
};

const struct gp_vendor *gp_vendor_for_host(const struct gp_host *host)
{
	(void)host; /* a second vendor would choose by what the host view holds */
	return &gp_vendor_nvidia;
}

const struct gp_vendor *gp_vendor_nth(size_t i)
{
	return i < GP_ARRAY_SIZE(vendors) ? vendors[i] : NULL;
}

bool gp_devnode_name_is_valid(const char *name)
{
	const struct gp_vendor *vendor;

	for (size_t i = 0; (vendor = gp_vendor_nth(i)); i++)
		if (vendor->node_name_is_valid(name))
			return true;
	return false;
}
