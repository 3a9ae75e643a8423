/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/diagnose/deep.c. */
#ifndef GP_DEEP_H
#define GP_DEEP_H

#include <stdbool.h>

#include "diagnose/proberun.h"

/* What probe --deep proves on each device: the columns of its report. */
enum gp_deep_cap {
	GP_DEEP_COMPUTE,
	GP_DEEP_NVML,
	GP_DEEP_NVDEC_H264,
	GP_DEEP_NVDEC_HEVC,
	GP_DEEP_NVDEC_AV1,
	GP_DEEP_NVENC,
	GP_DEEP_VULKAN,
	GP_DEEP_COUNT
};

/*
 * ok: it works. absent: the container lacks its library (detail: the soname).
 * unsupported: the GPU has no such engine (the call said so). failed: a call failed, or
 * gave a wrong result, or the probe never got there (name "hung" or "not-reached").
 */
enum gp_deep_status { GP_DEEP_OK, GP_DEEP_ABSENT, GP_DEEP_UNSUPPORTED, GP_DEEP_FAILED };

struct gp_deep_verdict {
	enum gp_deep_status status;
	char step[16]; /* the step that decided it: the one that failed, else the last */
	int code;
	char name[48];
	double ms;	 /* its steps' time together (gp_deep_step_of) */
	char detail[72]; /* ok: decoders or codecs; absent: the soname; failed: what */
};

/* Every capability of every device the probe reported. */
struct gp_deep {
	int ndevices;
	struct gp_deep_verdict v[GP_PROBE_MAX_DEVICES][GP_DEEP_COUNT];
};

/* "compute", "nvml", "nvdec-h264", ..., "vulkan". */
const char *gp_deep_cap_name(enum gp_deep_cap c);

/* Parses a capability's name; -GP_EBADCONF for none of them. */
int gp_deep_cap_parse(const char *s, enum gp_deep_cap *out);

/* "ok", "absent", "unsupported", "failed". */
const char *gp_deep_status_name(enum gp_deep_status s);

/* Parses a status name; -GP_EBADCONF for none of them. */
int gp_deep_status_parse(const char *s, enum gp_deep_status *out);

/*
 * Judges the steps of a probe run with --deep, device by device: the first step that
 * failed decides, a library missing makes the capability absent, an engine the GPU lacks
 * unsupported. UUIDs that NVML and Vulkan list are matched against CUDA's. A capability
 * the probe never reached is failed, "hung" where its stage was when the deadline came.
 */
void gp_deep_judge(const struct gp_probe_result *r, struct gp_deep *d);

/*
 * Whether step s of a probe run is one of device dev's capability c: of its part, shared by
 * every device or this one's; of NVDEC's codecs only c's own; of NVML's and Vulkan's lists
 * of UUIDs only this GPU's (or one that failed). A verdict's time is the sum of these up
 * to the step that decided it.
 */
bool gp_deep_step_of(const struct gp_probe_result *r, int dev, enum gp_deep_cap c,
		     const struct gp_probe_step *s);

/* The worst status of capability c over the devices (failed, absent, unsupported, ok). */
enum gp_deep_status gp_deep_worst(const struct gp_deep *d, enum gp_deep_cap c);

#endif
