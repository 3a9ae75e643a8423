/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * probe --deep from the probe's lines to the findings: the parser (strict, bounded), the
 * judging into one verdict per GPU and capability (lib/diagnose/deep.c), the findings of
 * lib/diagnose/diagnosedeep.c with their severities, and the ini's [probe] deep. The world is a
 * container given both GPUs of a 2xH200 host (kernel module 580.95.05) whose deep probe gave
 * what the real one gave: compute, NVML, H.264 and HEVC decoding ok; no AV1 decoder and no
 * NVENC on the H200; no Vulkan loader in the container. Each test changes one part of that
 * report.
 */
#include "unit.h"

#include <limits.h>

#include "base/util.h"
#include "config/ini.h"
#include "diagnose/deep.h"
#include "diagnose/diagnose.h"
#include "diagnose/diagnosedeep.h"
#include "diagnose/probejson.h"
#include "host/userspace.h"
#include "ids.h"

#define VERSION "580.95.05"
#define PCI0 "0000:18:00.0"
#define PCI1 "0000:2a:00.0"
#define UUID0 "GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460"
#define UUID1 "GPU-1c2f0e9b-5a43-4f0e-8f61-3b7d2c9a0e11"

/* What gpu-probe --deep printed before its first part: 14 lines. */
static const char head[] =
    "gpu-probe 1\n"
    "glibc 2.36\n"
    "node nvidiactl 1 1 195 255 0\n"
    "node nvidia0 1 1 195 0 0\n"
    "node nvidia1 1 1 195 1 0\n"
    "node nvidia-uvm 1 1 238 0 0\n"
    "node nvidia-uvm-tools 1 1 238 1 0\n"
    "libcuda 1 /usr/lib/x86_64-linux-gnu/libcuda.so." VERSION " " VERSION "\n"
    "driver 13000\n"
    "stage cuinit\n"
    "cuinit 0 CUDA_SUCCESS\n"
    "devices 2\n"
    "device 0 " PCI0 " " UUID0 "\n"
    "device 1 " PCI1 " " UUID1 "\n";
#define HEAD_LINES 14

/* The compute part on one device as probe/compute.c prints it, every step CUDA_SUCCESS. */
#define COMPUTE_OK(d)                                                                              \
	"stage compute " d "\n"                                                                    \
	"deep compute " d " device 0 CUDA_SUCCESS 0.0 -\n"                                         \
	"deep compute " d " context 0 CUDA_SUCCESS 301.5 -\n"                                      \
	"deep compute " d " current 0 CUDA_SUCCESS 0.0 -\n"                                        \
	"deep compute " d " alloc 0 CUDA_SUCCESS 0.2 -\n"                                          \
	"deep compute " d " htod 0 CUDA_SUCCESS 0.4 -\n"                                           \
	"deep compute " d " dtoh 0 CUDA_SUCCESS 0.3 -\n"                                           \
	"deep compute " d " compare 0 equal 1.1 -\n"                                               \
	"deep compute " d " module 0 CUDA_SUCCESS 72.7 -\n"                                        \
	"deep compute " d " function 0 CUDA_SUCCESS 0.0 -\n"                                       \
	"deep compute " d " launch 0 CUDA_SUCCESS 0.0 -\n"                                         \
	"deep compute " d " sync 0 CUDA_SUCCESS 0.1 -\n"                                           \
	"deep compute " d " kernel-dtoh 0 CUDA_SUCCESS 0.3 -\n"                                    \
	"deep compute " d " kernel-result 0 equal 1.1 -\n"

#define NVDEC_H200(d)                                                                              \
	"stage nvdec " d "\n"                                                                      \
	"deep nvdec " d " h264 0 CUDA_SUCCESS 0.3 7\n"                                             \
	"deep nvdec " d " hevc 0 CUDA_SUCCESS 0.1 7\n"                                             \
	"deep nvdec " d " av1 0 CUDA_SUCCESS 0.1 unsupported\n"

static const char compute_ok[] = "stage compute -\n" COMPUTE_OK("0") COMPUTE_OK("1");
static const char nvdec_h200[] = "stage nvdec -\n" NVDEC_H200("0") NVDEC_H200("1");
static const char nvenc_h200[] = "stage nvenc -\n"
				 "deep nvenc - instance 0 NV_ENC_SUCCESS 1.2 13.0\n"
				 "stage nvenc 0\n"
				 "deep nvenc 0 open 2 NV_ENC_ERR_UNSUPPORTED_DEVICE 3.4 -\n"
				 "stage nvenc 1\n"
				 "deep nvenc 1 open 2 NV_ENC_ERR_UNSUPPORTED_DEVICE 3.1 -\n";
static const char nvml_ok[] = "stage nvml -\n"
			      "deep nvml - init 0 NVML_SUCCESS 24.9 -\n"
			      "deep nvml - count 0 NVML_SUCCESS 0.0 2\n"
			      "deep nvml - uuid 0 NVML_SUCCESS 0.1 " UUID0 "\n"
			      "deep nvml - uuid 0 NVML_SUCCESS 0.1 " UUID1 "\n";
static const char vulkan_none[] = "stage vulkan -\n"
				  "deep vulkan - library 1 - 0.4 libvulkan.so.1\n";

/* One report's parts, the H200's unless a test changes one; end: the "end" line came. */
struct report {
	const char *compute, *nvdec, *nvenc, *nvml, *vulkan;
	bool end;
};
#define H200                                                                                       \
	{                                                                                          \
		compute_ok, nvdec_h200, nvenc_h200, nvml_ok, vulkan_none, true                     \
	}

static struct {
	struct gp_host host;
	struct gp_plan plan;
	bool chosen[GP_MAX_GPUS];
	struct gp_hmm hmm;
	struct gp_expect e;
	struct gp_probe_result r;
	struct gp_deep d;
	struct gp_findings f;
	char *text;
} w;

static char *report_text(const struct report *p)
{
	struct gp_buf b = { 0 };

	assert_int_equal(gp_buf_printf(&b, "%s%s%s%s%s%s%s", head, p->compute, p->nvdec, p->nvenc,
				       p->nvml, p->vulkan, p->end ? "end\n" : ""),
			 0);
	return b.data;
}

/* Parses the report, as gp_probe_run would, and judges it. */
static void run(const struct report *p)
{
	free(w.text);
	w.text = report_text(p);
	memset(&w.r, 0, sizeof(w.r));
	w.r.exit_code = -1;
	assert_int_equal(gp_probe_parse(w.text, &w.r), 0);
	w.r.reaped = true;
	w.r.exit_code = p->end ? 0 : -1;
	gp_deep_judge(&w.r, &w.d);
}

static const struct gp_deep_verdict *verdict(int dev, enum gp_deep_cap c)
{
	return &w.d.v[dev][c];
}

static void assert_verdict_at(const char *file, int line, int dev, enum gp_deep_cap c,
			      enum gp_deep_status status, const char *step, int code,
			      const char *name)
{
	const struct gp_deep_verdict *v = verdict(dev, c);

	if (v->status == status && strcmp(v->step, step) == 0 && v->code == code &&
	    (!name || strcmp(v->name, name) == 0))
		return;
	print_error("GPU %d %s: %s %s %d %s, expected %s %s %d %s\n", dev, gp_deep_cap_name(c),
		    gp_deep_status_name(v->status), v->step, v->code, v->name,
		    gp_deep_status_name(status), step, code, name ? name : "*");
	_fail(file, line);
}
#define assert_verdict(...) assert_verdict_at(__FILE__, __LINE__, __VA_ARGS__)

static void host_gpu(unsigned int minor, const char *pci, const char *uuid)
{
	struct gp_gpu *g = &w.host.gpus[w.host.ngpus];

	g->index = (int)w.host.ngpus++;
	g->minor = minor;
	snprintf(g->pci, sizeof(g->pci), "%s", pci);
	snprintf(g->uuid, sizeof(g->uuid), "%s", uuid);
	snprintf(g->model, sizeof(g->model), "NVIDIA H200");
	w.chosen[g->index] = true;
}

static void plan_node(const char *name, unsigned int major, unsigned int minor)
{
	struct gp_devnode *n = &w.plan.nodes[w.plan.n++];

	snprintf(n->name, sizeof(n->name), "%s", name);
	n->major = major;
	n->minor = minor;
	n->mode = 0666;
}

static int setup(void **state)
{
	(void)state;
	free(w.text);
	memset(&w, 0, sizeof(w));
	w.host.driver_loaded = true;
	snprintf(w.host.version, sizeof(w.host.version), VERSION);
	w.host.flavor = GP_FLAVOR_OPEN;
	w.host.majors.nvidia = GP_MAJOR_NVIDIA;
	w.host.majors.uvm = 238;
	host_gpu(0, PCI0, UUID0);
	host_gpu(1, PCI1, UUID1);
	plan_node("nvidiactl", GP_MAJOR_NVIDIA, GP_MINOR_NVIDIACTL);
	plan_node("nvidia0", GP_MAJOR_NVIDIA, 0);
	plan_node("nvidia1", GP_MAJOR_NVIDIA, 1);
	plan_node("nvidia-uvm", 238, 0);
	plan_node("nvidia-uvm-tools", 238, 1);
	w.hmm.active = GP_NO;
	w.hmm.would_be_active = GP_NO;
	w.hmm.source = "host files";
	/* As provision/probe.c fills it for probe --deep of a container without injection. */
	w.e = (struct gp_expect){ .name = "ct",
				  .attached = true,
				  .plan = &w.plan,
				  .host = &w.host,
				  .chosen = w.chosen,
				  .hmm = &w.hmm,
				  .timeout_ms = 30000,
				  .deep = &w.d };
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(w.text);
	w.text = NULL;
	return 0;
}

