/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The host's driver state, read under a root prefix. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/paths.h"
#include "base/util.h"
#include "host/host.h"
#include "host/parse.h"

#define KCONFIG_MAX (4u << 20)

static void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

static int read_optional(const char *root, const char *rel, char **buf)
{
	int r = gp_read_file_at(root, rel, GP_HOST_FILE_MAX, buf, NULL);

	if (r == -ENOENT || r == -ENOTDIR)
		*buf = NULL;
	else if (r < 0)
		gp_error("Failed to read \"%s%s\": %s", root ? root : "", rel, gp_strerror(-r));
	return r == -ENOENT || r == -ENOTDIR ? 0 : r;
}

static int parse_failed(const char *root, const char *rel)
{
	gp_error("Failed to parse \"%s%s\": unexpected format", root ? root : "", rel);
	return -GP_EBADCONF;
}

static int read_driver(const char *root, struct gp_host *h)
{
	_cleanup_free_ char *version = NULL, *params = NULL;
	int r;

	r = read_optional(root, "/proc/driver/nvidia/version", &version);
	if (r < 0 || !version)
		return r;
	h->driver_loaded = true;
	if (gp_parse_version(version, h->version, sizeof(h->version), &h->flavor) < 0)
		return parse_failed(root, "/proc/driver/nvidia/version");
	r = read_optional(root, "/proc/driver/nvidia/params", &params);
	if (r < 0)
		return r;
	if (params && gp_parse_params(params, &h->params) < 0)
		return parse_failed(root, "/proc/driver/nvidia/params");
	if (!params)
		gp_parse_params("", &h->params);
	return 0;
}

static int read_gpu(const char *root, const char *pci, struct gp_gpu *gpu)
{
	_cleanup_free_ char *rel = NULL, *buf = NULL;
	int r;

	if (asprintf(&rel, "/proc/driver/nvidia/gpus/%s/information", pci) < 0)
		return -ENOMEM;
	r = read_optional(root, rel, &buf);
	if (r < 0 || !buf)
		return r < 0 ? r : -ENOENT;
	if (gp_parse_information(buf, gpu) < 0)
		return parse_failed(root, rel);
	return 0;
}

static int read_gpus(const char *root, struct gp_host *h)
{
	_cleanup_free_ char *dir = gp_path(root, "/proc/driver/nvidia/gpus");
	__attribute__((cleanup(closedirp))) DIR *d = NULL;
	struct dirent *e;

	if (!dir)
		return -ENOMEM;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		int r;

		if (e->d_name[0] == '.')
			continue;
		if (h->ngpus == GP_MAX_GPUS) {
			gp_error("More than %d GPUs under \"%s\"", GP_MAX_GPUS, dir);
			return -E2BIG;
		}
		r = read_gpu(root, e->d_name, &h->gpus[h->ngpus]);
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
		h->ngpus++;
	}
	gp_host_index_gpus(h);
	return 0;
}

static int read_majors_and_caps(const char *root, unsigned int parts, struct gp_host *h)
{
	_cleanup_free_ char *devices = NULL, *mig = NULL;
	int r;

	r = read_optional(root, "/proc/devices", &devices);
	if (r < 0)
		return r;
	if (devices && gp_parse_devices(devices, &h->majors) < 0)
		return parse_failed(root, "/proc/devices");
	if (!(parts & GP_HOST_MIG))
		return 0;
	r = read_optional(root, "/proc/driver/nvidia-caps/mig-minors", &mig);
	if (r < 0)
		return r;
	if (mig && gp_parse_mig_minors(mig, &h->caps) < 0)
		return parse_failed(root, "/proc/driver/nvidia-caps/mig-minors");
	return 0;
}

static int read_gz(const char *path, char **out)
{
	gzFile f = gzopen(path, "rb");
	_cleanup_free_ char *buf = malloc(KCONFIG_MAX + 1);
	int n;

	if (!f)
		return -errno ? -errno : -EIO;
	if (!buf) {
		gzclose(f);
		return -ENOMEM;
	}
	n = gzread(f, buf, KCONFIG_MAX);
	gzclose(f);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	*out = steal_ptr(buf);
	return 0;
}

/*
 * Reading the kernel's build options takes longer than the rest of a start's host reading
 * (/boot/config-<release> is some 270 KB, /proc/config.gz must be decompressed), and the
 * answer only changes with the kernel: keep it in <root>/run/gpu-provision (a tmpfs, gone
 * at reboot) keyed by the kernel release, with where it was read.
 */
#define KCONFIG_CACHE "kconfig"

static bool read_kconfig_cache(const char *root, struct gp_host *h)
{
	_cleanup_free_ char *path = gp_run_path(root, KCONFIG_CACHE), *buf = NULL;
	char release[128], source[128] = "/proc/config.gz";
	int dp, hm, zd, n;

	if (!path || gp_read_file(path, 512, &buf, NULL) < 0)
		return false;
	n = sscanf(buf, "%127s %d %d %d %127s", release, &dp, &hm, &zd, source);
	if (n < 4 || strcmp(release, h->kernel_release) != 0 || dp < -1 || dp > 1 || hm < -1 ||
	    hm > 1 || zd < -1 || zd > 1 || source[0] != '/')
		return false;
	h->kconfig.device_private = dp;
	h->kconfig.hmm_mirror = hm;
	h->kconfig.zone_device = zd;
	snprintf(h->kconfig_source, sizeof(h->kconfig_source), "%s", source);
	h->kconfig.source = h->kconfig_source;
	return true;
}

