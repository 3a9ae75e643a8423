/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a start injects of the driver's user space: pre-start picks the host's files of
 * the capabilities asked for, at the kernel module's version, and vouches for the host's
 * ldconfig; the mount hook (lib/start/injectmount.c) reads it back and gives them.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/ctx.h"
#include "base/paths.h"
#include "base/trust.h"
#include "base/util.h"
#include "host/userspace.h"
#include "start/inject.h"

#define HEADER "gpu-provision-inject 1\n"

static unsigned int expand(unsigned int caps)
{
	if (caps & GP_CAP_BIT(GP_CAP_VIDEO))
		caps |= GP_CAP_BIT(GP_CAP_COMPUTE);
	if (caps & GP_CAP_BIT(GP_CAP_DISPLAY))
		caps |= GP_CAP_BIT(GP_CAP_GRAPHICS);
	return caps;
}

static const char *soname_of(const struct gp_inject_file *f)
{
	return f->soname[0] ? f->soname : f->name;
}

/* Whether inj holds a file of that name, or a library of that soname. */
static bool holds(const struct gp_inject *inj, const char *name)
{
	for (size_t i = 0; i < inj->n; i++)
		if (strcmp(soname_of(&inj->v[i]), name) == 0 || strcmp(inj->v[i].name, name) == 0)
			return true;
	return false;
}

/* Each kind: its line's word in the .inject file, and its directory. */
static const char *const kind_word[GP_INJECT_KINDS] = { "lib", "bin", "cfg" };
static const char *const kind_dir[GP_INJECT_KINDS] = { "lib64", "bin", "share" };

const char *gp_inject_dir(enum gp_inject_kind kind)
{
	return kind < GP_INJECT_KINDS ? kind_dir[kind] : "?";
}

static int add(struct gp_inject *inj, enum gp_inject_kind kind, const char *name,
	       const char *soname, const char *link, const char *root, const char *real)
{
	_cleanup_free_ char *source = gp_path(root, real);
	struct gp_inject_file *f;

	if (!source)
		return -ENOMEM;
	if (strlen(name) >= sizeof(f->name) || (soname && strlen(soname) >= sizeof(f->soname)) ||
	    (link && strlen(link) >= sizeof(f->link)) || strlen(source) >= sizeof(f->source))
		return gp_error_errno(-ENAMETOOLONG,
				      "the host's %s: a name or path too long to pass to the hook",
				      source);
	if (inj->n == GP_INJECT_MAX)
		return gp_error_errno(-E2BIG, "more than %d driver files to inject", GP_INJECT_MAX);
	f = &inj->v[inj->n++];
	f->kind = kind;
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->soname, sizeof(f->soname), "%s", soname && strcmp(name, soname) ? soname : "");
	snprintf(f->link, sizeof(f->link), "%s", link ? link : "");
	snprintf(f->source, sizeof(f->source), "%s", source);
	return 0;
}

/*
 * The libraries of caps at the module's version: one per soname, the first the cache
 * names as the loader takes it, and each file once. A development link ("libcuda.so")
 * is nothing the loader looks for at run time.
 */
static int add_libraries(const char *root, const struct gp_userspace *u, unsigned int caps,
			 struct gp_inject *inj)
{
	int r = 0;

	for (size_t i = 0; i < u->n && r == 0; i++) {
		const struct gp_userspace_lib *l = &u->v[i];

		size_t n = strlen(l->soname);

		if (!(caps & GP_CAP_BIT(l->cap)) || (n > 3 && !strcmp(l->soname + n - 3, ".so")) ||
		    holds(inj, l->soname) || holds(inj, l->file))
			continue;
		if (!l->matches)
			gp_warn("%s (%s) is of version %s, not the kernel module's %s: not "
				"injected; remove it, or reinstall the driver",
				l->path, l->file, l->version[0] ? l->version : "unknown",
				inj->version);
		else
			r = add(inj, GP_INJECT_LIB, l->file, l->soname, NULL, root, l->real);
	}
	return r;
}

unsigned int gp_inject_lacking(const struct gp_inject *inj, unsigned int caps)
{
	unsigned int lacking = 0;

	caps = expand(caps) & ~GP_CAP_BIT(GP_CAP_DISPLAY); /* display: graphics' libraries */
	for (int c = 0; c < GP_CAP_COUNT; c++) {
		bool found = false;

		for (size_t i = 0; i < inj->n && !found; i++)
			found = inj->v[i].kind == GP_INJECT_LIB &&
				(int)gp_capability_of(soname_of(&inj->v[i])) == c;
		if ((caps & GP_CAP_BIT(c)) && !found)
			lacking |= GP_CAP_BIT(c);
	}
	return lacking;
}

