/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The device vendors this build knows: the one place that names them. */
#include "util.h"
#include "vendor.h"

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
