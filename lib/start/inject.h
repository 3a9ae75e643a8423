/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Implemented in lib/start/inject.c (what is injected), lib/start/injectstage.c (staged by
 * pre-start) and lib/start/injectmount.c (bound by the mount hook).
 */
#ifndef GP_INJECT_H
#define GP_INJECT_H

#include <stdbool.h>
#include <stddef.h>

#include "host/ldconfig.h"

/*
 * Where the driver's user space appears in a container: a tmpfs of ours, mounted at
 * each start and gone at stop, holding the host's files bound read-only. It is the
 * directory NVIDIA's CUDA images already name in /etc/ld.so.conf.d/nvidia.conf.
 */
#define GP_INJECT_DIR "/usr/local/nvidia"
#define GP_INJECT_LIBDIR GP_INJECT_DIR "/lib64"
/* What the rootfs itself gets: inert once the directory above is empty again. */
#define GP_INJECT_LDCONF "/etc/ld.so.conf.d/gpu-provision.conf"

#define GP_INJECT_MAX 160

/* Where a file goes in GP_INJECT_DIR: lib64/, bin/ or share/. */
enum gp_inject_kind { GP_INJECT_LIB, GP_INJECT_PROGRAM, GP_INJECT_CONFIG, GP_INJECT_KINDS };

/* One host file to give the container. */
struct gp_inject_file {
	enum gp_inject_kind kind;
	char name[128];	  /* its name there: libcuda.so.580.159.04, nvidia-smi */
	char soname[64];  /* a library's soname when another name (libcuda.so.1), else "" */
	char link[128];	  /* a program's or manifest's path in the rootfs, linked to it */
	char source[256]; /* the host's file, as this process reaches it */
};

/* The directory of GP_INJECT_DIR a kind of file goes in: "lib64", "bin", "share". */
const char *gp_inject_dir(enum gp_inject_kind kind);

/* What a start injects: pre-start decides it, the mount hook carries it out. */
struct gp_inject {
	char version[32];	     /* the kernel module's: every library is of this version */
	struct gp_ldconfig ldconfig; /* the host's, to write the container's loader cache */
	struct gp_inject_file v[GP_INJECT_MAX];
	size_t n;
	char untrusted[256]; /* the file the owner rule refused (gp_inject_select), else "" */
};

/*
 * The host's files (under root) of the capabilities in caps (GP_CAP_BIT of each; video
 * brings compute and display graphics, as libnvidia-container does) at version, and the
 * host's ldconfig. Files of another version are never taken and each is said. A
 * capability none of whose libraries the host has at version is refused with what to
 * install: -GP_EBADCONF. So is a file that, or a directory above which, is not root's or is
 * writable by group or others (lib/base/trust.c): every container given it could change it;
 * it is named in untrusted.
 */
struct gp_ctx;
int gp_inject_select(const struct gp_ctx *ctx, const char *version, unsigned int caps,
		     struct gp_inject *inj);

/* The capabilities of caps (as expanded) none of whose libraries inj holds. */
unsigned int gp_inject_lacking(const struct gp_inject *inj, unsigned int caps);

/* Serialises an injection as text (malloc'd) and parses it back strictly (-GP_EBADCONF). */
char *gp_inject_format(const struct gp_inject *inj);
int gp_inject_parse(const char *buf, struct gp_inject *inj);

/* The most an injection record holds. */
#define GP_INJECT_FILE_MAX (64 * 1024)

/*
 * Writes inj's record to path (gp_write_run_file) as the mount hook will read it back: one
 * it would refuse (a name or path it cannot parse) is not written, -GP_EBADCONF, said. 0 or
 * -errno, said.
 */
int gp_inject_write(const char *path, const struct gp_inject *inj);

/* Reads the record at path: 0; the read's -errno, or -GP_EBADCONF for a damaged one; says nothing.
 */
int gp_inject_read(const char *path, struct gp_inject *inj);

/*
 * Stages the directories of inj's files for the start of name (lib/start/injectstage.c), read-only
 * in a tmpfs of ours at gp_inject_stage_path: pre-start, before LXC makes the container's
 * namespaces, so that an unprivileged container's copy of it is locked read-only. 0 or
 * -errno (said), nothing left on failure.
 */
int gp_inject_stage(const char *root, const char *name, const struct gp_inject *inj);
/* Takes the staged tree away (post-stop, a refused start): 0 or -errno (said). */
int gp_inject_unstage(const char *root, const char *name);

/*
 * Gives the container name whose rootfs is mounted at rootfs the files of inj, each bound
 * from the tree pre-start staged (under root, the host's, where each file and directory is
 * held to the owner rule again): see docs/driver.md for what is made where. A musl
 * rootfs, a container whose own loader cache names driver libraries of another version,
 * and any path of the rootfs that is a link, a mount point or not a directory are
 * refused; on any failure nothing made is left. Nothing of the rootfs runs; the host's
 * ldconfig, when the container's loader cache lacks the files, runs confined to the rootfs
 * with no privilege. With cdi (a spec of lib/start/cdi.h), it is written into the tree too
 * and linked from the container's CDI directory. 0 or -errno, said.
 */
int gp_inject_mount(const struct gp_ctx *ctx, const char *name, const char *rootfs,
		    const struct gp_inject *inj, const char *cdi);

#endif
