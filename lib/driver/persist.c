/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uvm_disable_hmm=1 across reboots: a modprobe.d file of our own, and the initramfs question. */
#include <glob.h>
#include <string.h>
#include <sys/stat.h>

#include "base/paths.h"
#include "base/util.h"
#include "driver/persist.h"

static const char conf_text[] =
    "# Written by gpu-provision prepare --persist: nvidia_uvm without HMM, so that CUDA\n"
    "# initialises in containers on kernels where HMM init fails (see gpu-provision host).\n"
    "options nvidia_uvm uvm_disable_hmm=1\n";

int gp_persist_disable_hmm(const char *root, bool dry_run)
{
	_cleanup_free_ char *path = gp_path(root, GP_MODPROBE_CONF), *old = NULL;
	int r;

	if (!path)
		return -ENOMEM;
	if (gp_read_file(path, 65536, &old, NULL) == 0 && strcmp(old, conf_text) == 0)
		return 0;
	if (dry_run) {
		printf("would write %s:\n%s", path, conf_text);
		return 1;
	}
	r = gp_mkdir_parents(path);
	if (r == 0)
		r = gp_write_file_atomic(path, conf_text, strlen(conf_text), 0644, GP_DURABLE);
	if (r < 0)
		return gp_error_errno(r, "Failed to write \"%s\"", path);
	return 1;
}

/* True when a line of buf, comments aside, names an nvidia module. */
static bool lists_nvidia(const char *buf)
{
	const char *pos = buf, *end = buf + strlen(buf), *p;
	size_t n;

	while (gp_line_next(&pos, end, &p, &n)) {
		if (*p == '#')
			continue;
		if (memmem(p, n, "nvidia", 6))
			return true;
	}
	return false;
}

enum gp_tristate gp_initramfs_has_nvidia(const char *root)
{
	_cleanup_free_ char *modules = NULL, *pattern = gp_path(root, "/etc/dracut.conf.d/*.conf");
	bool configured = false, found = false;
	glob_t g;

	if (gp_read_file_at(root, "/etc/initramfs-tools/modules", GP_HOST_FILE_MAX, &modules,
			    NULL) == 0) {
		configured = true;
		found = lists_nvidia(modules);
	}
	if (pattern && glob(pattern, 0, NULL, &g) == 0) {
		configured = true;
		for (size_t i = 0; i < g.gl_pathc && !found; i++) {
			_cleanup_free_ char *buf = NULL;

			if (gp_read_file(g.gl_pathv[i], GP_HOST_FILE_MAX, &buf, NULL) == 0 &&
			    strstr(buf, "drivers") && lists_nvidia(buf))
				found = true;
		}
		globfree(&g);
	}
	return found ? GP_YES : configured ? GP_NO : GP_UNKNOWN;
}
