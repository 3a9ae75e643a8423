/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/diagnose/nestedrun.c. */
#ifndef GP_NESTEDRUN_H
#define GP_NESTEDRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "diagnose/proberun.h"
#include "plan/plan.h"

/* The deadline of the second run that removes a nested container left behind. */
#define GP_NESTED_CLEANUP_MS 15000

/* The runtime inside the container: podman, or docker where podman is absent (AUTO). */
enum gp_nested_runtime { GP_NESTED_AUTO, GP_NESTED_PODMAN, GP_NESTED_DOCKER };

/* How far the nested run came before gpu-probe could run. */
enum gp_nested_outcome {
	GP_NESTED_RAN,	      /* the runtime ran the nested container (the probe may still fail) */
	GP_NESTED_NO_RUNTIME, /* no podman or docker in the container's PATH */
	GP_NESTED_NO_CDI, /* no CDI spec at /etc/cdi/gpu-provision.json: the start injected none */
	GP_NESTED_NO_IMAGE, /* the image is not in the runtime's store */
	GP_NESTED_NO_FILE,  /* the probe's file could not be made under /run or /tmp */
};

/* What a nested run was asked and what it found. All of it but image and want came from
 * the container. */
struct gp_nested {
	const char *image;
	enum gp_nested_runtime want;
	enum gp_nested_runtime runtime; /* the one that ran; AUTO while not known */
	char name[32]; /* gpu-probe-<16 hex>: the container and its file's directory */
	enum gp_nested_outcome outcome;
	bool no_loader;	  /* the image could not execute gpu-probe: no glibc loader */
	bool cleanup_ran; /* the run did not end cleanly: a second run removed what it left */
	int cleanup;	  /* that run's answer: GP_NESTED_CLEANUP_* */
	char err[200];	  /* the runtime's first line on stderr, escaped */
};

#define GP_NESTED_CLEANUP_REMOVED 0 /* the nested container was there and is gone */
#define GP_NESTED_CLEANUP_NONE 1    /* none was there */
#define GP_NESTED_CLEANUP_LEFT 2    /* it is still there */
#define GP_NESTED_CLEANUP_FAILED 3  /* the run itself failed (timeout, no runtime) */

/* "podman", "docker", "auto". */
const char *gp_nested_runtime_name(enum gp_nested_runtime rt);

/* Parses --runtime's word: 0, or -GP_EBADCONF for anything but podman and docker. */
int gp_nested_runtime_parse(const char *word, enum gp_nested_runtime *out);

/* The image word a nested run takes: a reference of letters, digits and "._-/:@", no leading
 * '-', under 256 bytes. */
bool gp_nested_image_is_valid(const char *image);

/*
 * The runtime's argv (NULL-terminated, malloc'd, for gp_probe_argv_free) that runs
 * probe_argv (gp_probe_argv's, its first word dropped) in image as the nested container name,
 * with the file at file bound read-only as /gpu-probe. NULL: ENOMEM.
 */
char **gp_nested_argv(enum gp_nested_runtime rt, const char *runtime_path, const char *name,
		      const char *file, const char *image, char *const *probe_argv);

/* The runtime's argv of the cleanup: rm -f name. */
char **gp_nested_rm_argv(const char *runtime_path, const char *name);

/*
 * Splits what the attached process wrote: its first line, "nested podman" or "nested
 * docker", sets n->runtime and *rest points after it. -GP_EBADCONF when it is not there
 * (*rest is then out).
 */
int gp_nested_take_line(const char *out, struct gp_nested *n, const char **rest);

/*
 * Fills n and r from how the attached process ch ended: the nested line, the probe's report
 * after it (gp_probe_take), what stopped it before the probe (n->outcome, from its exit code
 * where nothing of the probe came), an image that could not execute the probe
 * (n->no_loader), the runtime's first line on stderr.
 */
void gp_nested_take(const struct gp_child *ch, struct gp_nested *n, struct gp_probe_result *r);

/*
 * Whether the run did not end cleanly, so that a nested container may be left: the
 * deadline, the output cap, a signal, a process not reaped, or a report cut short once the
 * runtime ran.
 */
bool gp_nested_must_clean(const struct gp_child *ch, const struct gp_nested *n,
			  const struct gp_probe_result *r);

/*
 * Runs gpu-probe as gp_probe_run does, but one level deeper: attached inside the container,
 * its runtime (n->want) runs image as a nested container through the start's CDI spec
 * (--device nvidia.com/gpu=all), the probe bound into it read-only from a file the attached
 * process makes under the container's /run (or /tmp) and removes afterwards. Where the run
 * did not end cleanly (the deadline, a signal, an incomplete report), a second attached run
 * with its own deadline removes the nested container by its name. Returns as gp_probe_run
 * does, with n filled; n->outcome says whether the probe could run at all.
 */
int gp_nested_run(const char *lxcpath, const char *ct, const char *probe_path,
		  const struct gp_plan *expected, bool deep, int timeout_ms, struct gp_nested *n,
		  struct gp_probe_result *r);

#endif