/* Judges the report and diagnoses it on a fresh list; returns the status it gave. */
static enum gp_probe_status diagnose(const struct report *p)
{
	run(p);
	memset(&w.f, 0, sizeof(w.f));
	gp_diagnose(&w.r, &w.e, &w.f);
	return w.r.status;
}

static void assert_text(const char *what, const char *field, const char *text)
{
	if (!strstr(field, text))
		fail_msg("%s [%s] lacks [%s]", what, field, text);
}

static void assert_evidence(const char *id, const char *text)
{
	assert_text(id, finding(&w.f, id)->evidence, text);
}

static void assert_fix(const char *id, const char *text)
{
	assert_text(id, finding(&w.f, id)->fix, text);
}

static void assert_summary(const char *id, const char *text)
{
	assert_text(id, finding(&w.f, id)->summary, text);
}

static void assert_severity(const char *id, enum gp_severity s)
{
	assert_string_equal(gp_severity_name(finding(&w.f, id)->severity), gp_severity_name(s));
}

/* (a) the parser */

/* The real 2xH200 report: every step kept, each verdict as the GPU is. */
static void parses_and_judges_the_h200s_report(void **state)
{
	static const struct report h200 = H200;
	static const enum gp_deep_status want[GP_DEEP_COUNT] = {
		GP_DEEP_OK,	     GP_DEEP_OK,	  GP_DEEP_OK,	  GP_DEEP_OK,
		GP_DEEP_UNSUPPORTED, GP_DEEP_UNSUPPORTED, GP_DEEP_ABSENT,
	};

	(void)state;
	run(&h200);
	assert_true(w.r.complete);
	assert_true(w.r.reached_cuinit);
	assert_int_equal(w.r.nsteps, 2 * 13 + 2 * 3 + 3 + 4 + 1);
	assert_string_equal(w.r.steps[7].step, "module");
	assert_true(w.r.steps[7].ms > 72.6 && w.r.steps[7].ms < 72.8);
	assert_int_equal(w.r.steps[2 * 13 + 6].device, -1); /* nvenc's instance */
	assert_string_equal(w.r.steps[2 * 13 + 6].detail, "13.0");
	assert_string_equal(w.r.stage_cap, "vulkan");
	assert_int_equal(w.r.stage_device, -1);
	assert_int_equal(w.d.ndevices, 2);
	for (int dev = 0; dev < 2; dev++)
		for (int c = 0; c < GP_DEEP_COUNT; c++)
			if (verdict(dev, c)->status != want[c])
				fail_msg("GPU %d %s: %s", dev, gp_deep_cap_name(c),
					 gp_deep_status_name(verdict(dev, c)->status));
	assert_verdict(0, GP_DEEP_COMPUTE, GP_DEEP_OK, "kernel-result", 0, "equal");
	assert_verdict(1, GP_DEEP_NVML, GP_DEEP_OK, "uuid", 0, "NVML_SUCCESS");
	assert_string_equal(verdict(1, GP_DEEP_NVDEC_HEVC)->detail, "7 decoder(s)");
	assert_verdict(1, GP_DEEP_NVENC, GP_DEEP_UNSUPPORTED, "open", 2,
		       "NV_ENC_ERR_UNSUPPORTED_DEVICE");
	assert_verdict(0, GP_DEEP_VULKAN, GP_DEEP_ABSENT, "library", 1, "-");
	assert_string_equal(verdict(0, GP_DEEP_VULKAN)->detail, "libvulkan.so.1");
	assert_int_equal(gp_deep_worst(&w.d, GP_DEEP_NVENC), GP_DEEP_UNSUPPORTED);
	assert_int_equal(gp_deep_worst(&w.d, GP_DEEP_COMPUTE), GP_DEEP_OK);
}

/* Each line after the head, alone: refused, and its number kept. */
static void refuses_bad_deep_lines(void **state)
{
	static const char *const bad[] = {
		"deep opencl 0 device 0 CUDA_SUCCESS 0.1 -",		/* unknown capability */
		"deep compute 2 device 0 CUDA_SUCCESS 0.1 -",		/* device >= devices */
		"deep compute 64 device 0 CUDA_SUCCESS 0.1 -",		/* device >= devices */
		"deep compute -1 device 0 CUDA_SUCCESS 0.1 -",		/* negative device */
		"deep compute +1 device 0 CUDA_SUCCESS 0.1 -",		/* signed device */
		"deep compute x device 0 CUDA_SUCCESS 0.1 -",		/* no device */
		"deep compute 0 device 0 CUDA_SUCCESS -0.1 -",		/* negative ms */
		"deep compute 0 device 0 CUDA_SUCCESS nan -",		/* NaN ms */
		"deep compute 0 device 0 CUDA_SUCCESS inf -",		/* infinite ms */
		"deep compute 0 device 0 CUDA_SUCCESS 1e9 -",		/* ms out of range */
		"deep compute 0 device 0 CUDA_SUCCESS 0x1p3 -",		/* a hex float */
		"deep compute 0 device 0 CUDA_SUCCESS 0.1 - extra",	/* a word more */
		"deep compute 0 device 0 CUDA_SUCCESS 0.1",		/* a word less */
		"deep compute 0 device 0 CUDA_SUCCESS 0.1 - ",		/* a blank at the end */
		"deep compute 0 device  0 CUDA_SUCCESS 0.1 -",		/* two blanks */
		"deep compute 0 device\t0 CUDA_SUCCESS 0.1 -",		/* a tab */
		"deep compute 0 device 12abc CUDA_SUCCESS 0.1 -",	/* code not a number */
		"deep compute 0 device +1 CUDA_SUCCESS 0.1 -",		/* code signed with + */
		"deep compute 0 device 99999999999 CUDA_SUCCESS 0.1 -", /* code past int */
		"deep computer 0 device 0 CUDA_SUCCESS 0.1 -",		/* overlong capability */
		"deep compute 0 abcdefghijklmnop 0 CUDA_SUCCESS 0.1 -", /* step of 16 */
		/* cut by a width, its rest would be the code: the words are one short */
		"deep compute 0 abcdefghijklmno5 X 1.0 -",
		"deep compute 0 device 0 "
		"CUDA_ERROR_0123456789012345678901234567890123456 0.1 -", /* name of 48 */
		"deep compute 0 device 0 CUDA_SUCCESS 0.1 "
		"D12345678901234567890123456789012345678901234567890123456789012345678901", /* 72 */
		"deep compute 0 device 0 CUDA_\x1b[31m 0.1 -",		/* a control character */
		"deep compute 0 device 0 CUDA_SUCCESS 0.1 caf\xc3\xa9", /* not ASCII */
		"stage opencl 0",
		"stage compute 2",
		"stage compute",
		"stage compute 0 x",
		"stage compute  0",
		"stage cuinit 0",
	};
	struct gp_buf b = { 0 };

	(void)state;
	for (size_t i = 0; i < GP_ARRAY_SIZE(bad); i++) {
		b.len = 0;
		assert_int_equal(gp_buf_printf(&b, "%s%s\nend\n", head, bad[i]), 0);
		memset(&w.r, 0, sizeof(w.r));
		if (gp_probe_parse(b.data, &w.r) != -GP_EBADCONF)
			fail_msg("accepted case %zu: %s", i, bad[i]);
		assert_int_equal(w.r.bad_lineno, HEAD_LINES + 1);
		assert_int_equal(w.r.nsteps, 0);
	}
	/* The edges that pass: the widest words, the largest device, a negative code. */
	b.len = 0;
	assert_int_equal(
	    gp_buf_printf(&b,
			  "%sdeep compute 1 abcdefghijklmno -9 "
			  "CUDA_ERROR_012345678901234567890123456789012345 999999999.9 "
			  "D1234567890123456789012345678901234567890123456789012345678901234567890"
			  "\nstage nvenc 1\nend\n",
			  head),
	    0);
	memset(&w.r, 0, sizeof(w.r));
	assert_int_equal(gp_probe_parse(b.data, &w.r), 0);
	assert_int_equal(w.r.nsteps, 1);
	assert_int_equal(w.r.steps[0].code, -9);
	assert_int_equal(w.r.steps[0].device, 1);
	assert_int_equal(w.r.stage_device, 1);
	gp_buf_free(&b);
}

/* A step's time from 1e9 ms on is refused, written out in digits too. */
static void refuses_a_step_time_past_range(void **state)
{
	static const char *const bad[] = {
		"deep compute 0 device 0 CUDA_SUCCESS 1000000000.0 -",
		"deep compute 0 device 0 CUDA_SUCCESS 1000000000 -",
		"deep compute 0 device 0 CUDA_SUCCESS 99999999999999999999.0 -",
	};
	struct gp_buf b = { 0 };

	(void)state;
	for (size_t i = 0; i < GP_ARRAY_SIZE(bad); i++) {
		b.len = 0;
		assert_int_equal(gp_buf_printf(&b, "%s%s\nend\n", head, bad[i]), 0);
		memset(&w.r, 0, sizeof(w.r));
		if (gp_probe_parse(b.data, &w.r) != -GP_EBADCONF)
			fail_msg("accepted case %zu: %s", i, bad[i]);
		assert_int_equal(w.r.bad_lineno, HEAD_LINES + 1);
		assert_int_equal(w.r.nsteps, 0);
	}
	gp_buf_free(&b);
}

