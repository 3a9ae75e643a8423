/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/host/ldcache.c. */
#ifndef GP_LDCACHE_H
#define GP_LDCACHE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The dynamic loader's cache, <root>/etc/ld.so.cache, as glibc's ldconfig (-r) writes it:
 * "glibc-ld.so.cache" version "1.1" (glibc's elf/cache.c and sysdeps/generic/dl-cache.h),
 * optionally after an old "ld.so-1.7.0" table, which is skipped. Only 64-bit x86-64 ELF
 * entries are kept (flags FLAG_ELF_LIBC6 | FLAG_X8664_LIB64, 0x0303): the loader of an
 * x86-64 container looks for nothing else.
 */
#define GP_LDCACHE_MAX_SIZE (16u << 20)
#define GP_LDCACHE_MAX_ENTRIES 65536

struct gp_ldcache_entry {
	const char *soname; /* "libcuda.so.1": points into the parsed buffer */
	const char *path;   /* "/usr/lib/x86_64-linux-gnu/libcuda.so.1" */
};

struct gp_ldcache {
	struct gp_ldcache_entry *v; /* malloc'd; the strings stay in the caller's buffer */
	size_t n;
};

/*
 * Parses a cache held in buf (len bytes, which the caller keeps while it uses the
 * entries). Every offset is checked against the buffer, every string must end inside it
 * and be a name or an absolute path; an entry with a byte that is not printable ASCII (a
 * blank, a control character, UTF-8) is passed over, so no kept string needs escaping.
 * 0, -GP_EBADCONF (not this format, or damaged), -E2BIG (more than GP_LDCACHE_MAX_ENTRIES),
 * -ENOMEM.
 */
int gp_ldcache_parse(const char *buf, size_t len, struct gp_ldcache *cache);
void gp_ldcache_free(struct gp_ldcache *cache);

#endif
