/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/diagnose/proberun.c. */
#ifndef GP_PROBERUN_H
#define GP_PROBERUN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/child.h"
#include "plan/plan.h"
#include "probe/protocol.h"

#define GP_PROBE_OUTPUT_MAX (128 * 1024)
#define GP_PROBE_MAX_STEPS 1536
#define GP_PROBE_BINARY_MAX (4u << 20)
#define GP_PROBE_PATH_ENV "PATH=/usr/sbin:/usr/bin:/sbin:/bin" /* all the probe's environment */

enum gp_probe_status { GP_PROBE_OK, GP_PROBE_FAILED, GP_PROBE_TIMEOUT };

struct gp_probe_node {
	char name[64];
	bool exists, is_chr;
	unsigned int major, minor;
	int open_errno;
};

struct gp_probe_device {
	int ordinal;
	char pci[32];
	char uuid[64];
};

/* One step of --deep: "deep CAP DEVICE STEP CODE NAME MS DETAIL" (probe/deep.c). */
struct gp_probe_step {
	char cap[8]; /* compute, nvml, nvdec, nvenc, vulkan */
	int device;  /* the CUDA ordinal, -1 for a step of no one device */
	char step[16];
	int code;
	char name[48]; /* the code's name, "-" when the library gave none */
	double ms;
	char detail[72]; /* "-" for none */
};

/* What gpu-probe said, and how it ended. Everything in it came from the container. */
struct gp_probe_result {
	enum gp_probe_status status;
	char glibc[32];
	struct gp_probe_node nodes[GP_PLAN_MAX_NODES];
	size_t nnodes;
	bool libcuda_seen; /* the libcuda line came */
	bool libcuda_found;
	char libcuda_path[256];
	char libcuda_suffix[64]; /* "580.159.04" from libcuda.so.580.159.04 */
	bool symbols_missing;
	int driver_version; /* cuDriverGetVersion, -1 if it failed, 0 if not reached */
	bool reached_cuinit;
	bool cuinit_done;
	int cuinit_code;
	char cuinit_name[64];
	int ndevices;
	struct gp_probe_device devices[GP_PROBE_MAX_DEVICES];
	struct gp_probe_step steps[GP_PROBE_MAX_STEPS]; /* --deep's, in order */
	size_t nsteps;
	char stage_cap[8]; /* the last "stage CAP DEVICE": where a hang in --deep was */
	int stage_device;
	bool complete;		 /* the "end" line came */
	unsigned int bad_lineno; /* the first line the parser refused, 0 if none */
	char bad_line[160];	 /* that line, escaped */
	/* How the process ended. */
	bool timed_out;
	char state; /* its /proc/PID/stat state at the deadline ('D': stuck in the kernel) */
	bool reaped;
	int exit_code;	    /* -1 unless it exited */
	int signal;	    /* the signal that killed it, 0 if none */
	bool held_open;	    /* something in the container kept its output open after it ended */
	bool truncated;	    /* it wrote more than GP_PROBE_OUTPUT_MAX and was killed */
	bool attach_failed; /* liblxc could not attach: the probe never ran */
	double elapsed_ms;
};

/*
 * Parses gpu-probe's output strictly: -GP_EBADCONF at the first line it does not expect,
 * which is kept escaped in r->bad_line.
 */
int gp_probe_parse(const char *buf, struct gp_probe_result *r);

/*
 * Runs gpu-probe (the file at probe_path, copied into a sealed memfd so the container
 * can neither see nor change it) inside the running container, with its namespaces,
 * cgroup, credentials and LSM profile and a cleared environment, through liblxc's
 * attach made in a child of lib/base/child.c (no terminal, no descriptor but 0-2). The nodes
 * of expected are given to it to check; deep has it prove each capability too. Never waits longer
 * than timeout_ms for it, attach included: on expiry it notes the process state, kills it and
 * returns, even if it cannot be reaped. Returns 0 with r filled (see r->status), or -errno when the
 * probe could not be started at all.
 */
int gp_probe_run(const char *lxcpath, const char *name, const char *probe_path,
		 const struct gp_plan *expected, bool deep, int timeout_ms,
		 struct gp_probe_result *r);

/* Runs in the attached process, inside the container: its return value is the exit code. */
typedef int (*gp_probe_attached_fn)(void *arg);

/*
 * The attach of gp_probe_run for any fn: fn(arg) runs attached inside the container (its
 * namespaces, cgroup, credentials, LSM profile, a cleared environment) in a child of
 * lib/base/child.c under o, which keeps memfd (and nothing else of ours) open for it.
 * Returns 0 with ch waited for (to be released with gp_child_free) and *attached telling
 * whether liblxc attached; -ESRCH (said) when the container is not running; -errno.
 */
int gp_probe_attach(const char *lxcpath, const char *name, int memfd, gp_probe_attached_fn fn,
		    void *arg, const struct gp_child_opts *o, struct gp_child *ch, bool *attached);

/* Fills r from how ch ended and out, the probe's output in it (parsed with gp_probe_parse). */
void gp_probe_take(const struct gp_child *ch, const char *out, struct gp_probe_result *r);

/* gpu-probe's argv: its name, --deep when asked, NAME:MAJOR:MINOR of each node. NULL: ENOMEM. */
char **gp_probe_argv(const struct gp_plan *expected, bool deep);
void gp_probe_argv_free(char **argv);

/* Ends the calling process as status says a process ended: its exit code, or its signal. */
void __attribute__((noreturn)) gp_probe_end_like(int status);

#endif
