/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/base/log.c. */
#ifndef GP_LOG_H
#define GP_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/*
 * Messages for people, said once where the failure is. Library code says what failed
 * and returns -errno in one step with gp_error_errno; the command decides where
 * messages go: stderr (and stdout for the hook, so LXC's log keeps them), or into a
 * capture that it turns into a finding. None of these functions changes errno.
 */
extern bool gp_log_stdout;
extern const char *gp_log_prefix;
void gp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gp_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* gp_strerror(err), for an errno or one of base/error.h's outcomes. */
const char *gp_strerror(int err);

/*
 * Says "<message>: <gp_strerror(-ret)>" as an error and returns ret (a -errno), so that
 * "return gp_error_errno(-errno, ...)" reports the errno of the failure, not the printer's.
 */
int gp_error_errno(int ret, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Says an error after "where: " (a "file:line", nothing for NULL) and returns ret: the
 * refusals of code that reads what a caller names, e.g. "return gp_error_at(-GP_EBADCONF, where,
 * ...)".
 */
int gp_error_at(int ret, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * While a capture is started, errors and warnings are kept in it ("; "-joined, cut at
 * its size) instead of being printed; info lines are dropped. Captures nest: stop
 * restores the one before. For a command that reports a library's refusal as data.
 */
struct gp_log_capture {
	char text[768];
	size_t len;
	unsigned int count;
	struct gp_log_capture *prev;
};
void gp_log_capture_start(struct gp_log_capture *c);
void gp_log_capture_stop(struct gp_log_capture *c);

#endif
