/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Module state of nvidia, nvidia_uvm and nvidia_modeset from /proc/modules and sysfs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "base/util.h"
#include "host/modules.h"

int gp_parse_proc_modules(const char *buf, const char *name, struct gp_module *mod)
{
	const char *pos = buf, *end = buf + strlen(buf), *p;
	size_t n = strlen(name), linelen;

	mod->loaded = false;
	mod->refcnt = -1;
	mod->holders[0] = '\0';
	while (gp_line_next(&pos, end, &p, &linelen)) {
		char refcnt[16], used[256], state[16];
		unsigned long size;

		if (strncmp(p, name, n) != 0 || p[n] != ' ')
			continue;
		if (sscanf(p + n, " %lu %15s %255s %15s", &size, refcnt, used, state) != 4)
			return -GP_EBADCONF;
		mod->loaded = strcmp(state, "Live") == 0;
		mod->refcnt = strcmp(refcnt, "-") == 0 ? -1 : atoi(refcnt);
		if (strcmp(used, "-") != 0) {
			size_t len = strlen(used);

			if (len && used[len - 1] == ',')
				used[len - 1] = '\0';
			snprintf(mod->holders, sizeof(mod->holders), "%s", used);
		}
		return 0;
	}
	return 0;
}

static int read_tree(const char *root, struct gp_modules *m)
{
	_cleanup_free_ char *buf = NULL;
	int r = gp_read_file_at(root, "/proc/modules", GP_HOST_FILE_MAX, &buf, NULL);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (gp_parse_proc_modules(buf, "nvidia", &m->nvidia) < 0 ||
	    gp_parse_proc_modules(buf, "nvidia_uvm", &m->uvm) < 0 ||
	    gp_parse_proc_modules(buf, "nvidia_modeset", &m->modeset) < 0) {
		gp_error("Failed to parse \"%s/proc/modules\"", root);
		return -GP_EBADCONF;
	}
	return 0;
}

void gp_modules_read_params(const char *root, struct gp_modules *m)
{
	_cleanup_free_ char *hmm = NULL, *ats = NULL;

	m->uvm_disable_hmm = GP_UNKNOWN;
	m->uvm_ats_mode = -1;
	if (gp_read_file_at(root, "/sys/module/nvidia_uvm/parameters/uvm_disable_hmm", 16, &hmm,
			    NULL) == 0)
		m->uvm_disable_hmm = hmm[0] == 'Y' || hmm[0] == '1' ? GP_YES : GP_NO;
	if (gp_read_file_at(root, "/sys/module/nvidia_uvm/parameters/uvm_ats_mode", 16, &ats,
			    NULL) == 0)
		m->uvm_ats_mode = atoi(ats);
}

void gp_modules_init(struct gp_modules *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->nvidia.name, sizeof(m->nvidia.name), "nvidia");
	snprintf(m->uvm.name, sizeof(m->uvm.name), "nvidia_uvm");
	snprintf(m->modeset.name, sizeof(m->modeset.name), "nvidia_modeset");
}

int gp_modules_read_tree(const char *root, struct gp_modules *m)
{
	int r;

	gp_modules_init(m);
	r = read_tree(root, m);
	gp_modules_read_params(root, m);
	return r;
}

/* The kernel takes the last of repeated parameters, so the last one counts here too. */
enum gp_tristate gp_options_disable_hmm(const char *options)
{
	enum gp_tristate v = GP_UNKNOWN;
	const char *p = options;

	while (p && (p = strstr(p, "uvm_disable_hmm="))) {
		bool word = p == options || p[-1] == ' ' || p[-1] == '\t';

		p += 16;
		if (word)
			v = *p == '1' || *p == 'Y' || *p == 'y' ? GP_YES : GP_NO;
	}
	return v;
}
