/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What probe --deep proved: its steps judged into one verdict per device and capability. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "diagnose/deep.h"
#include "diagnose/findings.h"

static const char *const cap_names[GP_DEEP_COUNT] = {
	"compute", "nvml", "nvdec-h264", "nvdec-hevc", "nvdec-av1", "nvenc", "vulkan",
};

/* The probe's part ("deep PART ...") each capability's steps come from. */
static const char *const parts[GP_DEEP_COUNT] = {
	"compute", "nvml", "nvdec", "nvdec", "nvdec", "nvenc", "vulkan",
};

static const char *const status_names[] = { "ok", "absent", "unsupported", "failed" };

const char *gp_deep_cap_name(enum gp_deep_cap c)
{
	return cap_names[c];
}

int gp_deep_cap_parse(const char *s, enum gp_deep_cap *out)
{
	for (int c = 0; c < GP_DEEP_COUNT; c++)
		if (strcmp(s, cap_names[c]) == 0) {
			*out = (enum gp_deep_cap)c;
			return 0;
		}
	return -GP_EBADCONF;
}

const char *gp_deep_status_name(enum gp_deep_status s)
{
	return status_names[s];
}

int gp_deep_status_parse(const char *s, enum gp_deep_status *out)
{
	for (size_t i = 0; i < GP_ARRAY_SIZE(status_names); i++)
		if (strcmp(s, status_names[i]) == 0) {
			*out = (enum gp_deep_status)i;
			return 0;
		}
	return -GP_EBADCONF;
}

static bool is_codec_step(const char *step)
{
	return strcmp(step, "h264") == 0 || strcmp(step, "hevc") == 0 || strcmp(step, "av1") == 0;
}

bool gp_deep_step_of(const struct gp_probe_result *r, int dev, enum gp_deep_cap c,
		     const struct gp_probe_step *s)
{
	const char *item = c == GP_DEEP_NVML ? "uuid" : "device";

	if (strcmp(s->cap, parts[c]) != 0 || (s->device >= 0 && s->device != dev))
		return false;
	if (c >= GP_DEEP_NVDEC_H264 && c <= GP_DEEP_NVDEC_AV1 && is_codec_step(s->step))
		return strcmp(s->step, cap_names[c] + strlen("nvdec-")) == 0;
	if ((c == GP_DEEP_NVML || c == GP_DEEP_VULKAN) && s->code == 0 &&
	    strcmp(s->step, item) == 0)
		return strcmp(s->detail, r->devices[dev].uuid) == 0; /* another GPU's item */
	return true;
}

/* The judging of one capability on one device: its verdict once decided. */
struct judge {
	const struct gp_probe_result *r;
	enum gp_deep_cap cap;
	int device;
	struct gp_deep_verdict *v;
	bool decided;
	const struct gp_probe_step *last; /* its last step seen */
};

static void decide(struct judge *j, enum gp_deep_status status, const struct gp_probe_step *s,
		   const char *detail)
{
	if (j->decided)
		return;
	j->decided = true;
	j->v->status = status;
	GP_SET(j->v->step, "%s", s->step);
	j->v->code = s->code;
	GP_SET(j->v->name, "%s", s->name);
	GP_SET(j->v->detail, "%s", detail ? detail : s->detail);
}

/*
 * A step of no one device that failed decides for every device: absent for the library.
 * VK_INCOMPLETE (5) from Vulkan's device list is no failure: the first 64 devices follow.
 */
static void judge_common(struct judge *j, const struct gp_probe_step *s)
{
	if (s->code == 0 ||
	    (j->cap == GP_DEEP_VULKAN && s->code == 5 && strcmp(s->step, "devices") == 0))
		return;
	decide(j, strcmp(s->step, "library") == 0 ? GP_DEEP_ABSENT : GP_DEEP_FAILED, s, NULL);
}

static void judge_compute(struct judge *j, const struct gp_probe_step *s)
{
	if (s->code != 0)
		decide(j, GP_DEEP_FAILED, s, NULL);
	else if (strcmp(s->step, "kernel-result") == 0)
		decide(j, GP_DEEP_OK, s, NULL);
}

static void judge_nvdec(struct judge *j, const struct gp_probe_step *s)
{
	const char *codec = cap_names[j->cap] + strlen("nvdec-");
	char detail[32];

	if (strcmp(s->step, "context") == 0 && s->code != 0) {
		decide(j, GP_DEEP_FAILED, s, NULL);
	} else if (strcmp(s->step, codec) == 0) {
		if (s->code != 0)
			decide(j, GP_DEEP_FAILED, s, NULL);
		else if (strcmp(s->detail, "unsupported") == 0)
			decide(j, GP_DEEP_UNSUPPORTED, s, "no decoder for it on this GPU");
		else if (snprintf(detail, sizeof(detail), "%s decoder(s)", s->detail) > 0)
			decide(j, GP_DEEP_OK, s, detail);
	}
}

