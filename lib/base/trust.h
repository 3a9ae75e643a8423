/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/base/trust.c. */
#ifndef GP_TRUST_H
#define GP_TRUST_H

#include <stddef.h>
#include <sys/types.h>

/*
 * A program that runs as root at every container start (gpu-hook, and the gpu-provision
 * the hook runs) must be root's, and so must every directory above it, none of them
 * writable by group or others: whoever can write any of them owns the host at the next
 * start (lib/base/trust.c). Puts the program's path without symlinks in real (which callers
 * use from then on, so that no link can be turned later). Returns 0, or -GP_EBADCONF (said,
 * with what to do) when the rule fails, or -errno when the path cannot be checked.
 */
int gp_trust_program(const char *path, char *real, size_t size);

/*
 * A host file given into containers (an injected driver file) is held to the same rule,
 * on descriptors: root, each directory below it and the file, opened O_PATH | O_NOFOLLOW
 * one part at a time from the one checked before, each owned by owner and writable by
 * nobody else; a link on the way is refused. path must lie below root ("/" for the host).
 * Returns the file's O_PATH descriptor (a regular file, the one to bind), -GP_EBADCONF when
 * the rule fails (said, naming the part), or -errno when a part cannot be opened (said).
 */
int gp_trust_open_file(const char *root, const char *path, uid_t owner);

/*
 * The uid the host's root has in this process's user namespace: 0 on the host, the
 * overflow uid (65534) in an unprivileged container's, where it is not mapped.
 */
uid_t gp_host_root_uid(void);

#endif