/* GP_PROBE_MAX_STEPS steps are kept; one more is refused, at its line. */
static void at_most_max_steps(void **state)
{
	struct gp_buf b = { 0 };

	(void)state;
	assert_int_equal(gp_buf_printf(&b, "%s", head), 0);
	for (int i = 0; i < GP_PROBE_MAX_STEPS; i++)
		assert_int_equal(gp_buf_printf(&b, "deep nvml - uuid 0 NVML_SUCCESS 0.1 %s\n",
					       i % 2 ? UUID1 : UUID0),
				 0);
	assert_int_equal(gp_buf_printf(&b, "end\n"), 0);
	memset(&w.r, 0, sizeof(w.r));
	assert_int_equal(gp_probe_parse(b.data, &w.r), 0);
	assert_int_equal(w.r.nsteps, GP_PROBE_MAX_STEPS);
	b.len -= strlen("end\n");
	assert_int_equal(gp_buf_printf(&b, "deep nvml - uuid 0 NVML_SUCCESS 0.1 -\nend\n"), 0);
	memset(&w.r, 0, sizeof(w.r));
	assert_int_equal(gp_probe_parse(b.data, &w.r), -GP_EBADCONF);
	assert_int_equal(w.r.nsteps, GP_PROBE_MAX_STEPS);
	assert_int_equal(w.r.bad_lineno, HEAD_LINES + GP_PROBE_MAX_STEPS + 1);
	gp_buf_free(&b);
}

/*
 * A refused "devices" line keeps no count: the judging and the diagnosis of the partial
 * report (as gp_probe_run goes on with it) stay within the 64 devices (a fuzzer's find).
 */
static void a_refused_count_is_not_kept(void **state)
{
	static const char *const bad[] = { "devices 20000:18:00.0 GPU-1", "devices 65",
					   "devices -1", "devices 2x" };
	char buf[256];

	(void)state;
	for (size_t i = 0; i < GP_ARRAY_SIZE(bad); i++) {
		snprintf(buf, sizeof(buf), "gpu-probe 1\nstage cuinit\ncuinit 0 CUDA_SUCCESS\n%s\n",
			 bad[i]);
		memset(&w.r, 0, sizeof(w.r));
		assert_int_equal(gp_probe_parse(buf, &w.r), -GP_EBADCONF);
		assert_int_equal(w.r.ndevices, 0);
		assert_int_equal(w.r.bad_lineno, 4);
		gp_deep_judge(&w.r, &w.d);
		assert_int_equal(w.d.ndevices, 0);
		memset(&w.f, 0, sizeof(w.f));
		gp_diagnose(&w.r, &w.e, &w.f);
		assert_int_equal(w.r.status, GP_PROBE_FAILED);
	}
}

/* (b) the judging */

/* A library the container lacks: that capability absent on every GPU. */
static void judge_library_missing(void **state)
{
	struct report p = H200;

	(void)state;
	p.nvml = "stage nvml -\ndeep nvml - library 1 - 0.2 libnvidia-ml.so.1\n";
	p.nvdec = "stage nvdec -\ndeep nvdec - library 1 - 0.2 libnvcuvid.so.1\n";
	run(&p);
	for (int dev = 0; dev < 2; dev++) {
		assert_verdict(dev, GP_DEEP_NVML, GP_DEEP_ABSENT, "library", 1, "-");
		assert_string_equal(verdict(dev, GP_DEEP_NVML)->detail, "libnvidia-ml.so.1");
		assert_verdict(dev, GP_DEEP_NVDEC_H264, GP_DEEP_ABSENT, "library", 1, "-");
		assert_verdict(dev, GP_DEEP_NVDEC_AV1, GP_DEEP_ABSENT, "library", 1, "-");
		assert_verdict(dev, GP_DEEP_COMPUTE, GP_DEEP_OK, "kernel-result", 0, NULL);
	}
	assert_int_equal(gp_deep_worst(&w.d, GP_DEEP_NVML), GP_DEEP_ABSENT);
}

/* A symbol the library lacks: failed at "symbols", the symbol as its detail. */
static void judge_symbols_missing(void **state)
{
	struct report p = H200;

	(void)state;
	p.nvdec = "stage nvdec -\ndeep nvdec - symbols 1 - 0.0 cuvidGetDecoderCaps\n";
	p.compute = "stage compute -\ndeep compute - symbols 1 - 0.0 cuMemAlloc_v2\n";
	run(&p);
	for (int dev = 0; dev < 2; dev++) {
		assert_verdict(dev, GP_DEEP_NVDEC_HEVC, GP_DEEP_FAILED, "symbols", 1, "-");
		assert_string_equal(verdict(dev, GP_DEEP_NVDEC_HEVC)->detail,
				    "cuvidGetDecoderCaps");
		assert_verdict(dev, GP_DEEP_COMPUTE, GP_DEEP_FAILED, "symbols", 1, "-");
	}
	assert_int_equal(gp_deep_worst(&w.d, GP_DEEP_COMPUTE), GP_DEEP_FAILED);
}

/* Compute failing at each of its steps on GPU 1: that step decides, GPU 0 stays ok. */
static void judge_compute_at_each_step(void **state)
{
	static const char *const steps[] = { "device",	 "context", "current", "alloc",
					     "htod",	 "dtoh",    "compare", "module",
					     "function", "launch",  "sync",    "kernel-dtoh" };
	char part[4096];

	(void)state;
	for (size_t k = 0; k < GP_ARRAY_SIZE(steps); k++) {
		struct report p = H200;
		size_t len;

		if (strcmp(steps[k], "compare") == 0)
			continue; /* a mismatch, below */
		len = (size_t)snprintf(part, sizeof(part),
				       "stage compute -\n" COMPUTE_OK("0") "stage compute 1\n");
		for (size_t i = 0; i < k; i++)
			len += (size_t)snprintf(
			    part + len, sizeof(part) - len, "deep compute 1 %s 0 %s 0.1 -\n",
			    steps[i], strcmp(steps[i], "compare") ? "CUDA_SUCCESS" : "equal");
		snprintf(part + len, sizeof(part) - len,
			 "deep compute 1 %s 700 CUDA_ERROR_ILLEGAL_ADDRESS 0.5 -\n", steps[k]);
		p.compute = part;
		run(&p);
		assert_verdict(0, GP_DEEP_COMPUTE, GP_DEEP_OK, "kernel-result", 0, NULL);
		assert_verdict(1, GP_DEEP_COMPUTE, GP_DEEP_FAILED, steps[k], 700,
			       "CUDA_ERROR_ILLEGAL_ADDRESS");
	}
}

/* A copy that came back other than written: failed at compare, the words as the code. */
static void judge_compare_mismatch(void **state)
{
	struct report p = H200;

	(void)state;
	p.compute =
	    "stage compute -\n" COMPUTE_OK("0") "stage compute 1\n"
						"deep compute 1 device 0 CUDA_SUCCESS 0.0 -\n"
						"deep compute 1 context 0 CUDA_SUCCESS 1.0 -\n"
						"deep compute 1 current 0 CUDA_SUCCESS 0.0 -\n"
						"deep compute 1 alloc 0 CUDA_SUCCESS 0.2 -\n"
						"deep compute 1 htod 0 CUDA_SUCCESS 0.4 -\n"
						"deep compute 1 dtoh 0 CUDA_SUCCESS 0.3 -\n"
						"deep compute 1 compare 4096 mismatch 1.1 -\n";
	run(&p);
	assert_verdict(1, GP_DEEP_COMPUTE, GP_DEEP_FAILED, "compare", 4096, "mismatch");
	assert_true(verdict(1, GP_DEEP_COMPUTE)->ms > 2.9);
	assert_verdict(0, GP_DEEP_COMPUTE, GP_DEEP_OK, "kernel-result", 0, NULL);
}

/* NVDEC's context failing on one GPU fails its three codecs there, not on the other. */
static void judge_nvdec_context(void **state)
{
	struct report p = H200;

	(void)state;
	p.nvdec = "stage nvdec -\n" NVDEC_H200(
	    "0") "stage nvdec 1\n"
		 "deep nvdec 1 context 101 CUDA_ERROR_INVALID_DEVICE 0.1 -\n";
	run(&p);
	assert_verdict(1, GP_DEEP_NVDEC_H264, GP_DEEP_FAILED, "context", 101, NULL);
	assert_verdict(1, GP_DEEP_NVDEC_HEVC, GP_DEEP_FAILED, "context", 101, NULL);
	assert_verdict(1, GP_DEEP_NVDEC_AV1, GP_DEEP_FAILED, "context", 101, NULL);
	assert_verdict(0, GP_DEEP_NVDEC_H264, GP_DEEP_OK, "h264", 0, NULL);
	assert_verdict(0, GP_DEEP_NVDEC_AV1, GP_DEEP_UNSUPPORTED, "av1", 0, NULL);
}

