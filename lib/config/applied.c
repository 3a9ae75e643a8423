/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A container's .applied, the one reader and writer of it (applied.h). */
#include <errno.h>

#include "base/ctx.h"
#include "base/util.h"
#include "config/applied.h"
#include "config/ini.h"

int gp_applied_read(const struct gp_ctx *ctx, const char *path, char **text)
{
	int r = gp_ini_read_owned(path, ctx->owner, GP_APPLIED_MAX_SIZE, text);

	return r == -EFBIG ? -GP_EBADCONF : r; /* for the admin to fix, as an ini */
}

char *gp_applied_peek(const char *path)
{
	char *buf = NULL;

	if (gp_read_file(path, GP_APPLIED_MAX_SIZE, &buf, NULL) < 0)
		buf = NULL;
	return buf;
}

int gp_applied_write(const struct gp_ctx *ctx, const char *name, const char *text, size_t len)
{
	_cleanup_free_ char *path = gp_applied_path(ctx, name);
	int r;

	if (!path)
		return -ENOMEM;
	r = gp_mkdir_parents(path);
	if (r == 0)
		r = gp_write_file_atomic(path, text, len, gp_container_file_mode(ctx), GP_DURABLE);
	return r < 0 ? gp_ini_write_failed(path, r) : 0;
}
