/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/base/escape.c. */
#ifndef GP_ESCAPE_H
#define GP_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Text from a container (or from anything that ran container code) made safe for a
 * terminal (lib/base/escape.c owns these): printable ASCII stays (a backslash too, so that
 * text escaped once reads the same when printed again), tab becomes \t, a newline
 * stays only with keep_newlines (else \n), and every other byte (escape sequences,
 * other control characters, bytes above 0x7e) becomes \xNN.
 */

/* Escapes len bytes of src into dst (always NUL-terminated, cut at a whole escape). */
void gp_escape(char *dst, size_t size, const char *src, size_t len, bool keep_newlines);

/* The same into a malloc'd string; NULL on ENOMEM. */
char *gp_escape_dup(const char *src, size_t len, bool keep_newlines);

/* Writes s to f escaped, newlines kept. */
void gp_escape_fputs(const char *s, FILE *f);

#endif