/* NVENC: open 1 and 2 say there is none on the GPU; 15 at the instance is a failure. */
static void judge_nvenc_codes(void **state)
{
	struct report p = H200;

	(void)state;
	p.nvenc = "stage nvenc -\n"
		  "deep nvenc - instance 0 NV_ENC_SUCCESS 1.2 13.0\n"
		  "stage nvenc 0\n"
		  "deep nvenc 0 open 1 NV_ENC_ERR_NO_ENCODE_DEVICE 3.4 -\n"
		  "stage nvenc 1\n"
		  "deep nvenc 1 open 0 NV_ENC_SUCCESS 3.1 -\n"
		  "deep nvenc 1 codecs 0 NV_ENC_SUCCESS 0.2 h264,hevc,av1\n";
	run(&p);
	assert_verdict(0, GP_DEEP_NVENC, GP_DEEP_UNSUPPORTED, "open", 1, NULL);
	assert_verdict(1, GP_DEEP_NVENC, GP_DEEP_OK, "codecs", 0, NULL);
	assert_string_equal(verdict(1, GP_DEEP_NVENC)->detail, "h264,hevc,av1");
	p.nvenc = "stage nvenc -\ndeep nvenc - instance 15 NV_ENC_ERR_INVALID_VERSION 1.0 13.0\n";
	run(&p);
	assert_verdict(0, GP_DEEP_NVENC, GP_DEEP_FAILED, "instance", 15, NULL);
	assert_verdict(1, GP_DEEP_NVENC, GP_DEEP_FAILED, "instance", 15, NULL);
	assert_string_equal(verdict(1, GP_DEEP_NVENC)->detail, "13.0");
	p.nvenc = "stage nvenc -\n"
		  "deep nvenc - instance 0 NV_ENC_SUCCESS 1.2 13.0\n"
		  "stage nvenc 0\n"
		  "deep nvenc 0 open 10 NV_ENC_ERR_OUT_OF_MEMORY 3.4 -\n"
		  "stage nvenc 1\n"
		  "deep nvenc 1 open 2 NV_ENC_ERR_UNSUPPORTED_DEVICE 3.1 -\n";
	run(&p);
	assert_verdict(0, GP_DEEP_NVENC, GP_DEEP_FAILED, "open", 10, NULL);
	assert_verdict(1, GP_DEEP_NVENC, GP_DEEP_UNSUPPORTED, "open", 2, NULL);
	assert_int_equal(gp_deep_worst(&w.d, GP_DEEP_NVENC), GP_DEEP_FAILED);
}

/* A GPU that NVML's list lacks: failed, with no code (nothing failed, it is not there). */
static void judge_nvml_not_listed(void **state)
{
	struct report p = H200;

	(void)state;
	p.nvml = "stage nvml -\n"
		 "deep nvml - init 0 NVML_SUCCESS 24.9 -\n"
		 "deep nvml - count 0 NVML_SUCCESS 0.0 1\n"
		 "deep nvml - uuid 0 NVML_SUCCESS 0.1 " UUID0 "\n";
	run(&p);
	assert_verdict(0, GP_DEEP_NVML, GP_DEEP_OK, "uuid", 0, NULL);
	assert_verdict(1, GP_DEEP_NVML, GP_DEEP_FAILED, "uuid", 0, "-");
	assert_string_equal(verdict(1, GP_DEEP_NVML)->detail, "NVML does not list this GPU's UUID");
	p.nvml = "stage nvml -\ndeep nvml - init 18 NVML_ERROR_LIB_RM_VERSION_MISMATCH 3.1 -\n";
	run(&p);
	assert_verdict(0, GP_DEEP_NVML, GP_DEEP_FAILED, "init", 18, NULL);
}

/* Vulkan: no driver for the loader, and a loader whose devices are none of the GPUs. */
static void judge_vulkan(void **state)
{
	struct report p = H200;

	(void)state;
	p.vulkan = "stage vulkan -\n"
		   "deep vulkan - version 0 VK_SUCCESS 0.1 1.3.239\n"
		   "deep vulkan - instance -9 VK_ERROR_INCOMPATIBLE_DRIVER 12.0 -\n";
	run(&p);
	assert_verdict(0, GP_DEEP_VULKAN, GP_DEEP_FAILED, "instance", -9,
		       "VK_ERROR_INCOMPATIBLE_DRIVER");
	assert_verdict(1, GP_DEEP_VULKAN, GP_DEEP_FAILED, "instance", -9, NULL);
	p.vulkan =
	    "stage vulkan -\n"
	    "deep vulkan - version 0 VK_SUCCESS 0.1 1.3.239\n"
	    "deep vulkan - instance 0 VK_SUCCESS 12.0 -\n"
	    "deep vulkan - devices 0 VK_SUCCESS 0.1 1\n"
	    "deep vulkan - device 0 VK_SUCCESS 0.1 GPU-6c6c766d-7069-7065-0000-000000000000\n";
	run(&p);
	assert_verdict(0, GP_DEEP_VULKAN, GP_DEEP_FAILED, "device", 0, "-");
	assert_verdict(1, GP_DEEP_VULKAN, GP_DEEP_FAILED, "device", 0, "-");
	assert_string_equal(verdict(1, GP_DEEP_VULKAN)->detail,
			    "no Vulkan device has this GPU's UUID");
	p.vulkan = "stage vulkan -\n"
		   "deep vulkan - version 0 VK_SUCCESS 0.1 1.3.239\n"
		   "deep vulkan - instance 0 VK_SUCCESS 12.0 -\n"
		   "deep vulkan - devices 0 VK_SUCCESS 0.1 2\n"
		   "deep vulkan - device 0 VK_SUCCESS 0.1 " UUID1 "\n"
		   "deep vulkan - device 0 VK_SUCCESS 0.1 " UUID0 "\n";
	run(&p);
	assert_verdict(0, GP_DEEP_VULKAN, GP_DEEP_OK, "device", 0, NULL);
	assert_verdict(1, GP_DEEP_VULKAN, GP_DEEP_OK, "device", 0, NULL);
	/* more devices than the probe asks for: VK_INCOMPLETE, and the first 64 listed */
	p.vulkan = "stage vulkan -\n"
		   "deep vulkan - version 0 VK_SUCCESS 0.1 1.3.239\n"
		   "deep vulkan - instance 0 VK_SUCCESS 12.0 -\n"
		   "deep vulkan - devices 5 VK_INCOMPLETE 0.1 64\n"
		   "deep vulkan - device 0 VK_SUCCESS 0.1 " UUID0 "\n";
	run(&p);
	assert_verdict(0, GP_DEEP_VULKAN, GP_DEEP_OK, "device", 0, NULL);
	assert_verdict(1, GP_DEEP_VULKAN, GP_DEEP_FAILED, "device", 0, "-");
}

/* The deadline in GPU 1's compute: "hung" there, the parts after it "not-reached". */
static void judge_a_timeout(void **state)
{
	struct report p = { "stage compute -\n" COMPUTE_OK(
				"0") "stage compute 1\n"
				     "deep compute 1 device 0 CUDA_SUCCESS 0.0 -\n",
			    "",
			    "",
			    "",
			    "",
			    false };

	(void)state;
	run(&p);
	w.r.timed_out = true;
	gp_deep_judge(&w.r, &w.d);
	assert_verdict(0, GP_DEEP_COMPUTE, GP_DEEP_OK, "kernel-result", 0, NULL);
	assert_verdict(1, GP_DEEP_COMPUTE, GP_DEEP_FAILED, "device", 0, "hung");
	for (int dev = 0; dev < 2; dev++)
		for (int c = GP_DEEP_NVML; c < GP_DEEP_COUNT; c++)
			assert_verdict(dev, c, GP_DEEP_FAILED, "-", 0, "not-reached");
	/* The same report ended by a crash: nothing hung, the rest not reached. */
	w.r.timed_out = false;
	gp_deep_judge(&w.r, &w.d);
	assert_verdict(1, GP_DEEP_COMPUTE, GP_DEEP_FAILED, "device", 0, "not-reached");
	/* A cuInit that failed: no device to judge. */
	w.r.cuinit_code = 3;
	gp_deep_judge(&w.r, &w.d);
	assert_int_equal(w.d.ndevices, 0);
}

/* Steps after the one that failed (the probe stops there; a report may go on): ignored. */
static void judge_first_failure_decides(void **state)
{
	struct report p = H200;

	(void)state;
	p.compute = "stage compute -\n" COMPUTE_OK(
	    "0") "stage compute 1\n"
		 "deep compute 1 device 0 CUDA_SUCCESS 0.0 -\n"
		 "deep compute 1 context 0 CUDA_SUCCESS 1.0 -\n"
		 "deep compute 1 current 0 CUDA_SUCCESS 0.0 -\n"
		 "deep compute 1 alloc 2 CUDA_ERROR_OUT_OF_MEMORY 0.4 -\n"
		 "deep compute 1 htod 700 CUDA_ERROR_ILLEGAL_ADDRESS 0.5 -\n"
		 "deep compute 1 kernel-result 0 equal 1.1 -\n";
	p.nvenc = "stage nvenc -\n"
		  "deep nvenc - instance 15 NV_ENC_ERR_INVALID_VERSION 1.0 13.0\n"
		  "stage nvenc 0\n"
		  "deep nvenc 0 open 10 NV_ENC_ERR_OUT_OF_MEMORY 3.4 -\n"
		  "deep nvenc 0 codecs 0 NV_ENC_SUCCESS 0.2 h264\n";
	p.vulkan = "stage vulkan -\n"
		   "deep vulkan - version 0 VK_SUCCESS 0.1 1.3.239\n"
		   "deep vulkan - instance -9 VK_ERROR_INCOMPATIBLE_DRIVER 12.0 -\n"
		   "deep vulkan - devices -3 VK_ERROR_INITIALIZATION_FAILED 0.1 1\n";
	run(&p);
	assert_verdict(0, GP_DEEP_COMPUTE, GP_DEEP_OK, "kernel-result", 0, NULL);
	assert_verdict(1, GP_DEEP_COMPUTE, GP_DEEP_FAILED, "alloc", 2, "CUDA_ERROR_OUT_OF_MEMORY");
	assert_verdict(0, GP_DEEP_NVENC, GP_DEEP_FAILED, "instance", 15,
		       "NV_ENC_ERR_INVALID_VERSION");
	assert_verdict(1, GP_DEEP_NVENC, GP_DEEP_FAILED, "instance", 15, NULL);
	for (int dev = 0; dev < 2; dev++)
		assert_verdict(dev, GP_DEEP_VULKAN, GP_DEEP_FAILED, "instance", -9,
			       "VK_ERROR_INCOMPATIBLE_DRIVER");
}