/* NV_ENC_ERR_NO_ENCODE_DEVICE (1) and NV_ENC_ERR_UNSUPPORTED_DEVICE (2): no NVENC here. */
static void judge_nvenc(struct judge *j, const struct gp_probe_step *s)
{
	if (strcmp(s->step, "open") == 0 && (s->code == 1 || s->code == 2))
		decide(j, GP_DEEP_UNSUPPORTED, s, "no encoder on this GPU");
	else if (s->code != 0)
		decide(j, GP_DEEP_FAILED, s, NULL);
	else if (strcmp(s->step, "codecs") == 0)
		decide(j, GP_DEEP_OK, s, NULL);
}

/* NVML's and Vulkan's lists of UUIDs: this device's among them. */
static void judge_listed(struct judge *j, const struct gp_probe_step *s)
{
	const char *want = j->r->devices[j->device].uuid;
	const char *item = j->cap == GP_DEEP_NVML ? "uuid" : "device";

	if (strcmp(s->step, item) != 0)
		return;
	if (s->code == 0 && want[0] && strcmp(s->detail, want) == 0)
		decide(j, GP_DEEP_OK, s, NULL);
}

/* No step decided: a list without this device, or a part the probe never finished. */
static void undecided(struct judge *j)
{
	const struct gp_probe_result *r = j->r;
	bool listed = j->cap == GP_DEEP_NVML || j->cap == GP_DEEP_VULKAN;
	bool here = strcmp(r->stage_cap, parts[j->cap]) == 0 &&
		    (r->stage_device == j->device || r->stage_device < 0);
	struct gp_probe_step none = { .code = 0 };

	GP_SET(none.step, "%s", j->last ? j->last->step : "-");
	GP_SET(none.name, "-");
	if (listed && r->complete)
		decide(j, GP_DEEP_FAILED, &none,
		       j->cap == GP_DEEP_NVML ? "NVML does not list this GPU's UUID"
					      : "no Vulkan device has this GPU's UUID");
	else if (r->complete)
		decide(j, GP_DEEP_FAILED, &none, "the probe gave no result for it");
	else if (r->timed_out && here)
		decide(j, GP_DEEP_FAILED, &none, "hung after this step until the deadline");
	else
		decide(j, GP_DEEP_FAILED, &none, "not reached: the probe ended before it");
	if (!(listed && r->complete))
		GP_SET(j->v->name, "%s", r->timed_out && here ? "hung" : "not-reached");
}

static void judge_one(struct judge *j)
{
	static void (*const by_cap[GP_DEEP_COUNT])(struct judge *, const struct gp_probe_step *) = {
		judge_compute, judge_listed, judge_nvdec,  judge_nvdec,
		judge_nvdec,   judge_nvenc,  judge_listed,
	};

	bool listed = j->cap == GP_DEEP_NVML || j->cap == GP_DEEP_VULKAN;

	for (size_t i = 0; i < j->r->nsteps && !j->decided; i++) {
		const struct gp_probe_step *s = &j->r->steps[i];

		if (strcmp(s->cap, parts[j->cap]) != 0 ||
		    (s->device >= 0 && s->device != j->device))
			continue;
		if (gp_deep_step_of(j->r, j->device, j->cap, s))
			j->v->ms += s->ms;
		j->last = s;
		if (s->device < 0)
			judge_common(j, s);
		if (!j->decided && (s->device >= 0 || listed))
			by_cap[j->cap](j, s);
	}
	if (!j->decided)
		undecided(j);
}

void gp_deep_judge(const struct gp_probe_result *r, struct gp_deep *d)
{
	memset(d, 0, sizeof(*d));
	d->ndevices = r->cuinit_done && r->cuinit_code == 0 ? r->ndevices : 0;
	if (d->ndevices < 0 || d->ndevices > GP_PROBE_MAX_DEVICES)
		d->ndevices = 0; /* never from the parser; a count it refused is not kept */
	for (int dev = 0; dev < d->ndevices; dev++)
		for (int c = 0; c < GP_DEEP_COUNT; c++) {
			struct judge j = {
				r, (enum gp_deep_cap)c, dev, &d->v[dev][c], false, NULL
			};

			judge_one(&j);
		}
}

enum gp_deep_status gp_deep_worst(const struct gp_deep *d, enum gp_deep_cap c)
{
	static const int rank[] = { [GP_DEEP_OK] = 0,
				    [GP_DEEP_UNSUPPORTED] = 1,
				    [GP_DEEP_ABSENT] = 2,
				    [GP_DEEP_FAILED] = 3 };
	enum gp_deep_status worst = GP_DEEP_OK;

	for (int dev = 0; dev < d->ndevices; dev++)
		if (rank[d->v[dev][c].status] > rank[worst])
			worst = d->v[dev][c].status;
	return worst;
}
