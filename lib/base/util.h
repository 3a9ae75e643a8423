/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/base/util.c. */
#ifndef GP_UTIL_H
#define GP_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/log.h"

#define GP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline void gp_freep(void *p)
{
	free(*(void **)p);
}

static inline void gp_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

#define _cleanup_free_ __attribute__((cleanup(gp_freep)))
#define _cleanup_close_ __attribute__((cleanup(gp_closep)))

#define steal_ptr(p)                                                                               \
	({                                                                                         \
		__typeof__(p) _tmp = (p);                                                          \
		(p) = NULL;                                                                        \
		_tmp;                                                                              \
	})

#define steal_fd(fd)                                                                               \
	({                                                                                         \
		int _tmp = (fd);                                                                   \
		(fd) = -1;                                                                         \
		_tmp;                                                                              \
	})

/*
 * Reads a whole file of at most max bytes into a NUL-terminated malloc'd buffer.
 * Returns 0, -errno, or -EFBIG when the file is larger than max.
 */
int gp_read_file(const char *path, size_t max, char **buf, size_t *len);
/* The same from an open descriptor, from its current offset (checked files: fstat, then this). */
int gp_read_fd(int fd, size_t max, char **buf, size_t *len);

/*
 * Writes data to path through a temp file in the same directory and a rename, so a
 * reader sees the old file or the new one; with GP_DURABLE the data is fsync'ed first.
 */
#define GP_DURABLE 1u
int gp_write_file_atomic(const char *path, const char *data, size_t len, mode_t mode,
			 unsigned int flags);

/*
 * A file of runtime state (in the run directory, a tmpfs: it need not survive a crash, so
 * no fsync at each start): its parents made, text written atomically, mode 0644. 0, or
 * -errno (said).
 */
int gp_write_run_file(const char *path, const char *text);

/* Writes data to path, a file that must not exist yet (never over another): 0 or -errno. */
int gp_write_file_new(const char *path, const char *data, size_t len, mode_t mode);

/* Lines to take out of a config file and lines to put in. */
struct gp_line_edit {
	const char *const *remove;
	size_t nremove;
	const char *const *add;
	size_t nadd;
};

/*
 * Rewrites the file at path (at most max bytes) with what edit makes of its text: the
 * old file is kept as "<path>.gpu-provision.bak", the new one renamed into place after
 * fsync, with the old mode, unless path is no longer the file read (inode, device, size,
 * mtime): then -ESTALE and the other writer's file stays. The caller holds the file's
 * lock. Returns 1 when it changed, 0 when edit changed nothing, -errno on failure (said,
 * and the old file untouched).
 */
int gp_edit_file(const char *path, size_t max,
		 char *(*edit)(const char *old, size_t len, void *u, bool *changed), void *u);

/* Makes every missing directory of path (not path's last component), mode 0755. */
int gp_mkdir_parents(const char *path);

/* True for printable ASCII without blanks: a name messages may show as it is. */
bool gp_str_is_printable(const char *s);

/*
 * openat2(2): path resolved from dirfd as resolve (RESOLVE_*) says. GP_RESOLVE_STRICT
 * stays beneath dirfd, follows no symlink and crosses no mount point: the way into a
 * container's rootfs. Returns the fd or -1 with errno.
 */
#define GP_RESOLVE_STRICT 0x0f /* RESOLVE_NO_XDEV | NO_MAGICLINKS | NO_SYMLINKS | BENEATH */
int gp_openat2(int dirfd, const char *path, int flags, mode_t mode, unsigned long long resolve);

/*
 * Opens path (from dirfd, as resolve says) for reading only when it is a regular file:
 * first O_PATH and fstat, then the same inode again through /proc/self/fd, so that no
 * device, FIFO or socket of a container is ever opened (a device's open alone can act).
 * The fd, or -1 with errno (EINVAL for another kind of file).
 */
int gp_open_regular(int dirfd, const char *path, unsigned long long resolve);

/*
 * Walks the lines of [*pos, end): the next line's start and length without its '\n', and
 * *pos moved past it; false when none is left. A last line without '\n' is a line too:
 * one had its newline when line + len < end.
 */
bool gp_line_next(const char **pos, const char *end, const char **line, size_t *len);

/* Trims ASCII blanks at both ends in place and returns s. */
char *gp_strtrim(char *s);

/*
 * Splits s in place into its words (separated by blanks): the first max of them in words,
 * and how many there are, beyond max too. Without sscanf, which costs ten times as much on
 * what the hook parses at each start.
 */
size_t gp_split_words(char *s, char **words, size_t max);

/* Parses a non-negative decimal int that fits in an unsigned int; -GP_EBADCONF otherwise. */
int gp_parse_uint(const char *s, unsigned int *out);

/* True for names LXC and this tool accept for a container: no '/', no leading '.', short. */
bool gp_name_is_valid(const char *name);

/* True when s holds only characters safe inside an LXC hook line run by /bin/sh. */
bool gp_shell_word_is_safe(const char *s);

/* Appends formatted text to a growing malloc'd string; returns 0 or -ENOMEM. */
struct gp_buf {
	char *data;
	size_t len;
	size_t cap;
};
int gp_buf_printf(struct gp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gp_buf_free(struct gp_buf *b);

/* Milliseconds on the monotonic clock: deadlines and durations. */
double gp_now_ms(void);

#endif
