/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

#include "base/quorum.h"
#include "base/util.h"

/*
 * A file's first read goes into this much: the files read are small (a /proc table, a
 * config), and a buffer of max + 1 bytes (1 MiB, 4 MiB) costs a mapping and its faults.
 */
#define READ_FIRST 4096

/* *data of *size bytes made larger, up to max + 1: 0 or -ENOMEM. */
static int grow(char **data, size_t *size, size_t max)
{
	size_t next = *size > max / 2 ? max + 1 : *size * 2;
	char *p = realloc(*data, next);

	if (!p)
		return -ENOMEM;
	*data = p;
	*size = next;
	return 0;
}

int gp_read_fd(int fd, size_t max, char **buf, size_t *len)
{
	size_t size = max < READ_FIRST ? max + 1 : READ_FIRST, have = 0;
	_cleanup_free_ char *data = malloc(size);

	if (!data)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (have == size && grow(&data, &size, max) < 0)
			return -ENOMEM;
		n = read(fd, data + have, size - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		have += (size_t)n;
		if (have > max)
			return -EFBIG;
	}
	data[have] = '\0';
	*buf = steal_ptr(data);
	if (len)
		*len = have;
	return 0;
}

int gp_read_file(const char *path, size_t max, char **buf, size_t *len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	return gp_read_fd(fd, max, buf, len);
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes data into a new temp file beside path, whose name goes to *tmp. */
static int write_temp(const char *path, const char *data, size_t len, mode_t mode,
		      unsigned int flags, char **tmp)
{
	_cleanup_free_ char *name = NULL;
	_cleanup_close_ int fd = -1;
	int r;

	if (asprintf(&name, "%s.gp-tmp.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkostemp(name, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write_all(fd, data, len);
	if (r == 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (r == 0 && (flags & GP_DURABLE) && fsync(fd) < 0)
		r = -errno;
	if (r < 0) {
		unlink(name);
		return r;
	}
	*tmp = steal_ptr(name);
	return 0;
}

int gp_write_file_atomic(const char *path, const char *data, size_t len, mode_t mode,
			 unsigned int flags)
{
	_cleanup_free_ char *tmp = NULL;
	int r = write_temp(path, data, len, mode, flags, &tmp);

	if (r == 0 && rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
	}
	return r;
}

int gp_write_run_file(const char *path, const char *text)
{
	int r = gp_mkdir_parents(path);

	if (r == 0)
		r = gp_write_file_atomic(path, text, strlen(text), 0644, 0);
	return r < 0 ? gp_error_errno(r, "Failed to write \"%s\"", path) : 0;
}

int gp_write_file_new(const char *path, const char *data, size_t len, mode_t mode)
{
	_cleanup_close_ int fd =
	    open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	int r = fd < 0 ? -errno : write_all(fd, data, len);

	if (r == 0 && (fchmod(fd, mode) < 0 || fsync(fd) < 0))
		r = -errno;
	if (r < 0 && fd >= 0)
		unlink(path);
	return r;
}

/* Reads path through one descriptor; st describes the file that was read. */
static int read_with_stat(const char *path, size_t max, char **buf, size_t *len, struct stat *st)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	int r = fd < 0 || fstat(fd, st) < 0 ? -errno : gp_read_fd(fd, max, buf, len);

	if (r < 0)
		return gp_error_errno(r, "Failed to read \"%s\"", path);
	return r;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	/* ctime too: a filesystem that keeps mtime in whole seconds (pmxcfs) still moves it. */
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Renames tmp onto path unless path is no longer the file that was read (st). */
static int replace_if_same(const char *tmp, const char *path, const struct stat *st)
{
	struct stat now;

	if (stat(path, &now) < 0)
		return -errno;
	if (!same_file(st, &now)) {
		gp_error("\"%s\" changed while gpu-provision edited it (by a writer that does not "
			 "take the config's lock?): it is left as that writer made it; run the "
			 "command again",
			 path);
		return -ESTALE;
	}
	return rename(tmp, path) < 0 ? -errno : 0;
}

int gp_edit_file(const char *path, size_t max,
		 char *(*edit)(const char *old, size_t len, void *u, bool *changed), void *u)
{
	_cleanup_free_ char *old = NULL, *new = NULL, *bak = NULL, *tmp = NULL;
	mode_t mode;
	struct stat st;
	size_t len;
	bool changed;
	int r;

	r = read_with_stat(path, max, &old, &len, &st);
	if (r < 0)
		return r;
	errno = 0;
	new = edit(old, len, u, &changed);
	if (!new)
		return errno ? -errno : -ENOMEM;
	if (asprintf(&bak, "%s.gpu-provision.bak", path) < 0)
		return -ENOMEM;
	if (!changed)
		return 0;
	mode = st.st_mode & 07777;
	r = gp_write_file_atomic(bak, old, len, mode, GP_DURABLE);
	if (r == 0)
		r = write_temp(path, new, strlen(new), mode, GP_DURABLE, &tmp);
	if (r == 0)
		r = replace_if_same(tmp, path, &st);
	if (r < 0 && tmp)
		unlink(tmp);
	if (r < 0 && r != -ESTALE)
		gp_error("Failed to write \"%s\": %s%s%s; the old file is unchanged", path,
			 gp_strerror(-r), *gp_pve_write_refused(path, r) ? ": " : "",
			 gp_pve_write_refused(path, r));
	return r < 0 ? r : 1;
}

int gp_mkdir_parents(const char *path)
{
	_cleanup_free_ char *copy = strdup(path);
	char *p, *last;

	if (!copy)
		return -ENOMEM;
	/* The parent first: it is there at all but the first start after a boot. */
	last = strrchr(copy, '/');
	if (!last || last == copy)
		return 0;
	*last = '\0';
	if (mkdir(copy, 0755) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -errno;
	*last = '/';
	for (p = copy + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

bool gp_line_next(const char **pos, const char *end, const char **line, size_t *len)
{
	const char *nl;

	if (*pos >= end)
		return false;
	nl = memchr(*pos, '\n', (size_t)(end - *pos));
	*line = *pos;
	*len = (size_t)((nl ? nl : end) - *pos);
	*pos = nl ? nl + 1 : end;
	return true;
}

char *gp_strtrim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	*end = '\0';
	return s;
}

size_t gp_split_words(char *s, char **words, size_t max)
{
	size_t n = 0;

	for (;;) {
		s += strspn(s, " \t");
		if (!*s)
			return n;
		if (n < max)
			words[n] = s;
		n++;
		s += strcspn(s, " \t");
		if (*s)
			*s++ = '\0';
	}
}

int gp_parse_uint(const char *s, unsigned int *out)
{
	unsigned long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -GP_EBADCONF;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT_MAX)
		return -GP_EBADCONF;
	*out = (unsigned int)v;
	return 0;
}

bool gp_name_is_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64 || name[0] == '.' || name[0] == '-')
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			return false;
	return true;
}

bool gp_shell_word_is_safe(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("/._-+:@,=", *p))
			return false;
	return true;
}

int gp_buf_printf(struct gp_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -GP_EBADCONF;
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 256) + (size_t)n;
		char *d = realloc(b->data, cap);
		if (!d)
			return -ENOMEM;
		b->data = d;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void gp_buf_free(struct gp_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

_Static_assert(GP_RESOLVE_STRICT == (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
				     RESOLVE_NO_XDEV),
	       "GP_RESOLVE_STRICT is these four");

int gp_openat2(int dirfd, const char *path, int flags, mode_t mode, unsigned long long resolve)
{
	struct open_how how = { .flags = (unsigned long long)flags,
				.mode = mode,
				.resolve = resolve };

	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

int gp_open_regular(int dirfd, const char *path, unsigned long long resolve)
{
	_cleanup_close_ int fd = gp_openat2(dirfd, path, O_PATH | O_CLOEXEC, 0, resolve);
	char proc[64];
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

bool gp_str_is_printable(const char *s)
{
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return false;
	return true;
}

double gp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