/* A count past the table's, or negative (never from the parser): no device judged. */
static void judge_stays_within_max_devices(void **state)
{
	static const int counts[] = { -1, GP_PROBE_MAX_DEVICES + 1, INT_MAX };
	static const struct report h200 = H200;

	(void)state;
	run(&h200);
	for (size_t i = 0; i < GP_ARRAY_SIZE(counts); i++) {
		w.r.ndevices = counts[i];
		gp_deep_judge(&w.r, &w.d);
		if (w.d.ndevices != 0)
			fail_msg("a count of %d judged %d devices", counts[i], w.d.ndevices);
	}
	w.r.ndevices = 2;
	gp_deep_judge(&w.r, &w.d);
	assert_int_equal(w.d.ndevices, 2);
}

/* (c) the findings */

/* The H200's: only that its video engines are not there, said for information. */
static void h200_says_only_what_it_lacks(void **state)
{
	static const struct report h200 = H200;

	(void)state;
	assert_int_equal(diagnose(&h200), GP_PROBE_OK);
	assert_ids(&w.f, "video-engine-absent", NULL);
	assert_severity("video-engine-absent", GP_SEV_INFO);
	assert_summary("video-engine-absent", "no AV1 decoder on GPU 0, 1");
	assert_summary("video-engine-absent", "no NVENC on GPU 0, 1");
	assert_summary("video-engine-absent", "(NVIDIA H200)");
	assert_evidence("video-engine-absent", "open: NV_ENC_ERR_UNSUPPORTED_DEVICE (2)");
	assert_evidence("video-engine-absent",
			"GPU 0 (" PCI0 ", " UUID0 "), GPU 1 (" PCI1 ", " UUID1 ")");
	/* near: without --deep, nothing of it */
	w.e.deep = NULL;
	assert_int_equal(diagnose(&h200), GP_PROBE_OK);
	assert_ids(&w.f, NULL);
}

/* One compute-failed for both GPUs, each code's fix. */
static void compute_failed(void **state)
{
	struct report p = H200;

	(void)state;
	p.compute = "stage compute -\n"
		    "stage compute 0\n"
		    "deep compute 0 device 0 CUDA_SUCCESS 0.0 -\n"
		    "deep compute 0 context 0 CUDA_SUCCESS 1.0 -\n"
		    "deep compute 0 current 0 CUDA_SUCCESS 0.0 -\n"
		    "deep compute 0 alloc 2 CUDA_ERROR_OUT_OF_MEMORY 0.4 -\n"
		    "stage compute 1\n"
		    "deep compute 1 device 0 CUDA_SUCCESS 0.0 -\n"
		    "deep compute 1 context 46 CUDA_ERROR_DEVICES_UNAVAILABLE 0.5 -\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "compute-failed", "video-engine-absent", NULL);
	assert_summary("compute-failed", "GPU 0, 1 in ct");
	assert_evidence("compute-failed",
			"alloc: CUDA_ERROR_OUT_OF_MEMORY (2), 1.4 ms, on GPU 0 (" PCI0 ", " UUID0
			")");
	assert_evidence("compute-failed", "context: CUDA_ERROR_DEVICES_UNAVAILABLE (46), 0.5 ms, "
					  "on GPU 1 (" PCI1 ", " UUID1 ")");
	assert_fix("compute-failed", "nvidia-smi --query-compute-apps");
	assert_fix("compute-failed", "nvidia-smi -i 1 -c DEFAULT");
	/* a GPU fault */
	p.compute = "stage compute -\n" COMPUTE_OK(
	    "0") "stage compute 1\n"
		 "deep compute 1 device 0 CUDA_SUCCESS 0.0 -\n"
		 "deep compute 1 context 999 CUDA_ERROR_UNKNOWN 0.5 -\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "compute-failed", "video-engine-absent", NULL);
	assert_fix("compute-failed", "journalctl -k | grep Xid");
	/* a libcuda without the calls: older, or not the driver's */
	p.compute = "stage compute -\ndeep compute - symbols 1 - 0.0 cuMemAlloc_v2\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "compute-failed", "video-engine-absent", NULL);
	assert_evidence("compute-failed", "symbols: cuMemAlloc_v2 missing");
	assert_fix("compute-failed", "older than the probe needs");
}

static void compute_wrong_result(void **state)
{
	struct report p = H200;

	(void)state;
	p.compute =
	    "stage compute -\n" COMPUTE_OK("0") "stage compute 1\n"
						"deep compute 1 device 0 CUDA_SUCCESS 0.0 -\n"
						"deep compute 1 context 0 CUDA_SUCCESS 1.0 -\n"
						"deep compute 1 current 0 CUDA_SUCCESS 0.0 -\n"
						"deep compute 1 alloc 0 CUDA_SUCCESS 0.2 -\n"
						"deep compute 1 htod 0 CUDA_SUCCESS 0.4 -\n"
						"deep compute 1 dtoh 0 CUDA_SUCCESS 0.3 -\n"
						"deep compute 1 compare 12 mismatch 1.1 -\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "compute-wrong-result", "video-engine-absent", NULL);
	assert_summary("compute-wrong-result", "GPU 1 in ct");
	assert_evidence("compute-wrong-result", "of 262144 32-bit words");
	assert_evidence("compute-wrong-result", "compare: mismatch (12)");
	assert_fix("compute-wrong-result", "nvidia-smi -q -d ECC");
}

/* The PTX JIT: the fix depends on whether the hook injects compute. */
static void ptx_jit_failed(void **state)
{
	struct report p = H200;

	(void)state;
	p.compute = "stage compute -\n"
		    "stage compute 0\n"
		    "deep compute 0 device 0 CUDA_SUCCESS 0.0 -\n"
		    "deep compute 0 context 0 CUDA_SUCCESS 1.0 -\n"
		    "deep compute 0 current 0 CUDA_SUCCESS 0.0 -\n"
		    "deep compute 0 alloc 0 CUDA_SUCCESS 0.2 -\n"
		    "deep compute 0 htod 0 CUDA_SUCCESS 0.4 -\n"
		    "deep compute 0 dtoh 0 CUDA_SUCCESS 0.3 -\n"
		    "deep compute 0 compare 0 equal 1.1 -\n"
		    "deep compute 0 module 221 CUDA_ERROR_JIT_COMPILER_NOT_FOUND 0.2 -\n"
		    "stage compute 1\n"
		    "deep compute 1 device 0 CUDA_SUCCESS 0.0 -\n"
		    "deep compute 1 context 0 CUDA_SUCCESS 1.0 -\n"
		    "deep compute 1 current 0 CUDA_SUCCESS 0.0 -\n"
		    "deep compute 1 alloc 0 CUDA_SUCCESS 0.2 -\n"
		    "deep compute 1 htod 0 CUDA_SUCCESS 0.4 -\n"
		    "deep compute 1 dtoh 0 CUDA_SUCCESS 0.3 -\n"
		    "deep compute 1 compare 0 equal 1.1 -\n"
		    "deep compute 1 module 221 CUDA_ERROR_JIT_COMPILER_NOT_FOUND 0.2 -\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "ptx-jit-failed", "video-engine-absent", NULL);
	assert_summary("ptx-jit-failed", "CUDA_ERROR_JIT_COMPILER_NOT_FOUND");
	assert_evidence("ptx-jit-failed", "module: CUDA_ERROR_JIT_COMPILER_NOT_FOUND (221)");
	assert_evidence("ptx-jit-failed", "GPU 0 (" PCI0 ", " UUID0 "), GPU 1");
	assert_fix("ptx-jit-failed", "libnvidia-ptxjitcompiler of exactly " VERSION);
	w.e.inject = true;
	w.e.capabilities = GP_CAP_BIT(GP_CAP_UTILITY);
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "ptx-jit-failed", "video-engine-absent", NULL);
	assert_fix("ptx-jit-failed", "gpu-provision attach ct --capabilities compute,utility");
	w.e.capabilities = GP_CAP_BIT(GP_CAP_COMPUTE) | GP_CAP_BIT(GP_CAP_UTILITY);
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "ptx-jit-failed", "video-engine-absent", NULL);
	assert_fix("ptx-jit-failed", "the hook injects libnvidia-ptxjitcompiler.so.1");
}

