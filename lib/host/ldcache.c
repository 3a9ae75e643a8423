/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dynamic loader's cache, read strictly: every offset and string inside the buffer. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "host/ldcache.h"

/* glibc sysdeps/generic/dl-cache.h */
#define OLD_MAGIC "ld.so-1.7.0"
#define NEW_MAGIC "glibc-ld.so.cache"
#define NEW_VERSION "1.1"
#define OLD_HEADER 16	     /* magic (11, padded to 12) and nlibs */
#define OLD_ENTRY 12	     /* flags, key, value */
#define NEW_HEADER 48	     /* magic, version, nlibs, len_strings, flags, pad, ext, unused */
#define NEW_ENTRY 24	     /* flags, key, value, osversion, hwcap */
#define FLAG_X8664_64 0x0303 /* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */

static uint32_t u32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v; /* the cache is in the host's byte order: x86-64 only here */
}

/* Where the new-format table starts: 0, or after the old table when one comes first. */
static int new_table_start(const char *buf, size_t len, size_t *start)
{
	size_t nlibs, end;

	*start = 0;
	if (len >= sizeof(NEW_MAGIC) - 1 && memcmp(buf, NEW_MAGIC, sizeof(NEW_MAGIC) - 1) == 0)
		return 0;
	if (len < OLD_HEADER || memcmp(buf, OLD_MAGIC, sizeof(OLD_MAGIC) - 1) != 0)
		return -GP_EBADCONF;
	nlibs = u32(buf + 12);
	if (nlibs > GP_LDCACHE_MAX_ENTRIES)
		return -GP_EBADCONF;
	end = OLD_HEADER + nlibs * OLD_ENTRY;
	*start = (end + 7) & ~(size_t)7; /* aligned for the new table's 64-bit fields */
	return *start < len ? 0 : -GP_EBADCONF;
}

/* A string at offset off of the new table: it must end inside the buffer. */
static const char *string_at(const char *table, size_t size, uint32_t off)
{
	const char *s;

	if (off >= size)
		return NULL;
	s = table + off;
	return memchr(s, '\0', size - off) ? s : NULL;
}

static bool is_soname(const char *s)
{
	return *s && !strchr(s, '/') && strlen(s) < 256;
}

static bool is_path(const char *s)
{
	return s[0] == '/' && strlen(s) < 4096 && !strstr(s, "/../") && !strstr(s, "//");
}

int gp_ldcache_parse(const char *buf, size_t len, struct gp_ldcache *cache)
{
	const char *t;
	size_t start, size, nlibs;

	memset(cache, 0, sizeof(*cache));
	if (len > GP_LDCACHE_MAX_SIZE || new_table_start(buf, len, &start) < 0)
		return -GP_EBADCONF;
	t = buf + start;
	size = len - start;
	if (size < NEW_HEADER || memcmp(t, NEW_MAGIC, sizeof(NEW_MAGIC) - 1) != 0 ||
	    memcmp(t + sizeof(NEW_MAGIC) - 1, NEW_VERSION, sizeof(NEW_VERSION) - 1) != 0)
		return -GP_EBADCONF;
	nlibs = u32(t + 20);
	if (nlibs > GP_LDCACHE_MAX_ENTRIES)
		return -E2BIG;
	if (nlibs > (size - NEW_HEADER) / NEW_ENTRY)
		return -GP_EBADCONF;
	cache->v = calloc(nlibs ? nlibs : 1, sizeof(*cache->v));
	if (!cache->v)
		return -ENOMEM;
	for (size_t i = 0; i < nlibs; i++) {
		const char *e = t + NEW_HEADER + i * NEW_ENTRY;
		const char *key = string_at(t, size, u32(e + 4));
		const char *value = string_at(t, size, u32(e + 8));

		if (!key || !value) {
			gp_ldcache_free(cache);
			return -GP_EBADCONF;
		}
		if (u32(e) != FLAG_X8664_64)
			continue;
		if (!is_soname(key) || !is_path(value)) {
			gp_ldcache_free(cache);
			return -GP_EBADCONF;
		}
		/* A name no terminal may see as it is names no driver file: passed over. */
		if (!gp_str_is_printable(key) || !gp_str_is_printable(value))
			continue;
		cache->v[cache->n++] = (struct gp_ldcache_entry){ key, value };
	}
	return 0;
}

void gp_ldcache_free(struct gp_ldcache *cache)
{
	free(cache->v);
	cache->v = NULL;
	cache->n = 0;
}
