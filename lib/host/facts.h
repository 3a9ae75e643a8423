/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Header only: what the NVIDIA driver's files say of the host (its GPUs, character majors,
 * module parameters, cap minors) and the kernel's build options, as lib/host/parse.c parses
 * them and lib/host/host.c reads them.
 */
#ifndef GP_FACTS_H
#define GP_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#define GP_MAX_GPUS 64
#define GP_MAJOR_NVIDIA 195
#define GP_MINOR_NVIDIACTL 255
#define GP_MINOR_MODESET 254

enum gp_flavor { GP_FLAVOR_UNKNOWN, GP_FLAVOR_OPEN, GP_FLAVOR_PROPRIETARY };
enum gp_tristate { GP_UNKNOWN = -1, GP_NO = 0, GP_YES = 1 };

struct gp_gpu {
	int index; /* nvidia-smi index: position in PCI bus order */
	unsigned int minor;
	char pci[32]; /* 0000:41:00.0, lower case */
	char uuid[64];
	char model[96];
	char firmware[32];
	bool excluded;
};

struct gp_params {
	bool found;
	unsigned int modify; /* ModifyDeviceFiles */
	unsigned int uid, gid, mode;
};

/* A set of character majors (12 bits). */
#define GP_CHAR_MAJORS 4096
struct gp_major_set {
	unsigned char bits[GP_CHAR_MAJORS / 8];
};

static inline void gp_major_set_add(struct gp_major_set *s, unsigned int major)
{
	if (major < GP_CHAR_MAJORS)
		s->bits[major / 8] |= (unsigned char)(1u << (major % 8));
}

static inline bool gp_major_set_has(const struct gp_major_set *s, unsigned int major)
{
	return major < GP_CHAR_MAJORS && (s->bits[major / 8] & (1u << (major % 8)));
}

/* Dynamic character majors from /proc/devices; 0 means absent. */
struct gp_majors {
	unsigned int nvidia;
	unsigned int uvm;
	unsigned int caps;
	unsigned int caps_imex;
	unsigned int nvlink;
	unsigned int nvswitch;
	/*
	 * Every character major /proc/devices lists: a device rule for another node's dynamic
	 * NVIDIA major must not open here a device of another kind (another driver's, or
	 * another of NVIDIA's, whose majors are as dynamic).
	 */
	struct gp_major_set registered;
};

struct gp_cap_minor {
	char name[48]; /* config, monitor, gpu0/gi1/access, gpu0/gi1/ci0/access */
	unsigned int minor;
};

struct gp_caps_table {
	struct gp_cap_minor *v;
	size_t n;
};

struct gp_kconfig {
	enum gp_tristate device_private;
	enum gp_tristate hmm_mirror;
	enum gp_tristate zone_device;
	const char *source; /* the file it was read from, or NULL */
};

#endif