/* A missing library: an error where injection should give it, else information. */
static void libraries_missing(void **state)
{
	struct report p = H200;

	(void)state;
	p.nvml = "stage nvml -\ndeep nvml - library 1 - 0.2 libnvidia-ml.so.1\n";
	p.nvdec = "stage nvdec -\ndeep nvdec - library 1 - 0.2 libnvcuvid.so.1\n";
	p.nvenc = "stage nvenc -\ndeep nvenc - library 1 - 0.2 libnvidia-encode.so.1\n";
	assert_int_equal(diagnose(&p), GP_PROBE_OK);
	assert_ids(&w.f, "nvml-missing", "nvdec-missing", "nvenc-missing", NULL);
	assert_severity("nvml-missing", GP_SEV_INFO);
	assert_severity("nvdec-missing", GP_SEV_INFO);
	assert_summary("nvdec-missing", "Jellyfin");
	assert_evidence("nvdec-missing", "dlopen(\"libnvcuvid.so.1\") failed inside; GPU 0, 1");
	assert_fix("nvdec-missing", "gpu-provision attach ct --inject --capabilities "
				    "compute,utility,video");
	assert_fix("nvdec-missing", "libnvidia-decode of exactly " VERSION);
	assert_fix("nvml-missing", "--inject --capabilities compute,utility, then");
	/* injected, without those capabilities: still information, the capability to add */
	w.e.inject = true;
	w.e.capabilities = GP_CAP_BIT(GP_CAP_COMPUTE);
	assert_int_equal(diagnose(&p), GP_PROBE_OK);
	assert_ids(&w.f, "nvml-missing", "nvdec-missing", "nvenc-missing", NULL);
	assert_severity("nvenc-missing", GP_SEV_INFO);
	assert_fix("nvenc-missing", "gpu-provision attach ct --capabilities compute,video");
	assert_fix("nvml-missing", "gpu-provision attach ct --capabilities compute,utility, then");
	/* injected with them: injection failed, an error */
	w.e.capabilities =
	    GP_CAP_BIT(GP_CAP_COMPUTE) | GP_CAP_BIT(GP_CAP_UTILITY) | GP_CAP_BIT(GP_CAP_VIDEO);
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "nvml-missing", "nvdec-missing", "nvenc-missing", NULL);
	assert_severity("nvml-missing", GP_SEV_ERROR);
	assert_severity("nvdec-missing", GP_SEV_ERROR);
	assert_severity("nvenc-missing", GP_SEV_ERROR);
	assert_summary("nvml-missing", "was not injected into ct");
	assert_evidence("nvml-missing", "capabilities = compute,utility,video");
	/* near: utility alone injected, the video ones information again */
	w.e.capabilities = GP_CAP_BIT(GP_CAP_UTILITY);
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "nvml-missing", "nvdec-missing", "nvenc-missing", NULL);
	assert_severity("nvml-missing", GP_SEV_ERROR);
	assert_severity("nvdec-missing", GP_SEV_INFO);
}

static void nvml_failed(void **state)
{
	struct report p = H200;

	(void)state;
	p.nvml = "stage nvml -\ndeep nvml - init 18 NVML_ERROR_LIB_RM_VERSION_MISMATCH 3.1 -\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "nvml-failed", "video-engine-absent", NULL);
	assert_summary("nvml-failed", "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
	assert_evidence("nvml-failed", "the host's kernel module is " VERSION);
	assert_evidence("nvml-failed", "init: NVML_ERROR_LIB_RM_VERSION_MISMATCH (18)");
	assert_fix("nvml-failed", "kernel module's version " VERSION);
	p.nvml = "stage nvml -\ndeep nvml - init 9 NVML_ERROR_DRIVER_NOT_LOADED 3.1 -\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "nvml-failed", "video-engine-absent", NULL);
	assert_fix("nvml-failed", "/dev/nvidiactl");
}

/* A GPU NVML does not list: a warning, the probe still ok. */
static void nvml_gpu_not_listed(void **state)
{
	struct report p = H200;

	(void)state;
	p.nvml = "stage nvml -\n"
		 "deep nvml - init 0 NVML_SUCCESS 24.9 -\n"
		 "deep nvml - count 0 NVML_SUCCESS 0.0 1\n"
		 "deep nvml - uuid 0 NVML_SUCCESS 0.1 " UUID0 "\n";
	assert_int_equal(diagnose(&p), GP_PROBE_OK);
	assert_ids(&w.f, "nvml-gpu-not-listed", "video-engine-absent", NULL);
	assert_severity("nvml-gpu-not-listed", GP_SEV_WARNING);
	assert_summary("nvml-gpu-not-listed", "does not list GPU 1,");
	assert_evidence("nvml-gpu-not-listed", "GPU 1 (" PCI1 ", " UUID1 ")");
}

static void nvdec_failed(void **state)
{
	struct report p = H200;

	(void)state;
	p.nvdec = "stage nvdec -\n" NVDEC_H200(
	    "0") "stage nvdec 1\n"
		 "deep nvdec 1 context 101 CUDA_ERROR_INVALID_DEVICE 0.1 -\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "nvdec-failed", "video-engine-absent", NULL);
	assert_evidence("nvdec-failed", "context: CUDA_ERROR_INVALID_DEVICE (101), 0.1 ms, on GPU "
					"1 (" PCI1);
	assert_fix("nvdec-failed", "see the compute findings");
	p.nvdec = "stage nvdec -\ndeep nvdec - symbols 1 - 0.0 cuvidGetDecoderCaps\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "nvdec-failed", "video-engine-absent", NULL);
	assert_fix("nvdec-failed", "older than Video Codec SDK 8");
}

static void nvenc_failed(void **state)
{
	struct report p = H200;

	(void)state;
	p.nvenc = "stage nvenc -\ndeep nvenc - instance 15 NV_ENC_ERR_INVALID_VERSION 1.0 13.0\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "nvenc-failed", "video-engine-absent", NULL);
	assert_fix("nvenc-failed", "refused API version 13.0");
	assert_fix("nvenc-failed", "--inject --capabilities compute,utility,video");
	p.nvenc = "stage nvenc -\n"
		  "deep nvenc - instance 0 NV_ENC_SUCCESS 1.2 12.2\n"
		  "stage nvenc 0\n"
		  "deep nvenc 0 open 10 NV_ENC_ERR_OUT_OF_MEMORY 3.4 -\n"
		  "stage nvenc 1\n"
		  "deep nvenc 1 open 10 NV_ENC_ERR_OUT_OF_MEMORY 3.1 -\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "nvenc-failed", "video-engine-absent", NULL);
	assert_evidence("nvenc-failed", "open: NV_ENC_ERR_OUT_OF_MEMORY (10), 4.6 ms, on GPU 0");
	assert_fix("nvenc-failed", "concurrent encode sessions");
	/* 15 at the session: the version asked is the instance's */
	p.nvenc = "stage nvenc -\n"
		  "deep nvenc - instance 0 NV_ENC_SUCCESS 1.2 12.2\n"
		  "stage nvenc 0\n"
		  "deep nvenc 0 open 15 NV_ENC_ERR_INVALID_VERSION 3.4 -\n"
		  "stage nvenc 1\n"
		  "deep nvenc 1 open 2 NV_ENC_ERR_UNSUPPORTED_DEVICE 3.1 -\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "nvenc-failed", "video-engine-absent", NULL);
	assert_summary("nvenc-failed", "at open (NV_ENC_ERR_INVALID_VERSION)");
	assert_fix("nvenc-failed", "refused API version 12.2");
	assert_summary("video-engine-absent", "no NVENC on GPU 1 in ct");
}

/* Vulkan: a warning without injected graphics, an error with it; no loader says nothing. */
static void vulkan_failed(void **state)
{
	struct report p = H200;

	(void)state;
	p.vulkan = "stage vulkan -\n"
		   "deep vulkan - version 0 VK_SUCCESS 0.1 1.3.239\n"
		   "deep vulkan - instance -9 VK_ERROR_INCOMPATIBLE_DRIVER 12.0 -\n";
	assert_int_equal(diagnose(&p), GP_PROBE_OK);
	assert_ids(&w.f, "vulkan-failed", "video-engine-absent", NULL);
	assert_severity("vulkan-failed", GP_SEV_WARNING);
	assert_fix("vulkan-failed", "/usr/share/vulkan/icd.d/nvidia_icd.json");
	assert_fix("vulkan-failed", "--capabilities compute,utility,graphics");
	w.e.inject = true;
	w.e.capabilities = GP_CAP_BIT(GP_CAP_COMPUTE) | GP_CAP_BIT(GP_CAP_GRAPHICS);
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "vulkan-failed", "video-engine-absent", NULL);
	assert_severity("vulkan-failed", GP_SEV_ERROR);
	/* a loader older than 1.1 */
	p.vulkan = "stage vulkan -\ndeep vulkan - version 1 - 0.1 1.0.61\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "vulkan-failed", "video-engine-absent", NULL);
	assert_summary("vulkan-failed", "older than Vulkan 1.1 (1.0.61)");
	assert_fix("vulkan-failed", "libvulkan1");
	/* devices, none of them the GPUs: the ICD that answered is another */
	w.e.inject = false;
	p.vulkan =
	    "stage vulkan -\n"
	    "deep vulkan - version 0 VK_SUCCESS 0.1 1.3.239\n"
	    "deep vulkan - instance 0 VK_SUCCESS 12.0 -\n"
	    "deep vulkan - devices 0 VK_SUCCESS 0.1 1\n"
	    "deep vulkan - device 0 VK_SUCCESS 0.1 GPU-6c6c766d-7069-7065-0000-000000000000\n";
	assert_int_equal(diagnose(&p), GP_PROBE_OK);
	assert_ids(&w.f, "vulkan-failed", "video-engine-absent", NULL);
	assert_summary("vulkan-failed", "no Vulkan device in ct is GPU 0, 1");
	assert_fix("vulkan-failed", "llvmpipe");
}