static void write_kconfig_cache(const char *root, const struct gp_host *h)
{
	_cleanup_free_ char *path = gp_run_path(root, KCONFIG_CACHE), *dir = gp_run_path(root, "");
	char line[400];
	int n;

	/* Only where gpu-provision keeps runtime state already: never into a source tree. */
	if (!path || !dir || geteuid() != 0 || access(dir, W_OK) != 0)
		return;
	n = snprintf(line, sizeof(line), "%s %d %d %d %s\n", h->kernel_release,
		     h->kconfig.device_private, h->kconfig.hmm_mirror, h->kconfig.zone_device,
		     h->kconfig_source);
	if (n > 0 && (size_t)n < sizeof(line))
		gp_write_file_atomic(path, line, (size_t)n, 0644, 0);
}

/* The options in the file rel under root, said to come from rel: 0 or -errno. */
static int read_kconfig_file(const char *root, const char *rel, struct gp_host *h)
{
	_cleanup_free_ char *gz = NULL, *buf = NULL;
	int r;

	if (strcmp(rel, "/proc/config.gz") == 0)
		r = (gz = gp_path(root, rel)) ? read_gz(gz, &buf) : -ENOMEM;
	else
		r = gp_read_file_at(root, rel, KCONFIG_MAX, &buf, NULL);
	if (r < 0)
		return r;
	snprintf(h->kconfig_source, sizeof(h->kconfig_source), "%s", rel);
	gp_parse_kconfig(buf, &h->kconfig);
	h->kconfig.source = h->kconfig_source;
	return 0;
}

/* Kernel build options: the cache, else /boot/config-<release>, else /proc/config.gz. */
void gp_host_read_kconfig(const char *root, struct gp_host *h)
{
	_cleanup_free_ char *rel = NULL;

	h->kconfig = (struct gp_kconfig){ GP_UNKNOWN, GP_UNKNOWN, GP_UNKNOWN, NULL };
	if (!h->kernel_release[0]) {
		read_kconfig_file(root, "/proc/config.gz", h);
		return;
	}
	if (read_kconfig_cache(root, h))
		return;
	if (asprintf(&rel, "/boot/config-%s", h->kernel_release) < 0)
		return;
	if (read_kconfig_file(root, rel, h) == 0 ||
	    read_kconfig_file(root, "/proc/config.gz", h) == 0)
		write_kconfig_cache(root, h);
}

static void read_kernel(const char *root, unsigned int parts, struct gp_host *h)
{
	_cleanup_free_ char *rel = NULL;

	if (gp_read_file_at(root, "/proc/sys/kernel/osrelease", 256, &rel, NULL) == 0)
		snprintf(h->kernel_release, sizeof(h->kernel_release), "%s", gp_strtrim(rel));
	h->kconfig = (struct gp_kconfig){ GP_UNKNOWN, GP_UNKNOWN, GP_UNKNOWN, NULL };
	if (parts & GP_HOST_KCONFIG)
		gp_host_read_kconfig(root, h);
}

int gp_host_read(const char *root, unsigned int parts, struct gp_host *host)
{
	int r;

	memset(host, 0, sizeof(*host));
	r = read_driver(root, host);
	if (r == 0)
		r = read_gpus(root, host);
	if (r == 0)
		r = read_majors_and_caps(root, parts, host);
	if (r < 0) {
		gp_host_free(host);
		return r;
	}
	read_kernel(root, parts, host);
	return 0;
}

void gp_host_free(struct gp_host *host)
{
	free(host->caps.v);
	host->caps.v = NULL;
	host->caps.n = 0;
}

/* PCI addresses are fixed-width hex "dddd:bb:dd.f", so string order is bus order. */
static int cmp_pci(const void *a, const void *b)
{
	return strcmp(((const struct gp_gpu *)a)->pci, ((const struct gp_gpu *)b)->pci);
}

void gp_host_index_gpus(struct gp_host *host)
{
	qsort(host->gpus, host->ngpus, sizeof(host->gpus[0]), cmp_pci);
	for (size_t i = 0; i < host->ngpus; i++)
		host->gpus[i].index = (int)i;
}

const char *gp_flavor_name(enum gp_flavor f)
{
	switch (f) {
	case GP_FLAVOR_OPEN:
		return "open";
	case GP_FLAVOR_PROPRIETARY:
		return "proprietary";
	default:
		return "unknown";
	}
}

int gp_caps_lookup(const struct gp_caps_table *caps, const char *name)
{
	for (size_t i = 0; i < caps->n; i++)
		if (strcmp(caps->v[i].name, name) == 0)
			return (int)caps->v[i].minor;
	return -ENOENT;
}

void gp_host_describe_indexes(const struct gp_host *host, char *out, size_t size)
{
	if (host->ngpus == 0)
		snprintf(out, size, "the host has no NVIDIA GPU");
	else if (host->ngpus == 1)
		snprintf(out, size, "the host has GPU 0 only");
	else
		snprintf(out, size, "the host has GPUs 0-%zu", host->ngpus - 1);
}
