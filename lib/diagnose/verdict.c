/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A container's last probe verdict, the one reader and writer of its file (verdict.h). */
#include <dirent.h>
#include <lxc/lxccontainer.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/util.h"
#include "diagnose/deep.h"
#include "diagnose/verdict.h"

int gp_verdict_save(const char *root, const char *name, const char *status, const char *deep)
{
	_cleanup_free_ char *path = gp_verdict_path(root, name);
	char text[384];
	int n;

	if (!path || gp_mkdir_parents(path) < 0)
		return -ENOMEM;
	if (deep && !deep[0])
		deep = NULL; /* no device was judged: a plain verdict */
	n = snprintf(text, sizeof(text), "%s %ld\n%s%s%s", status, (long)time(NULL),
		     deep ? "deep " : "", deep ? deep : "", deep ? "\n" : "");
	if (n < 0 || (size_t)n >= sizeof(text))
		return -E2BIG;
	return gp_write_file_atomic(path, text, (size_t)n, 0644, 0);
}

/* "compute=ok,nvml=failed,...": every capability once, in order, with a known status. */
static bool deep_summary_is_valid(const char *s)
{
	for (int c = 0; c < GP_DEEP_COUNT; c++) {
		const char *cap = gp_deep_cap_name((enum gp_deep_cap)c), *end;
		enum gp_deep_status st;
		char word[16];
		size_t n;

		if (c && *s++ != ',')
			return false;
		if (strncmp(s, cap, strlen(cap)) != 0 || s[strlen(cap)] != '=')
			return false;
		s += strlen(cap) + 1;
		end = s + strcspn(s, ",");
		n = (size_t)(end - s);
		if (n >= sizeof(word))
			return false;
		memcpy(word, s, n);
		word[n] = '\0';
		if (gp_deep_status_parse(word, &st) < 0)
			return false;
		s = end;
	}
	return *s == '\0';
}

int gp_verdict_load(const char *root, const char *name, struct gp_verdict *v)
{
	_cleanup_free_ char *path = gp_verdict_path(root, name), *buf = NULL;
	char word[16], deep[256];
	int used = 0;

	memset(v, 0, sizeof(*v));
	if (!path || gp_read_file(path, 512, &buf, NULL) < 0)
		return -ENOENT;
	if (sscanf(buf, "%15s %ld\n%n", word, &v->when, &used) != 2 ||
	    (strcmp(word, "ok") && strcmp(word, "failed") && strcmp(word, "timeout")))
		return -GP_EBADCONF;
	snprintf(v->status, sizeof(v->status), "%s", word);
	if (buf[used] == '\0')
		return 0;
	if (sscanf(buf + used, "deep %255s", deep) != 1 || !deep_summary_is_valid(deep))
		return -GP_EBADCONF;
	snprintf(v->deep, sizeof(v->deep), "%s", deep);
	return 0;
}