/* display brings graphics: a Vulkan failure under it is injection's, an error. */
static void vulkan_error_with_display(void **state)
{
	struct report p = H200;

	(void)state;
	p.vulkan = "stage vulkan -\n"
		   "deep vulkan - version 0 VK_SUCCESS 0.1 1.3.239\n"
		   "deep vulkan - instance -9 VK_ERROR_INCOMPATIBLE_DRIVER 12.0 -\n";
	w.e.inject = true;
	w.e.capabilities = GP_CAP_BIT(GP_CAP_COMPUTE) | GP_CAP_BIT(GP_CAP_DISPLAY);
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "vulkan-failed", "video-engine-absent", NULL);
	assert_severity("vulkan-failed", GP_SEV_ERROR);
	assert_fix("vulkan-failed", "the hook injects it with graphics");
	/* near: compute alone, a warning */
	w.e.capabilities = GP_CAP_BIT(GP_CAP_COMPUTE);
	assert_int_equal(diagnose(&p), GP_PROBE_OK);
	assert_severity("vulkan-failed", GP_SEV_WARNING);
}

/* GPUs are grouped by step and code: one step, two codes, two groups and each its fix. */
static void groups_by_step_and_code(void **state)
{
	struct report p = H200;

	(void)state;
	p.compute = "stage compute -\n"
		    "stage compute 0\n"
		    "deep compute 0 device 0 CUDA_SUCCESS 0.0 -\n"
		    "deep compute 0 context 2 CUDA_ERROR_OUT_OF_MEMORY 0.4 -\n"
		    "stage compute 1\n"
		    "deep compute 1 device 0 CUDA_SUCCESS 0.0 -\n"
		    "deep compute 1 context 46 CUDA_ERROR_DEVICES_UNAVAILABLE 0.5 -\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "compute-failed", "video-engine-absent", NULL);
	assert_evidence("compute-failed",
			"context: CUDA_ERROR_OUT_OF_MEMORY (2), 0.4 ms, on GPU 0 (" PCI0 ", " UUID0
			"); context: CUDA_ERROR_DEVICES_UNAVAILABLE (46), 0.5 ms, on GPU 1 (" PCI1
			", " UUID1 ")");
	assert_fix("compute-failed", "nvidia-smi --query-compute-apps");
	assert_fix("compute-failed", "nvidia-smi -i 1 -c DEFAULT");
	/* the same code on both: one group naming both GPUs */
	p.compute = "stage compute -\n"
		    "stage compute 0\n"
		    "deep compute 0 device 0 CUDA_SUCCESS 0.0 -\n"
		    "deep compute 0 context 2 CUDA_ERROR_OUT_OF_MEMORY 0.4 -\n"
		    "stage compute 1\n"
		    "deep compute 1 device 0 CUDA_SUCCESS 0.0 -\n"
		    "deep compute 1 context 2 CUDA_ERROR_OUT_OF_MEMORY 0.5 -\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_ids(&w.f, "compute-failed", "video-engine-absent", NULL);
	assert_evidence("compute-failed", "context: CUDA_ERROR_OUT_OF_MEMORY (2), 0.4 ms, on GPU 0 "
					  "(" PCI0 ", " UUID0 "), GPU 1 (" PCI1 ", " UUID1 ")");
}

/* A deep probe cut short: the timeout or crash finding alone, no finding per verdict. */
static void hung_and_not_reached_say_nothing_more(void **state)
{
	struct report p = { "stage compute -\n" COMPUTE_OK(
				"0") "stage compute 1\n"
				     "deep compute 1 device 0 CUDA_SUCCESS 0.0 -\n",
			    "",
			    "",
			    "",
			    "",
			    false };

	(void)state;
	run(&p);
	w.r.timed_out = true;
	w.r.state = 'D';
	gp_deep_judge(&w.r, &w.d);
	memset(&w.f, 0, sizeof(w.f));
	gp_diagnose(&w.r, &w.e, &w.f);
	assert_int_equal(w.r.status, GP_PROBE_TIMEOUT);
	assert_ids(&w.f, "probe-timeout", NULL);
	assert_evidence("probe-timeout", "in --deep's compute on device 1");
	/* a crash there */
	w.r.timed_out = false;
	w.r.signal = 11;
	gp_deep_judge(&w.r, &w.d);
	memset(&w.f, 0, sizeof(w.f));
	gp_diagnose(&w.r, &w.e, &w.f);
	assert_int_equal(w.r.status, GP_PROBE_FAILED);
	assert_ids(&w.f, "probe-crashed", NULL);
}

/* 64 GPUs each failing with its own code: groups past the eighth counted, text bounded. */
static void many_gpus_stay_bounded(void **state)
{
	struct gp_buf b = { 0 };
	const struct gp_finding *x;

	(void)state;
	assert_int_equal(gp_buf_printf(&b, "gpu-probe 1\nstage cuinit\ncuinit 0 CUDA_SUCCESS\n"
					   "devices 64\n"),
			 0);
	for (int dev = 0; dev < 64; dev++)
		assert_int_equal(gp_buf_printf(&b,
					       "device %d 0000:%02x:00.0 "
					       "GPU-%08d-0000-4000-8000-000000000000\n",
					       dev, dev + 1, dev),
				 0);
	assert_int_equal(gp_buf_printf(&b, "stage compute -\n"), 0);
	for (int dev = 0; dev < 64; dev++)
		assert_int_equal(gp_buf_printf(&b,
					       "deep compute %d device %d "
					       "CUDA_ERROR_%d_OF_A_LONG_NAME 0.1 -\n",
					       dev, 100 + dev, dev),
				 0);
	assert_int_equal(gp_buf_printf(&b, "%s%send\n",
				       "stage nvml -\n"
				       "deep nvml - library 1 - 0.2 "
				       "libnvidia-ml.so.1\n",
				       vulkan_none),
			 0);
	memset(&w.r, 0, sizeof(w.r));
	assert_int_equal(gp_probe_parse(b.data, &w.r), 0);
	gp_buf_free(&b);
	gp_deep_judge(&w.r, &w.d);
	assert_int_equal(w.d.ndevices, 64);
	assert_verdict(63, GP_DEEP_COMPUTE, GP_DEEP_FAILED, "device", 163, NULL);
	assert_verdict(63, GP_DEEP_NVENC, GP_DEEP_FAILED, "-", 0, "not-reached");
	memset(&w.f, 0, sizeof(w.f));
	gp_diagnose_deep(&w.r, &w.e, &w.f);
	assert_ids(&w.f, "compute-failed", "nvml-missing", NULL);
	x = finding(&w.f, "compute-failed");
	assert_true(strlen(x->evidence) == sizeof(x->evidence) - 1);
	assert_string_equal(x->evidence + sizeof(x->evidence) - 4, "...");
	assert_true(strlen(x->summary) < sizeof(x->summary));
	assert_non_null(strstr(x->summary, "on GPU 0, 1, 2, 3"));
	assert_true(strlen(x->fix) < sizeof(x->fix));
}

/* (d) the ini */

/* [probe] deep: yes makes --deep the default, no and none do not; the host's is taken. */
static void ini_probe_deep(void **state)
{
	struct gp_ini c, host;

	(void)state;
	assert_int_equal(gp_ini_parse("[gpu]\ndevices = 0\n[probe]\ndeep = yes\n", "ct.ini", &c),
			 0);
	assert_int_equal(c.probe_deep, GP_PROBE_DEEP_YES);
	assert_true(c.probe_deep_set);
	assert_int_equal(gp_ini_parse("[gpu]\ndevices = 0\n[probe]\ndeep = no\n", "ct.ini", &c), 0);
	assert_int_equal(c.probe_deep, GP_PROBE_DEEP_NO);
	assert_int_equal(gp_ini_parse("[gpu]\ndevices = 0\n", "ct.ini", &c), 0);
	assert_int_equal(c.probe_deep, GP_PROBE_DEEP_NO);
	assert_false(c.probe_deep_set);
	/* the host's default for a container that leaves it out, not for one that says no */
	assert_int_equal(
	    gp_ini_parse_as("[probe]\ndeep = yes\n", "gpu-provision.conf", GP_CONF_HOST, &host), 0);
	gp_ini_merge_host(&c, &host);
	assert_int_equal(c.probe_deep, GP_PROBE_DEEP_YES);
	assert_int_equal(gp_ini_parse("[gpu]\ndevices = 0\n[probe]\ndeep = no\n", "ct.ini", &c), 0);
	gp_ini_merge_host(&c, &host);
	assert_int_equal(c.probe_deep, GP_PROBE_DEEP_NO);
}

