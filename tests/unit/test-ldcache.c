/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The loader's cache as glibc's ldconfig -r writes it, and damaged ones refused. */
#include "unit.h"

#include <stdint.h>
#include <unistd.h>

#include "base/util.h"
#include "host/ldcache.h"

static char root[64];

/* A root whose /usr/lib/x86_64-linux-gnu holds a copy of this system's libz, cached by ldconfig -r.
 */
static int setup(void **state)
{
	char cmd[512];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/gp-ldcache.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(
	    cmd, sizeof(cmd),
	    "mkdir -p %s/etc %s/usr/lib/x86_64-linux-gnu && "
	    "echo /usr/lib/x86_64-linux-gnu >%s/etc/ld.so.conf && "
	    "cp -L /lib/x86_64-linux-gnu/libz.so.1 %s/usr/lib/x86_64-linux-gnu/libz.so.1.9.9 && "
	    "/sbin/ldconfig -r %s",
	    root, root, root, root, root);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd) == 0 ? 0 : -1;
}

static char *read_cache(size_t *len)
{
	char path[128], *buf = NULL;

	snprintf(path, sizeof(path), "%s/etc/ld.so.cache", root);
	assert_int_equal(gp_read_file(path, GP_LDCACHE_MAX_SIZE, &buf, len), 0);
	return buf;
}

/* What ldconfig -r wrote: the soname it took from the ELF, its link, and nothing else. */
static void ldconfig_output(void **state)
{
	struct gp_ldcache c;
	size_t len;
	char *buf = read_cache(&len);

	(void)state;
	assert_int_equal(gp_ldcache_parse(buf, len, &c), 0);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.v[0].soname, "libz.so.1");
	assert_string_equal(c.v[0].path, "/usr/lib/x86_64-linux-gnu/libz.so.1");
	gp_ldcache_free(&c);
	free(buf);
}

static void put32(char *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Each damage of a real cache is refused, never read past. */
static void damaged_caches_refused(void **state)
{
	static const char path[] = "/usr/lib/x86_64-linux-gnu/libz.so.1";
	struct gp_ldcache c;
	size_t len;
	char *buf = read_cache(&len), *bad = malloc(len);
	const char *at;

	(void)state;
	assert_non_null(bad);
	for (size_t cut = 0; cut < 48 + 24; cut++) /* every truncation of header and entry */
		assert_int_equal(gp_ldcache_parse(buf, cut, &c), -GP_EBADCONF);
	memcpy(bad, buf, len);
	bad[17] = '2'; /* version 2.1 */
	assert_int_equal(gp_ldcache_parse(bad, len, &c), -GP_EBADCONF);
	memcpy(bad, buf, len);
	put32(bad + 20, 2); /* two entries where there is room for one */
	assert_int_equal(gp_ldcache_parse(bad, len, &c), -GP_EBADCONF);
	memcpy(bad, buf, len);
	put32(bad + 20, GP_LDCACHE_MAX_ENTRIES + 1);
	assert_int_equal(gp_ldcache_parse(bad, len, &c), -E2BIG);
	memcpy(bad, buf, len);
	put32(bad + 48 + 4, (uint32_t)len); /* key past the end */
	assert_int_equal(gp_ldcache_parse(bad, len, &c), -GP_EBADCONF);
	/* Cut right before the path's NUL: a string that does not end inside the buffer. */
	at = memmem(buf, len, path, sizeof(path));
	assert_non_null(at);
	assert_int_equal(gp_ldcache_parse(buf, (size_t)(at - buf) + sizeof(path) - 1, &c),
			 -GP_EBADCONF);
	memcpy(bad, buf, len);
	put32(bad + 48 + 8, 0); /* the value points at the magic: not an absolute path */
	assert_int_equal(gp_ldcache_parse(bad, len, &c), -GP_EBADCONF);
	memcpy(bad, buf, len);
	put32(bad + 48, 0x0003); /* an i386 entry: skipped, not refused */
	assert_int_equal(gp_ldcache_parse(bad, len, &c), 0);
	assert_int_equal(c.n, 0);
	gp_ldcache_free(&c);
	free(bad);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ldconfig_output),
		cmocka_unit_test(damaged_caches_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