/* A capability asked for must bring at least one library. */
static int check_capabilities(const char *root, unsigned int caps, const struct gp_inject *inj)
{
	unsigned int lacking = gp_inject_lacking(inj, caps);

	for (int c = 0; c < GP_CAP_COUNT; c++)
		if (lacking & GP_CAP_BIT(c))
			gp_error("[driver] capabilities asks for %s, but %s/etc/ld.so.cache names "
				 "none of its libraries at the kernel module's version %s: install "
				 "the driver's %s libraries on the host, or take %s out of "
				 "capabilities",
				 gp_capability_name(c), gp_root_is_host(root) ? "" : root,
				 inj->version, gp_capability_name(c), gp_capability_name(c));
	return lacking ? -GP_EBADCONF : 0;
}

/* Every file held to the owner rule: the first that fails is named in inj->untrusted. */
static int check_owners(const struct gp_ctx *ctx, struct gp_inject *inj)
{
	const char *top = gp_root_is_host(ctx->root) ? "/" : ctx->root;

	for (size_t i = 0; i < inj->n; i++) {
		int fd = gp_trust_open_file(top, inj->v[i].source, ctx->owner);

		if (fd < 0) {
			snprintf(inj->untrusted, sizeof(inj->untrusted), "%s", inj->v[i].source);
			return fd;
		}
		close(fd);
	}
	return 0;
}

int gp_inject_select(const struct gp_ctx *ctx, const char *version, unsigned int caps,
		     struct gp_inject *inj)
{
	const char *root = ctx->root;
	_cleanup_free_ struct gp_userspace *u = malloc(sizeof(*u));
	int r;

	memset(inj, 0, sizeof(*inj));
	if (!u)
		return -ENOMEM;
	if (!version || !*version) {
		gp_error("the NVIDIA kernel module's version is unknown (no "
			 "/proc/driver/nvidia/version): load the driver before a start that "
			 "injects its user space");
		return -GP_EBADCONF;
	}
	snprintf(inj->version, sizeof(inj->version), "%s", version);
	r = gp_userspace_discover(root, version, u);
	if (r == 0 && !u->cache_found) {
		gp_error("no %s/etc/ld.so.cache to find the driver's libraries in: run ldconfig",
			 gp_root_is_host(root) ? "" : root);
		r = -GP_EBADCONF;
	}
	caps = expand(caps);
	if (r == 0)
		r = add_libraries(root, u, caps, inj);
	for (size_t i = 0; i < u->nfiles && r == 0; i++) {
		const struct gp_userspace_file *f = &u->files[i];

		if (caps & GP_CAP_BIT(f->cap))
			r = add(inj, f->program ? GP_INJECT_PROGRAM : GP_INJECT_CONFIG, f->name,
				NULL, f->where, root, f->real);
	}
	if (r == 0)
		r = check_capabilities(root, caps, inj);
	if (r == 0)
		r = check_owners(ctx, inj);
	return r < 0 ? r : gp_ldconfig_find(&inj->ldconfig);
}

