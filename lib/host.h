/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in lib/host.c; the gp_parse_* parsers in lib/parse.c. */
#ifndef GP_HOST_H
#define GP_HOST_H

#include <stdbool.h>
#include <sys/types.h>

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

/* The host as the NVIDIA driver shows it; vendor.h's gp_vendor_nvidia plans from it. */
struct gp_host {
	bool driver_loaded;
	char version[32];
	enum gp_flavor flavor;
	struct gp_params params;
	struct gp_gpu gpus[GP_MAX_GPUS];
	size_t ngpus;
	struct gp_majors majors;
	struct gp_caps_table caps;
	char kernel_release[128];
	struct gp_kconfig kconfig;
	char kconfig_source[256];
};

/* Parsers: each takes a NUL-terminated buffer and fills its part. 0 or -EINVAL. */
int gp_parse_version(const char *buf, char *version, size_t size, enum gp_flavor *flavor);
int gp_parse_params(const char *buf, struct gp_params *params);
int gp_parse_information(const char *buf, struct gp_gpu *gpu);
int gp_parse_devices(const char *buf, struct gp_majors *majors);
/* The first character device of that major in /proc/devices: 0, -ENOENT none, -EINVAL. */
int gp_parse_major_name(const char *buf, unsigned int major, char *name, size_t size);
int gp_parse_mig_minors(const char *buf, struct gp_caps_table *caps);
void gp_parse_kconfig(const char *buf, struct gp_kconfig *kc);

/* Orders gpus by PCI address and numbers their index as nvidia-smi does. */
void gp_host_index_gpus(struct gp_host *host);

/* What gp_host_read reads besides the driver, GPUs, majors and modules. */
#define GP_HOST_MIG (1u << 0)	  /* the MIG cap minors table */
#define GP_HOST_KCONFIG (1u << 1) /* kernel build options, for the HMM verdict */
#define GP_HOST_ALL (GP_HOST_MIG | GP_HOST_KCONFIG)

/*
 * Reads the host's driver state under root (NULL or "/" for the real host); parts
 * adds the slower reads above (the hook at each start skips what it does not need).
 * A host without the driver is not an error: driver_loaded stays false.
 * Returns 0 or -errno for a file that exists but cannot be read or parsed.
 */
int gp_host_read(const char *root, unsigned int parts, struct gp_host *host);
void gp_host_free(struct gp_host *host);
/* Adds the kernel build options to a host read without GP_HOST_KCONFIG. */
void gp_host_read_kconfig(const char *root, struct gp_host *host);

const char *gp_flavor_name(enum gp_flavor f);
/* Returns the minor of a MIG cap name in the table, or -ENOENT. */
int gp_caps_lookup(const struct gp_caps_table *caps, const char *name);

#endif
