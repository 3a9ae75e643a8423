/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every unit test includes: cmocka and the C library it leans on. */
#ifndef GP_UNIT_H
#define GP_UNIT_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/ctx.h"
#include "driver/runtime.h"

/* Runs a shell command made from fmt; the test fails unless it exits 0. */
__attribute__((unused, format(printf, 1, 2))) static void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/*
 * Where the fixtures are: GP_TEST_FIXTURES where set (a copy that a user other than root
 * can reach, made by tools/run-unit.sh --as), else the tree's own.
 */
__attribute__((unused)) static const char *fixtures(void)
{
	const char *dir = getenv("GP_TEST_FIXTURES");

	return dir && *dir ? dir : FIXTURES;
}

/*
 * A context for the code under test, as gp_ctx_init makes one of these words: one of
 * eight kept in turn, so that a test may hold a few at once.
 */
__attribute__((unused)) static const struct gp_ctx *test_ctx(const char *root, const char *confdir,
							     const char *lxcpath, bool pve)
{
	static struct gp_ctx kept[8];
	static unsigned int next;
	struct gp_ctx *ctx = &kept[next++ % 8];

	gp_ctx_init(ctx, root, confdir, lxcpath, pve, GP_CTX_ALL);
	return ctx;
}

/* The runtime gpu-provision reads for a root (the capture's layout) and pve, kept likewise. */
__attribute__((unused)) static const struct gp_runtime *test_runtime(const char *root, bool pve)
{
	static struct gp_runtime kept[8];
	static unsigned int next;
	struct gp_runtime *rt = &kept[next++ % 8];

	gp_runtime_read(test_ctx(root, "/nonexistent", NULL, pve), rt);
	return rt;
}

#endif