char *gp_inject_format(const struct gp_inject *inj)
{
	struct gp_buf b = { 0 };
	int r = gp_buf_printf(&b, HEADER "version %s\nldconfig %s %llu %llu\n", inj->version,
			      inj->ldconfig.path, inj->ldconfig.dev, inj->ldconfig.ino);

	for (size_t i = 0; i < inj->n && r == 0; i++) {
		const struct gp_inject_file *f = &inj->v[i];

		r = gp_buf_printf(&b, "%s %s %s %s\n", kind_word[f->kind], f->name,
				  f->kind == GP_INJECT_LIB ? (f->soname[0] ? f->soname : "-")
							   : f->link,
				  f->source);
	}
	if (r < 0) {
		gp_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* A file name of the driver's: letters, digits, . _ + -, not starting with a dot. */
static bool name_is_valid(const char *s)
{
	if (!*s || *s == '.')
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") ==
	       strlen(s);
}

/* An absolute path of driver file names: no "." or "..", no empty part. */
static bool link_is_valid(const char *s)
{
	char copy[128], *save = NULL;
	size_t parts = 0;

	if (s[0] != '/' || strstr(s, "//") || snprintf(copy, sizeof(copy), "%s", s) >= 127)
		return false;
	for (char *p = strtok_r(copy, "/", &save); p; p = strtok_r(NULL, "/", &save), parts++)
		if (!name_is_valid(p))
			return false;
	return parts >= 2;
}

/* "lib NAME SONAME|- SOURCE", "bin NAME LINK SOURCE" or "cfg NAME LINK SOURCE". */
static int parse_line(const char *line, struct gp_inject *inj)
{
	struct gp_inject_file *f = &inj->v[inj->n];
	char word[4], name[128], third[128], source[256];
	int used = 0, k;

	if (strlen(line) < 4 || line[3] != ' ' ||
	    sscanf(line, "%3s %127s %127s %255s%n", word, name, third, source, &used) != 4 ||
	    line[used])
		return -GP_EBADCONF;
	for (k = 0; k < GP_INJECT_KINDS && strcmp(word, kind_word[k]); k++)
		;
	if (k == GP_INJECT_KINDS || !name_is_valid(name) || source[0] != '/')
		return -GP_EBADCONF;
	f->kind = (enum gp_inject_kind)k;
	if (f->kind == GP_INJECT_LIB && strcmp(third, "-") &&
	    (!name_is_valid(third) || strlen(third) >= sizeof(f->soname)))
		return -GP_EBADCONF;
	if (f->kind != GP_INJECT_LIB && !link_is_valid(third))
		return -GP_EBADCONF;
	snprintf(f->name, sizeof(f->name), "%s", name);
	if (f->kind == GP_INJECT_LIB)
		snprintf(f->soname, sizeof(f->soname), "%.63s", strcmp(third, "-") ? third : "");
	else
		snprintf(f->link, sizeof(f->link), "%s", third);
	snprintf(f->source, sizeof(f->source), "%s", source);
	inj->n++;
	return 0;
}

int gp_inject_parse(const char *buf, struct gp_inject *inj)
{
	const char *pos, *end = buf + strlen(buf), *at;
	char line[512];
	int used = 0;
	size_t n;

	memset(inj, 0, sizeof(*inj));
	if (strncmp(buf, HEADER, strlen(HEADER)) != 0)
		return -GP_EBADCONF;
	pos = buf + strlen(HEADER);
	if (!gp_line_next(&pos, end, &at, &n) || n >= sizeof(line) || at + n == end)
		return -GP_EBADCONF;
	memcpy(line, at, n);
	line[n] = '\0';
	if (sscanf(line, "version %31s%n", inj->version, &used) != 1 || line[used] ||
	    !name_is_valid(inj->version))
		return -GP_EBADCONF;
	if (!gp_line_next(&pos, end, &at, &n) || n >= sizeof(line) || at + n == end)
		return -GP_EBADCONF;
	memcpy(line, at, n);
	line[n] = '\0';
	if (sscanf(line, "ldconfig %255s %llu %llu%n", inj->ldconfig.path, &inj->ldconfig.dev,
		   &inj->ldconfig.ino, &used) != 3 ||
	    line[used] || inj->ldconfig.path[0] != '/')
		return -GP_EBADCONF;
	while (gp_line_next(&pos, end, &at, &n)) {
		if (at + n == end || n >= sizeof(line) || inj->n == GP_INJECT_MAX)
			return -GP_EBADCONF;
		memcpy(line, at, n);
		line[n] = '\0';
		if (parse_line(line, inj) < 0)
			return -GP_EBADCONF;
	}
	return 0;
}

int gp_inject_read(const char *path, struct gp_inject *inj)
{
	_cleanup_free_ char *buf = NULL;
	int r = gp_read_file(path, GP_INJECT_FILE_MAX, &buf, NULL);

	return r < 0 ? r : gp_inject_parse(buf, inj);
}

int gp_inject_write(const char *path, const struct gp_inject *inj)
{
	_cleanup_free_ char *text = gp_inject_format(inj);
	_cleanup_free_ struct gp_inject *back = malloc(sizeof(*back));

	if (!text || !back)
		return -ENOMEM;
	if (gp_inject_parse(text, back) < 0) {
		gp_error("the host's driver files have a name or path the hook cannot read back "
			 "(names of letters, digits and . _ + -, paths without blanks): %s",
			 text);
		return -GP_EBADCONF;
	}
	return gp_write_run_file(path, text);
}
