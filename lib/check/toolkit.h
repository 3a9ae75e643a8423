/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/check/toolkit.c. */
#ifndef GP_TOOLKIT_H
#define GP_TOOLKIT_H

#include <stdbool.h>
#include <stddef.h>

#include "host/facts.h" /* enum gp_tristate: GP_UNKNOWN where a file does not say */

/*
 * What NVIDIA's container toolkit and Docker left in a container, as check reads it from the
 * rootfs without running anything there: the toolkit's config.toml, Docker's daemon.json and
 * version, and the CDI specs of NVIDIA's generator. Each file is opened only as a regular
 * file of the container's own filesystem, through no symbolic link, and up to a size limit;
 * what a file says is kept here as plain data (read in rootfsread.c's child, this struct is
 * what comes back).
 */

/* The files read, in the order they are said. */
enum gp_toolkit_file {
	GP_TK_CONFIG, /* /etc/nvidia-container-runtime/config.toml */
	GP_TK_DAEMON, /* /etc/docker/daemon.json */
	GP_TK_DPKG,   /* /var/lib/dpkg/status, for Docker's version */
	GP_TK_SPEC_ETC_YAML,
	GP_TK_SPEC_ETC_JSON,
	GP_TK_SPEC_RUN_YAML,
	GP_TK_NFILES
};
#define GP_TK_SPEC_FIRST GP_TK_SPEC_ETC_YAML

/* The size limits: a config or a spec, and dpkg's status (every package's stanza). */
#define GP_TOOLKIT_FILE_MAX (1024 * 1024)
#define GP_TOOLKIT_DPKG_MAX (64 * 1024 * 1024)

/* The path of a file inside the container ("/etc/docker/daemon.json"). */
const char *gp_toolkit_path(enum gp_toolkit_file which);

/*
 * Whether a file was read: 0; -ENOENT none; -ELOOP a symbolic link on its path (not
 * followed); -EINVAL not a regular file (a FIFO, a device); -EFBIG over its limit; -EXDEV
 * behind a mount of the container's (not entered); -GP_EBADCONF not parsed (why, with the
 * line); another -errno.
 */
struct gp_toolkit_read {
	int status;
	char why[192];
};

/* Whether a program or file a configuration names is there. */
enum gp_presence { GP_PRESENT, GP_ABSENT, GP_UNJUDGED };

struct gp_toolkit_runtime {
	char name[64];	/* docker's name for it: nvidia */
	bool defined;	/* daemon.json's runtimes has it */
	char path[256]; /* its program ("nvidia-container-runtime"), "" for none said */
	enum gp_presence program;
};

/* One CDI spec file of NVIDIA's generator. */
struct gp_toolkit_spec {
	char kind[64];
	unsigned int nodes, nodes_absent; /* device nodes it names, and those not in /dev */
	bool nodes_judged;		  /* /dev of a running container was reached */
	char node_absent[128];		  /* the first absent */
	unsigned int files, files_absent; /* mounts' hostPath and hooks' path */
	char file_absent[256];
};

struct gp_toolkit {
	bool read; /* the reader came to it */
	struct gp_toolkit_read files[GP_TK_NFILES];
	/* config.toml: [nvidia-container-cli] no-cgroups, and its line */
	enum gp_tristate no_cgroups;
	unsigned int no_cgroups_line;
	/* daemon.json */
	enum gp_tristate cdi_feature;		   /* "features": {"cdi": ...} */
	struct gp_toolkit_runtime default_runtime; /* name "" when it names none */
	struct gp_toolkit_runtime nvidia;	   /* runtimes.nvidia */
	/* dpkg's status: docker.io or docker-ce installed, and its version ("26.1.5+dfsg1-9") */
	char docker_package[32];
	char docker_version[64];
	struct gp_toolkit_spec specs[GP_TK_NFILES - GP_TK_SPEC_FIRST];
};

/*
 * Reads what is above from rootfd (a container's rootfs). running: the rootfs is a running
 * container's, whose /dev and /run are mounts of its own, entered only where the container's
 * mount table (tablefd, its mountinfo) says they are tmpfs: there the device nodes a spec
 * names are looked for. Nothing is returned: t says what was read.
 */
void gp_toolkit_read(int rootfd, int tablefd, bool running, struct gp_toolkit *t);

/* Every string of t terminated within its field (t came from another process). */
void gp_toolkit_seal(struct gp_toolkit *t);

/*
 * The parsers, each of one file's text (len bytes, NUL-terminated). 0, or -GP_EBADCONF with
 * why (the line where there is one) said in why.
 */
int gp_toolkit_parse_config(const char *buf, size_t len, struct gp_toolkit *t, char *why,
			    size_t size);
int gp_toolkit_parse_daemon(const char *buf, size_t len, struct gp_toolkit *t, char *why,
			    size_t size);
/* Never fails: a stanza it does not understand is passed over. */
void gp_toolkit_parse_dpkg(const char *buf, size_t len, struct gp_toolkit *t);

/* Docker's version as major * 100 + minor (2805 for 28.5.2), from a dpkg version; -1 none. */
int gp_toolkit_docker_version(const char *dpkg_version);

#endif
