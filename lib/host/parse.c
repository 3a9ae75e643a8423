/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Parsers for the driver's /proc files. Each takes a buffer, never a path. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "host/parse.h"

static bool is_version_token(const char *t, size_t n)
{
	size_t dots = 0;

	if (n == 0 || n >= 32 || !isdigit((unsigned char)t[0]) || !isdigit((unsigned char)t[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (t[i] == '.')
			dots++;
		else if (!isdigit((unsigned char)t[i]))
			return false;
	}
	return dots >= 1 && dots <= 2;
}

int gp_parse_version(const char *buf, char *version, size_t size, enum gp_flavor *flavor)
{
	const char *line = strstr(buf, "NVRM version:");
	const char *end, *p;

	if (!line)
		return -GP_EBADCONF;
	end = strchr(line, '\n');
	if (!end)
		end = line + strlen(line);
	*flavor = memmem(line, (size_t)(end - line), "Open Kernel Module", 18)
		      ? GP_FLAVOR_OPEN
		      : GP_FLAVOR_PROPRIETARY;
	for (p = line + 13; p < end;) {
		size_t n;

		while (p < end && isspace((unsigned char)*p))
			p++;
		n = 0;
		while (p + n < end && !isspace((unsigned char)p[n]))
			n++;
		if (is_version_token(p, n) && n < size) {
			memcpy(version, p, n);
			version[n] = '\0';
			return 0;
		}
		p += n;
	}
	return -GP_EBADCONF;
}

/*
 * Splits "Name: value" lines; calls fn for each. Lines without a colon are skipped,
 * as the driver prints headers in some files.
 */
static int for_each_field(const char *buf, int (*fn)(const char *k, const char *v, void *u),
			  void *u)
{
	const char *pos = buf, *end = buf + strlen(buf), *p;
	size_t n;

	while (gp_line_next(&pos, end, &p, &n)) {
		char line[512];
		char *colon;
		int r;

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			colon = strchr(line, ':');
			if (colon) {
				*colon = '\0';
				r = fn(gp_strtrim(line), gp_strtrim(colon + 1), u);
				if (r < 0)
					return r;
			}
		}
	}
	return 0;
}

static int param_field(const char *k, const char *v, void *u)
{
	struct gp_params *pr = u;
	unsigned int *dst = NULL;

	if (strcmp(k, "ModifyDeviceFiles") == 0)
		dst = &pr->modify;
	else if (strcmp(k, "DeviceFileUID") == 0)
		dst = &pr->uid;
	else if (strcmp(k, "DeviceFileGID") == 0)
		dst = &pr->gid;
	else if (strcmp(k, "DeviceFileMode") == 0)
		dst = &pr->mode;
	if (!dst)
		return 0;
	if (gp_parse_uint(v, dst) < 0)
		return -GP_EBADCONF;
	pr->found = true;
	return 0;
}

int gp_parse_params(const char *buf, struct gp_params *params)
{
	/* The driver's defaults, used for any field the file leaves out. */
	*params = (struct gp_params){ .modify = 1, .uid = 0, .gid = 0, .mode = 0666 };
	return for_each_field(buf, param_field, params);
}

static void copy_field(char *dst, size_t size, const char *v)
{
	snprintf(dst, size, "%s", v);
}

static int info_field(const char *k, const char *v, void *u)
{
	struct gp_gpu *g = u;

	if (strcmp(k, "Model") == 0)
		copy_field(g->model, sizeof(g->model), v);
	else if (strcmp(k, "GPU UUID") == 0)
		copy_field(g->uuid, sizeof(g->uuid), v);
	else if (strcmp(k, "Bus Location") == 0) {
		copy_field(g->pci, sizeof(g->pci), v);
		for (char *c = g->pci; *c; c++)
			*c = (char)tolower((unsigned char)*c);
	} else if (strcmp(k, "Device Minor") == 0) {
		if (gp_parse_uint(v, &g->minor) < 0 || g->minor >= GP_MINOR_MODESET)
			return -GP_EBADCONF;
	} else if (strcmp(k, "GPU Firmware") == 0)
		copy_field(g->firmware, sizeof(g->firmware), v);
	else if (strcmp(k, "GPU Excluded") == 0)
		g->excluded = strcmp(v, "Yes") == 0;
	return 0;
}

int gp_parse_information(const char *buf, struct gp_gpu *gpu)
{
	int r;

	memset(gpu, 0, sizeof(*gpu));
	gpu->minor = (unsigned int)-1;
	r = for_each_field(buf, info_field, gpu);
	if (r < 0)
		return r;
	if (gpu->minor == (unsigned int)-1 || !gpu->pci[0] || strncmp(gpu->uuid, "GPU-", 4) != 0)
		return -GP_EBADCONF;
	return 0;
}

static void set_major(struct gp_majors *m, const char *name, unsigned int major)
{
	if (strcmp(name, "nvidia") == 0)
		m->nvidia = major;
	else if (strcmp(name, "nvidia-uvm") == 0)
		m->uvm = major;
	else if (strcmp(name, "nvidia-caps") == 0)
		m->caps = major;
	else if (strcmp(name, "nvidia-caps-imex-channels") == 0)
		m->caps_imex = major;
	else if (strcmp(name, "nvidia-nvlink") == 0)
		m->nvlink = major;
	else if (strcmp(name, "nvidia-nvswitch") == 0)
		m->nvswitch = major;
	gp_major_set_add(&m->registered, major);
}

/* "  MAJOR NAME" (a line of n bytes): a decimal and a word of at most 63 bytes. */
static int parse_major_line(const char *line, size_t n, unsigned int *major, char name[64])
{
	char copy[128], *w[2];

	if (n >= sizeof(copy))
		return -GP_EBADCONF;
	memcpy(copy, line, n);
	copy[n] = '\0';
	if (gp_split_words(copy, w, 2) != 2 || gp_parse_uint(w[0], major) < 0 || strlen(w[1]) >= 64)
		return -GP_EBADCONF;
	memcpy(name, w[1], strlen(w[1]) + 1);
	return 0;
}

/* Calls fn for each "MAJOR NAME" line of /proc/devices' character section; -GP_EBADCONF without it.
 */
static int for_char_majors(const char *buf,
			   void (*fn)(unsigned int major, const char *name, void *u), void *u)
{
	const char *pos = strstr(buf, "Character devices:"), *end = buf + strlen(buf), *line;
	size_t n;

	if (!pos)
		return -GP_EBADCONF;
	gp_line_next(&pos, end, &line, &n); /* the heading */
	/* Up to the blank line before "Block devices:". */
	while (gp_line_next(&pos, end, &line, &n) && n > 0) {
		unsigned int major;
		char name[64];

		if (parse_major_line(line, n, &major, name) == 0)
			fn(major, name, u);
	}
	return 0;
}

static void add_major(unsigned int major, const char *name, void *u)
{
	set_major(u, name, major);
}

int gp_parse_devices(const char *buf, struct gp_majors *majors)
{
	memset(majors, 0, sizeof(*majors));
	return for_char_majors(buf, add_major, majors);
}

struct major_name {
	unsigned int major;
	char *name;
	size_t size;
	bool found;
};

static void match_major(unsigned int major, const char *name, void *u)
{
	struct major_name *m = u;

	if (major == m->major && !m->found) {
		snprintf(m->name, m->size, "%s", name);
		m->found = true;
	}
}

int gp_parse_major_name(const char *buf, unsigned int major, char *name, size_t size)
{
	struct major_name m = { major, name, size, false };
	int r = for_char_majors(buf, match_major, &m);

	return r < 0 ? r : m.found ? 0 : -ENOENT;
}

static int caps_table_add(struct gp_caps_table *caps, const char *name, unsigned int minor)
{
	struct gp_cap_minor *v;

	if (strlen(name) >= sizeof(v->name))
		return -GP_EBADCONF;
	/* Grows by doubling: a full table has thousands of lines. */
	if ((caps->n & (caps->n - 1)) == 0) {
		v = realloc(caps->v, (caps->n ? caps->n * 2 : 16) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		caps->v = v;
	}
	v = caps->v;
	memcpy(v[caps->n].name, name, strlen(name) + 1);
	v[caps->n].minor = minor;
	caps->n++;
	return 0;
}

/*
 * "NAME MINOR" (a trimmed line): NAME of at most 63 bytes, then blanks, then a decimal.
 * By hand, not sscanf: a host with 8 GPUs lists thousands of these, read at each start.
 */
static int parse_cap_line(const char *line, char name[64], unsigned int *minor)
{
	size_t len = strcspn(line, " \t");
	const char *num = line + len + strspn(line + len, " \t");

	if (!len || len >= 64 || num == line + len)
		return -GP_EBADCONF;
	memcpy(name, line, len);
	name[len] = '\0';
	return gp_parse_uint(num, minor);
}

int gp_parse_mig_minors(const char *buf, struct gp_caps_table *caps)
{
	const char *pos = buf, *end = buf + strlen(buf), *p;
	size_t n;

	while (gp_line_next(&pos, end, &p, &n)) {
		char line[128], name[64], *t;
		unsigned int minor;
		int r;

		if (n >= sizeof(line))
			return -GP_EBADCONF;
		memcpy(line, p, n);
		line[n] = '\0';
		t = gp_strtrim(line);
		if (!*t)
			continue;
		if (parse_cap_line(t, name, &minor) < 0)
			return -GP_EBADCONF;
		r = caps_table_add(caps, name, minor);
		if (r < 0)
			return r;
	}
	return 0;
}

static enum gp_tristate kconfig_value(const char *buf, const char *opt)
{
	char set[96];

	snprintf(set, sizeof(set), "\n%s=", opt);
	/* "=y" or "=m"; an option that is absent or "is not set" is off. */
	if (strstr(buf, set) || strncmp(buf, set + 1, strlen(set) - 1) == 0)
		return GP_YES;
	return GP_NO;
}

void gp_parse_kconfig(const char *buf, struct gp_kconfig *kc)
{
	kc->device_private = kconfig_value(buf, "CONFIG_DEVICE_PRIVATE");
	kc->hmm_mirror = kconfig_value(buf, "CONFIG_HMM_MIRROR");
	kc->zone_device = kconfig_value(buf, "CONFIG_ZONE_DEVICE");
}
