/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef GP_PATHS_H
#define GP_PATHS_H

#include <stddef.h>

/* Where make put things; the Makefile passes each, these are the same defaults. */
#ifndef GP_VERSION
#define GP_VERSION "0"
#endif
#ifndef GP_CONFDIR
#define GP_CONFDIR "/etc/gpu-provision"
#endif
#ifndef GP_SBINDIR
#define GP_SBINDIR "/usr/local/sbin"
#endif
#ifndef GP_LIBEXECDIR
#define GP_LIBEXECDIR "/usr/local/libexec/gpu-provision"
#endif

/*
 * The program name beside the running binary, when it is there and executable (a build
 * tree, where all binaries sit in one folder), else in installed_dir. Returns 0 when the
 * chosen file is executable, -ENOENT otherwise; out holds the path either way.
 */
int gp_program_path(const char *name, const char *installed_dir, char *out, size_t size);

#endif