/* A verdict's time is its own steps': not another codec's, not another GPU's list item. */
static void verdict_time_is_its_own_steps(void **state)
{
	struct report p = H200;

	(void)state;
	run(&p);
	assert_float_equal(verdict(0, GP_DEEP_COMPUTE)->ms, 377.7, 0.01);
	assert_float_equal(verdict(0, GP_DEEP_NVDEC_H264)->ms, 0.3, 0.01);
	assert_float_equal(verdict(1, GP_DEEP_NVDEC_HEVC)->ms, 0.1, 0.01);
	assert_float_equal(verdict(1, GP_DEEP_NVDEC_AV1)->ms, 0.1, 0.01);
	assert_float_equal(verdict(1, GP_DEEP_NVENC)->ms, 1.2 + 3.1, 0.01);
	/* init, count and its own UUID */
	assert_float_equal(verdict(0, GP_DEEP_NVML)->ms, 24.9 + 0.0 + 0.1, 0.01);
	assert_float_equal(verdict(1, GP_DEEP_NVML)->ms, 24.9 + 0.0 + 0.1, 0.01);
	for (size_t i = 0; i < w.r.nsteps; i++)
		if (strcmp(w.r.steps[i].step, "uuid") == 0)
			assert_int_equal(gp_deep_step_of(&w.r, 1, GP_DEEP_NVML, &w.r.steps[i]),
					 strcmp(w.r.steps[i].detail, UUID1) == 0);
}

/* Words from the container reach a summary or a fix only as identifiers and versions. */
static void container_words_stay_out_of_fixes(void **state)
{
	struct report p = H200;
	const struct gp_finding *x;

	(void)state;
	p.compute =
	    "stage compute -\n" COMPUTE_OK("0") "stage compute 1\n"
						"deep compute 1 device 0 CUDA_SUCCESS 0.0 -\n"
						"deep compute 1 context 7 $(id) 0.5 -\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	x = finding(&w.f, "compute-failed");
	assert_summary("compute-failed", "(code 7)");
	assert_null(strstr(x->summary, "$(id)"));
	assert_null(strstr(x->fix, "$(id)"));
	p = (struct report)H200;
	p.nvenc = "stage nvenc -\ndeep nvenc - instance 15 NV_ENC_ERR_INVALID_VERSION 1.0 "
		  ";curl${IFS}x|sh\n";
	assert_int_equal(diagnose(&p), GP_PROBE_FAILED);
	assert_fix("nvenc-failed", "refused API version the probe's");
	assert_null(strstr(finding(&w.f, "nvenc-failed")->fix, "curl"));
	/* GPU 1 is the host's but not the container's: no fix names it by its index */
	w.chosen[1] = false;
	p = (struct report)H200;
	p.compute = "stage compute -\n" COMPUTE_OK(
	    "0") "stage compute 1\n"
		 "deep compute 1 device 0 CUDA_SUCCESS 0.0 -\n"
		 "deep compute 1 context 46 CUDA_ERROR_DEVICES_UNAVAILABLE 0.5 -\n";
	diagnose(&p);
	assert_null(strstr(finding(&w.f, "compute-failed")->fix, "-i 1"));
	assert_fix("compute-failed", "nvidia-smi -c DEFAULT");
}

/* Which capabilities' libraries the ini injects: what makes a missing one an error. */
static void injected_capabilities(void **state)
{
	static const char *const row =
	    "{\"status\":\"ok\",\"findings\":[],\"capabilities\":[{\"gpu\":\"GPU-1\","
	    "\"capability\":\"nvenc\",\"status\":\"absent\",\"injected\":true}]}";
	struct gp_findings *f = calloc(1, sizeof(*f));
	struct gp_probe_caps caps = { 0 };
	char status[16], why[256];

	(void)state;
	w.e.inject = true;
	w.e.capabilities = GP_CAP_BIT(GP_CAP_COMPUTE) | GP_CAP_BIT(GP_CAP_VIDEO);
	assert_true(gp_deep_cap_injected(&w.e, GP_DEEP_COMPUTE));
	assert_true(gp_deep_cap_injected(&w.e, GP_DEEP_NVDEC_AV1));
	assert_true(gp_deep_cap_injected(&w.e, GP_DEEP_NVENC));
	assert_false(gp_deep_cap_injected(&w.e, GP_DEEP_NVML));
	assert_false(gp_deep_cap_injected(&w.e, GP_DEEP_VULKAN));
	w.e.capabilities = GP_CAP_BIT(GP_CAP_DISPLAY); /* display brings graphics */
	assert_true(gp_deep_cap_injected(&w.e, GP_DEEP_VULKAN));
	w.e.inject = false;
	assert_false(gp_deep_cap_injected(&w.e, GP_DEEP_VULKAN));
	assert_non_null(f);
	assert_int_equal(gp_probe_json_take(row, strlen(row), status, sizeof(status), f, &caps, why,
					    sizeof(why)),
			 0);
	assert_int_equal(caps.n, 1);
	assert_true(caps.v[0].injected);
	free(caps.v);
	free(f);
}

/* "capabilities" rows of a probe's JSON: a UUID or null, never one GPU's verdict twice. */
static void capability_rows_checked(void **state)
{
	static const char *const good =
	    "{\"status\":\"failed\",\"findings\":[],\"capabilities\":["
	    "{\"gpu\":\"GPU-6ac7d90a\",\"capability\":\"compute\",\"status\":\"ok\"},"
	    "{\"gpu\":null,\"capability\":\"compute\",\"status\":\"failed\"},"
	    "{\"gpu\":null,\"capability\":\"compute\",\"status\":\"failed\"}]}";
	static const char *const bad[] = {
		"{\"status\":\"ok\",\"findings\":[],\"capabilities\":[{\"capability\":\"compute\","
		"\"status\":\"ok\"}]}",
		"{\"status\":\"ok\",\"findings\":[],\"capabilities\":[{\"gpu\":\"GPU-\\\"x\","
		"\"capability\":"
		"\"compute\",\"status\":\"ok\"}]}",
		"{\"status\":\"ok\",\"findings\":[],\"capabilities\":["
		"{\"gpu\":\"GPU-1\",\"capability\":\"nvml\",\"status\":\"ok\"},"
		"{\"gpu\":\"GPU-1\",\"capability\":\"nvml\",\"status\":\"failed\"}]}",
	};
	struct gp_findings *f = calloc(1, sizeof(*f));
	struct gp_probe_caps caps = { 0 };
	char status[16], why[256];

	(void)state;
	assert_non_null(f);
	assert_int_equal(gp_probe_json_take(good, strlen(good), status, sizeof(status), f, &caps,
					    why, sizeof(why)),
			 0);
	assert_int_equal(caps.n, 3);
	assert_string_equal(caps.v[0].gpu, "GPU-6ac7d90a");
	assert_string_equal(caps.v[1].gpu, "");
	free(caps.v);
	for (size_t i = 0; i < GP_ARRAY_SIZE(bad); i++) {
		memset(f, 0, sizeof(*f));
		caps = (struct gp_probe_caps){ 0 };
		if (gp_probe_json_take(bad[i], strlen(bad[i]), status, sizeof(status), f, &caps,
				       why, sizeof(why)) != -GP_EBADCONF)
			fail_msg("accepted case %zu: %s", i, bad[i]);
		assert_null(caps.v);
	}
	if (!strstr(why, "repeats capabilities[0]"))
		fail_msg("refused for another reason: %s", why);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(parses_and_judges_the_h200s_report, setup,
						teardown),
		cmocka_unit_test_setup_teardown(refuses_bad_deep_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(refuses_a_step_time_past_range, setup, teardown),
		cmocka_unit_test_setup_teardown(at_most_max_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(a_refused_count_is_not_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(judge_library_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(judge_symbols_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(judge_compute_at_each_step, setup, teardown),
		cmocka_unit_test_setup_teardown(judge_compare_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(judge_nvdec_context, setup, teardown),
		cmocka_unit_test_setup_teardown(judge_nvenc_codes, setup, teardown),
		cmocka_unit_test_setup_teardown(judge_nvml_not_listed, setup, teardown),
		cmocka_unit_test_setup_teardown(judge_vulkan, setup, teardown),
		cmocka_unit_test_setup_teardown(judge_a_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(judge_first_failure_decides, setup, teardown),
		cmocka_unit_test_setup_teardown(judge_stays_within_max_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(h200_says_only_what_it_lacks, setup, teardown),
		cmocka_unit_test_setup_teardown(compute_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(compute_wrong_result, setup, teardown),
		cmocka_unit_test_setup_teardown(ptx_jit_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(libraries_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(nvml_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(nvml_gpu_not_listed, setup, teardown),
		cmocka_unit_test_setup_teardown(nvdec_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(nvenc_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(vulkan_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(vulkan_error_with_display, setup, teardown),
		cmocka_unit_test_setup_teardown(groups_by_step_and_code, setup, teardown),
		cmocka_unit_test_setup_teardown(hung_and_not_reached_say_nothing_more, setup,
						teardown),
		cmocka_unit_test_setup_teardown(many_gpus_stay_bounded, setup, teardown),
		cmocka_unit_test(capability_rows_checked),
		cmocka_unit_test_setup_teardown(injected_capabilities, setup, teardown),
		cmocka_unit_test_setup_teardown(verdict_time_is_its_own_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(container_words_stay_out_of_fixes, setup, teardown),
		cmocka_unit_test(ini_probe_deep),
	};
	return cmocka_run_group_tests_name("deep", tests, NULL, NULL);
}
