/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Messages for people: one place decides where they go. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"

bool gp_log_stdout;
const char *gp_log_prefix = "gpu-provision";
static struct gp_log_capture *capture;

static void keep(const char *msg)
{
	struct gp_log_capture *c = capture;
	int n;

	if (c->len >= sizeof(c->text) - 1)
		return;
	n = snprintf(c->text + c->len, sizeof(c->text) - c->len, "%s%s", c->count ? "; " : "", msg);
	c->len += n < 0 ? 0 : (size_t)n;
	if (c->len >= sizeof(c->text))
		c->len = sizeof(c->text) - 1;
	c->count++;
}

static void log_line(const char *level, const char *suffix, const char *fmt, va_list ap)
{
	int saved = errno;
	char msg[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (suffix)
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), ": %s", suffix);
	if (capture) {
		if (*level)
			keep(msg);
		errno = saved;
		return;
	}
	fprintf(stderr, "%s: %s%s\n", gp_log_prefix, level, msg);
	if (gp_log_stdout) {
		fprintf(stdout, "%s: %s%s\n", gp_log_prefix, level, msg);
		fflush(stdout);
	}
	errno = saved;
}

void gp_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line("error: ", NULL, fmt, ap);
	va_end(ap);
}

void gp_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line("warning: ", NULL, fmt, ap);
	va_end(ap);
}

void gp_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line("", NULL, fmt, ap);
	va_end(ap);
}

int gp_error_errno(int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line("error: ", gp_strerror(ret < 0 ? -ret : ret), fmt, ap);
	va_end(ap);
	return ret;
}

int gp_error_at(int ret, const char *where, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gp_error("%s%s%s", where ? where : "", where ? ": " : "", msg);
	return ret;
}

void gp_log_capture_start(struct gp_log_capture *c)
{
	c->text[0] = '\0';
	c->len = 0;
	c->count = 0;
	c->prev = capture;
	capture = c;
}

void gp_log_capture_stop(struct gp_log_capture *c)
{
	if (capture == c)
		capture = c->prev;
}

const char *gp_strerror(int err)
{
	switch (err) {
	case GP_EREFUSED: /* worded as the EPERM and EINVAL that stood for them were */
		return strerror(EPERM);
	case GP_EBADCONF:
		return strerror(EINVAL);
	default:
		return strerror(err);
	}
}
