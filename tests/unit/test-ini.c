/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-container ini: keys, defaults, and errors that name file:line. */
#include "unit.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/util.h"
#include "config/ini.h"

/* Captures stderr of one call so the file:line message can be checked. */
static char captured[4096];

static int parse_capturing(const char *buf, struct gp_ini *c)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), r;
	size_t n;

	assert_non_null(tmp);
	dup2(fileno(tmp), 2);
	r = gp_ini_parse(buf, "/etc/gpu-provision/c1.ini", c);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(captured, 1, sizeof(captured) - 1, tmp);
	captured[n] = '\0';
	fclose(tmp);
	return r;
}

static void full(void **state)
{
	struct gp_ini c;

	(void)state;
	assert_int_equal(parse_capturing("; comment\n[gpu]\ndevices = 0,2 ; first two\n"
					 "caps = mig-config\n[uvm]\ndisable_hmm = yes\n[probe]\n"
					 "timeout = 5\n",
					 &c),
			 0);
	assert_string_equal(c.devices, "0,2");
	assert_int_equal(c.devices_line, 3);
	assert_string_equal(c.caps, "mig-config");
	assert_int_equal(c.disable_hmm, GP_HMM_YES);
	assert_int_equal(c.probe_timeout, 5);
}

static void defaults(void **state)
{
	struct gp_ini c;

	(void)state;
	assert_int_equal(parse_capturing("[gpu]\ndevices = all\n", &c), 0);
	assert_int_equal(c.disable_hmm, GP_HMM_AUTO);
	assert_int_equal(c.probe_timeout, 30);
	assert_string_equal(c.caps, "");
}

struct bad {
	const char *text;
	const char *message; /* expected in the error, with its line */
};

static void errors_name_file_and_line(void **state)
{
	static const struct bad cases[] = {
		{ "[gpu]\ndevices = 0\ncolour = red\n", "c1.ini:3: unknown key \"colour\"" },
		{ "[gpu]\ndevices = 0\n[gpus]\n", "c1.ini:3: unknown section [gpus]" },
		{ "[gpu]\ndevices = 0\ndevices = 1\n", "c1.ini:3: duplicate key \"devices\"" },
		{ "[gpu]\ndevices = 0\n[uvm]\ndisable_hmm = maybe\n", "c1.ini:4: disable_hmm is" },
		{ "[gpu]\ndevices = 0\n[probe]\ntimeout = 0\n", "c1.ini:4: timeout is" },
		{ "[gpu]\ndevices = 0\nnonsense\n", "c1.ini:3: expected \"key = value\"" },
		{ "devices = 0\n", "c1.ini:1: key \"devices\" before any section" },
		{ "[gpu]\n", "c1.ini: no \"devices\" in [gpu]" },
		{ "[gpu\ndevices = 0\n", "c1.ini:1: section header without" },
	};
	struct gp_ini c;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse_capturing(cases[i].text, &c), -GP_EBADCONF);
		if (!strstr(captured, cases[i].message))
			fail_msg("case %zu: \"%s\" not in \"%s\"", i, cases[i].message, captured);
	}
}

/* Values outside what each key takes, and a buffer over the size limit. */
static void values_out_of_range(void **state)
{
	static const struct bad cases[] = {
		{ "[gpu]\ndevices = 0\n[probe]\ntimeout = 3601\n", "c1.ini:4: timeout is" },
		{ "[gpu]\ndevices = 0\nmode = bind\n", "c1.ini:3: mode is \"bind\"" },
		{ "[gpu]\ndevices = 0\n[uvm]\non_conflict = ignore\n", "c1.ini:4: on_conflict is" },
	};
	struct gp_ini c;
	size_t big = GP_INI_MAX_SIZE + 10;
	char *buf = malloc(big + 1);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse_capturing(cases[i].text, &c), -GP_EBADCONF);
		if (!strstr(captured, cases[i].message))
			fail_msg("case %zu: \"%s\" not in \"%s\"", i, cases[i].message, captured);
	}
	assert_int_equal(parse_capturing("[gpu]\ndevices = 0\n[probe]\ntimeout = 3600\n", &c), 0);
	/* Lines of a comment each, well-formed: only the size is wrong. */
	assert_non_null(buf);
	memcpy(buf, "[gpu]\ndevices = 0\n", 18);
	for (size_t i = 18; i < big; i++)
		buf[i] = i % 100 == 99 ? '\n' : ';';
	buf[big] = '\0';
	assert_int_equal(parse_capturing(buf, &c), -GP_EBADCONF);
	assert_non_null(strstr(captured, "larger than 65536 bytes"));
	free(buf);
}

static void long_line_refused(void **state)
{
	char buf[512];
	struct gp_ini c;

	(void)state;
	snprintf(buf, sizeof(buf), "[gpu]\n; %0250d\ndevices = 0\n", 0);
	assert_int_equal(parse_capturing(buf, &c), -GP_EBADCONF);
	assert_non_null(strstr(captured, "c1.ini:2: line longer than 198"));
	/* The longest line taken is the one the message names. */
	snprintf(buf, sizeof(buf), "[gpu]\ndevices = 0\n; %0196d\n", 0);
	assert_int_equal(parse_capturing(buf, &c), 0);
	snprintf(buf, sizeof(buf), "[gpu]\ndevices = 0\n; %0197d\n", 0);
	assert_int_equal(parse_capturing(buf, &c), -GP_EBADCONF);
}

static void owner_and_mode(void **state)
{
	struct stat st = { .st_mode = S_IFREG | 0644, .st_uid = 0 };
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);

	(void)state;
	dup2(devnull, 2);
	assert_int_equal(gp_ini_check_owner("x", &st, 0), 0);
	st.st_mode = S_IFREG | 0664;
	assert_int_equal(gp_ini_check_owner("x", &st, 0), -GP_EBADCONF);
	st.st_mode = S_IFREG | 0646;
	assert_int_equal(gp_ini_check_owner("x", &st, 0), -GP_EBADCONF);
	st.st_mode = S_IFREG | 0600;
	st.st_uid = 1000;
	assert_int_equal(gp_ini_check_owner("x", &st, 0), -GP_EBADCONF);
	st.st_uid = 0;
	st.st_mode = S_IFIFO | 0600;
	assert_int_equal(gp_ini_check_owner("x", &st, 0), -GP_EBADCONF);
	dup2(saved, 2);
	close(saved);
	close(devnull);
}

static void format_round_trips(void **state)
{
	struct gp_ini a, b;
	char *text;

	(void)state;
	assert_int_equal(
	    parse_capturing("[gpu]\ndevices = GPU-1,0000:41:00.0\ncaps = gpu1/gi1/ci0\n"
			    "[uvm]\ndisable_hmm = no\n[probe]\ntimeout = 12\n",
			    &a),
	    0);
	text = gp_ini_format(&a);
	assert_int_equal(parse_capturing(text, &b), 0);
	assert_string_equal(a.devices, b.devices);
	assert_string_equal(a.caps, b.caps);
	assert_int_equal(a.disable_hmm, b.disable_hmm);
	assert_int_equal(a.probe_timeout, b.probe_timeout);
	free(text);
}

static void host_defaults_and_merge(void **state)
{
	struct gp_ini host, ct;
	FILE *tmp = tmpfile();
	int saved = dup(2), r;

	(void)state;
	assert_int_equal(gp_ini_parse_as("[uvm]\ndisable_hmm = yes\non_conflict = warn\n"
					 "[probe]\ntimeout = 9\n",
					 "gpu-provision.conf", GP_CONF_HOST, &host),
			 0);
	assert_int_equal(parse_capturing("[gpu]\ndevices = 0\n[uvm]\ndisable_hmm = no\n", &ct), 0);
	gp_ini_merge_host(&ct, &host);
	assert_int_equal(ct.disable_hmm, GP_HMM_NO); /* the container's own value stays */
	assert_int_equal(ct.on_conflict, GP_CONFLICT_WARN);
	assert_int_equal(ct.probe_timeout, 9);
	/* The host file has no [gpu]; a bad on_conflict names its line. */
	dup2(fileno(tmp), 2);
	r = gp_ini_parse_as("[gpu]\ndevices = 0\n", "h.conf", GP_CONF_HOST, &host);
	assert_int_equal(r, -GP_EBADCONF);
	r = gp_ini_parse_as("[uvm]\non_conflict = maybe\n", "h.conf", GP_CONF_HOST, &host);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(r, -GP_EBADCONF);
	rewind(tmp);
	captured[fread(captured, 1, sizeof(captured) - 1, tmp)] = '\0';
	fclose(tmp);
	assert_non_null(strstr(captured, "h.conf:1: unknown section [gpu]; known: [uvm], [probe]"));
	assert_non_null(strstr(captured, "h.conf:2: on_conflict is \"maybe\""));
}

/* The documented example must stay a valid ini. */
static void shipped_example_parses(void **state)
{
	struct gp_ini c;
	char *buf = NULL;
	size_t n = 0;
	FILE *f = fopen(FIXTURES "/../../conf/example.ini", "r");

	(void)state;
	assert_non_null(f);
	assert_true(getdelim(&buf, &n, '\0', f) > 0);
	fclose(f);
	assert_int_equal(parse_capturing(buf, &c), 0);
	assert_string_equal(c.devices, "0,2");
	assert_string_equal(c.caps, "");
	free(buf);
}

/* One "key = value" line of an ini text, or of a commented one (";key = value"). */
struct key_line {
	char section[32];
	char name[32];
	char value[128];
};

/* The key lines of text, each with the [section] it is under; at most max. */
static size_t key_lines(const char *text, struct key_line *out, size_t max)
{
	char section[32] = "", line[256];
	size_t n = 0;

	for (const char *p = text; *p && n < max;) {
		size_t len = strcspn(p, "\n");
		char *s, *name, *end;

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p += len + (p[len] == '\n');
		s = gp_strtrim(line);
		if (*s == '[') {
			snprintf(section, sizeof(section), "%.*s", (int)strcspn(s + 1, "]"), s + 1);
			continue;
		}
		if (*s == ';')
			s++;
		name = s += strspn(s, " ");
		s += strspn(s, "abcdefghijklmnopqrstuvwxyz_0123456789");
		end = s;
		s += strspn(s, " ");
		if (end == name || *s != '=')
			continue;
		*end = '\0';
		s = gp_strtrim(s + 1);
		s[strcspn(s, ";")] = '\0';
		snprintf(out[n].section, sizeof(out[n].section), "%s", section);
		snprintf(out[n].name, sizeof(out[n].name), "%s", name);
		snprintf(out[n].value, sizeof(out[n].value), "%s", gp_strtrim(s));
		n++;
	}
	return n;
}

/* Fails unless lines hold each key of the table once, under its section, and no other. */
static void assert_table_keys(const char *what, const struct key_line *lines, size_t n)
{
	const struct gp_ini_key *k;
	size_t i, j, found;

	for (i = 0; (k = gp_ini_key(i)); i++) {
		found = 0;
		for (j = 0; j < n; j++)
			found += !strcmp(lines[j].section, k->section) &&
				 !strcmp(lines[j].name, k->name);
		if (found != 1)
			fail_msg("%s: [%s] %s is there %zu times, not once", what, k->section,
				 k->name, found);
	}
	if (n != i)
		fail_msg("%s: %zu keys, the table has %zu", what, n, i);
}

/*
 * Every key of the table, given a value other than its default, is written back by
 * gp_ini_format and read again the same: a row the writer or the reader misses fails.
 */
static void every_key_round_trips(void **state)
{
	struct gp_buf in = { 0 };
	const struct gp_ini_key *k;
	struct key_line lines[32];
	struct gp_ini a, b;
	char *text, *again;
	size_t i, n;

	(void)state;
	for (i = 0; (k = gp_ini_key(i)); i++) {
		assert_non_null(k->example);
		if (k->def && !strcmp(k->example, k->def))
			fail_msg("%s: the example is the default", k->name);
		assert_int_equal(
		    gp_buf_printf(&in, "[%s]\n%s = %s\n", k->section, k->name, k->example), 0);
	}
	assert_int_equal(parse_capturing(in.data, &a), 0);
	text = gp_ini_format(&a);
	assert_non_null(text);
	n = key_lines(text, lines, 32);
	assert_table_keys("written", lines, n);
	for (i = 0; (k = gp_ini_key(i)); i++) {
		for (size_t j = 0; j < n; j++) {
			if (!strcmp(lines[j].name, k->name) && strcmp(lines[j].value, k->example))
				fail_msg("%s written as \"%s\", not \"%s\"", k->name,
					 lines[j].value, k->example);
		}
	}
	assert_int_equal(parse_capturing(text, &b), 0);
	again = gp_ini_format(&b);
	assert_string_equal(text, again);
	free(again);
	free(text);
	gp_buf_free(&in);
}

/* The host's file takes the keys marked host, and refuses the others. */
/* The host's file is told of its own sections; an ini that would not read back is refused. */
static void messages_fit_the_file(void **state)
{
	struct gp_log_capture why;
	struct gp_ini c;

	(void)state;
	gp_log_capture_start(&why);
	assert_int_equal(gp_ini_parse_as("timeout = 3\n", "h.conf", GP_CONF_HOST, &c),
			 -GP_EBADCONF);
	gp_log_capture_stop(&why);
	assert_string_equal(
	    why.text, "h.conf:1: key \"timeout\" before any section; put it under [uvm], [probe] "
		      "or [driver]");
	gp_ini_init(&c);
	assert_int_equal(c.probe_timeout, 30);
	snprintf(c.devices, sizeof(c.devices), "%0250d", 0);
	gp_log_capture_start(&why);
	assert_int_equal(gp_ini_check_readable(&c), -GP_EBADCONF);
	gp_log_capture_stop(&why);
	assert_non_null(strstr(why.text, "would not read back (the ini:3: line longer than 198"));
	snprintf(c.devices, sizeof(c.devices), "0,1");
	assert_int_equal(gp_ini_check_readable(&c), 0);
}

static void host_file_takes_the_host_keys(void **state)
{
	const struct gp_ini_key *k;
	struct gp_ini c;
	char text[256];
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);

	(void)state;
	dup2(devnull, 2);
	for (size_t i = 0; (k = gp_ini_key(i)); i++) {
		snprintf(text, sizeof(text), "[%s]\n%s = %s\n", k->section, k->name, k->example);
		if (gp_ini_parse_as(text, "h.conf", GP_CONF_HOST, &c) !=
		    (k->host ? 0 : -GP_EBADCONF))
			fail_msg("gpu-provision.conf %s [%s] %s", k->host ? "refuses" : "takes",
				 k->section, k->name);
	}
	dup2(saved, 2);
	close(saved);
	close(devnull);
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		fail_msg("cannot open %s", path);
	assert_true(getdelim(&buf, &n, '\0', f) > 0);
	fclose(f);
	return buf;
}

/* docs/attach.md's ini block and conf/example.ini show every key of the table, and no other. */
static void documented_keys_are_the_table(void **state)
{
	struct key_line lines[64];
	char *readme = slurp(FIXTURES "/../../docs/attach.md");
	char *example = slurp(FIXTURES "/../../conf/example.ini");
	char *block, *end;

	(void)state;
	block = strstr(readme, "\n```ini\n");
	assert_non_null(block);
	block += strlen("\n```ini\n");
	end = strstr(block, "\n```");
	assert_non_null(end);
	*end = '\0';
	assert_table_keys("docs/attach.md", lines, key_lines(block, lines, 64));
	assert_table_keys("conf/example.ini", lines, key_lines(example, lines, 64));
	free(readme);
	free(example);
}

/*
 * gp_ini_load checks a file's owner and mode and reads it through the same
 * descriptor. Linked with --wrap=gp_read_file: a read by path after the check finds
 * here a group-writable file renamed over the checked one, as a racing writer would.
 */
static char swap_path[256], swap_with[256];
int __real_gp_read_file(const char *path, size_t max, char **buf, size_t *len);
int __wrap_gp_read_file(const char *path, size_t max, char **buf, size_t *len);

int __wrap_gp_read_file(const char *path, size_t max, char **buf, size_t *len)
{
	if (swap_path[0] && strcmp(path, swap_path) == 0)
		assert_int_equal(rename(swap_with, swap_path), 0);
	return __real_gp_read_file(path, max, buf, len);
}

static void write_ini(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

/* The load cases: files in a directory of root's, made fresh for each and removed after. */
static char dir[64];

static int dir_setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gp-ini.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int dir_teardown(void **state)
{
	char cmd[128];

	(void)state;
	alarm(0);
	swap_path[0] = '\0';
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void need_root(void)
{
	if (geteuid() != 0)
		skip(); /* the files must be root's */
}

static void load_checks_the_file_it_reads(void **state)
{
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);
	struct gp_ini c;

	(void)state;
	need_root();
	snprintf(swap_path, sizeof(swap_path), "%s/c1.ini", dir);
	snprintf(swap_with, sizeof(swap_with), "%s/evil", dir);
	write_ini(swap_path, "[gpu]\ndevices = 0\n", 0644);
	write_ini(swap_with, "[gpu]\ndevices = all\n", 0666);
	assert_int_equal(gp_ini_load(test_ctx(dir, dir, NULL, false), "c1", &c), 0);
	assert_string_equal(c.devices, "0");
	swap_path[0] = '\0';
	/* A group-writable ini is refused, not read. */
	write_ini(swap_with, "[gpu]\ndevices = all\n", 0664);
	snprintf(swap_path, sizeof(swap_path), "%s/c1.ini", dir);
	assert_int_equal(rename(swap_with, swap_path), 0);
	swap_path[0] = '\0';
	dup2(devnull, 2);
	assert_int_equal(gp_ini_load(test_ctx(dir, dir, NULL, false), "c1", &c), -GP_EBADCONF);
	dup2(saved, 2);
	close(saved);
	close(devnull);
}

static int load_quietly(const char *name, struct gp_ini *c)
{
	struct gp_log_capture quiet; /* what it says is not this test's subject */
	int r;

	gp_log_capture_start(&quiet);
	r = gp_ini_load(test_ctx(dir, dir, NULL, false), name, c);
	gp_log_capture_stop(&quiet);
	return r;
}

/* A link to a good ini is still not an ini: whoever made the link chose what is read. */
static void load_refuses_a_link(void **state)
{
	char path[128], target[128];
	struct gp_ini c;

	(void)state;
	need_root();
	snprintf(target, sizeof(target), "%s/elsewhere.ini", dir);
	snprintf(path, sizeof(path), "%s/c1.ini", dir);
	write_ini(target, "[gpu]\ndevices = all\n", 0644);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(load_quietly("c1", &c), -ELOOP);
	assert_int_equal(load_quietly("elsewhere", &c), 0);
}

static char fifo[128];

/* A load stuck on the FIFO: take it away (unlink and rmdir are async-signal-safe) and end. */
static void on_alarm(int sig)
{
	static const char msg[] = "test-ini: the load waited on a FIFO\n";

	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	unlink(fifo);
	rmdir(dir);
	_exit(128 + sig);
}

/* A FIFO is refused at once: nobody has to write into it for the start to go on. */
static void load_refuses_a_fifo_without_waiting(void **state)
{
	struct gp_ini c;

	(void)state;
	need_root();
	snprintf(fifo, sizeof(fifo), "%s/c1.ini", dir);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	signal(SIGALRM, on_alarm);
	alarm(5);
	assert_int_equal(load_quietly("c1", &c), -GP_EBADCONF);
	alarm(0);
}

static void load_refuses_a_big_file(void **state)
{
	char path[128];
	struct gp_ini c;
	int fd;

	(void)state;
	need_root();
	snprintf(path, sizeof(path), "%s/c1.ini", dir);
	write_ini(path, "[gpu]\ndevices = 0\n", 0644);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, GP_INI_MAX_SIZE + 1), 0);
	close(fd);
	assert_int_equal(load_quietly("c1", &c), -GP_EBADCONF);
	/* Someone else's file is refused however it is written. */
	assert_int_equal(truncate(path, 0), 0);
	write_ini(path, "[gpu]\ndevices = 0\n", 0644);
	assert_int_equal(load_quietly("c1", &c), 0);
	assert_int_equal(chown(path, 1000, 0), 0);
	assert_int_equal(load_quietly("c1", &c), -GP_EBADCONF);
}

/* A Proxmox VE root under dir: etc/pve/lxc, and the local link to nodes/<node>. */
static void pve_layout(const char *link)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/etc/pve/lxc", dir);
	assert_int_equal(gp_mkdir_parents(path), 0);
	assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
	snprintf(path, sizeof(path), "%s/etc/pve/local", dir);
	unlink(path);
	assert_int_equal(symlink(link, path), 0);
}

/*
 * On Proxmox VE the ini lives in the cluster filesystem, 0640 as pmxcfs keeps files (it
 * refuses any other mode); one a node kept in confdir before is read, and the cluster's
 * copy is read first once saved.
 */
static void cluster_ini_moves(void **state)
{
	char confdir[96], local[128], cluster[128];
	struct gp_ini c;
	struct stat st;

	(void)state;
	need_root();
	pve_layout("nodes/pve-a");
	snprintf(confdir, sizeof(confdir), "%s/etc/gpu-provision", dir);
	assert_int_equal(mkdir(confdir, 0755), 0);
	snprintf(local, sizeof(local), "%s/101.ini", confdir);
	snprintf(cluster, sizeof(cluster), "%s/etc/pve/gpu-provision/101.ini", dir);
	write_ini(local, "[gpu]\ndevices = 0\n", 0644);
	assert_int_equal(gp_ini_load(test_ctx(dir, confdir, NULL, false), "101", &c), 0);
	assert_string_equal(c.devices, "0");
	assert_string_equal(c.path, local);
	snprintf(c.devices, sizeof(c.devices), "1");
	assert_int_equal(gp_ini_save(test_ctx(dir, confdir, NULL, false), "101", &c), 0);
	assert_int_equal(stat(cluster, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	/* The node's copy stays for attach to remove once the config is written too. */
	assert_int_equal(access(local, F_OK), 0);
	assert_int_equal(gp_ini_load(test_ctx(dir, confdir, NULL, false), "101", &c), 0);
	assert_string_equal(c.path, cluster);
	assert_string_equal(c.devices, "1");
	assert_string_equal(test_ctx(dir, confdir, NULL, false)->node, "pve-a");
}

/* The node's name is what the local link names, and only a name. */
static void node_name_from_the_local_link(void **state)
{
	static const char *const bad[] = { "nodes/", "nodes/a/b", "nodes/..", "other/a",
					   "nodes/a b" };
	const struct gp_ctx *ctx;

	(void)state;
	pve_layout("nodes/n1.example");
	ctx = test_ctx(dir, dir, NULL, false);
	assert_int_equal(ctx->node_err, 0);
	assert_string_equal(ctx->node, "n1.example");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pve_layout(bad[i]);
		ctx = test_ctx(dir, dir, NULL, false);
		if (ctx->node_err != -GP_EBADCONF || ctx->node[0])
			fail_msg("accepted %s", bad[i]);
	}
	ctx = test_ctx("/nonexistent", dir, NULL, false);
	assert_int_equal(ctx->node_err, -ENOENT);
	assert_false(ctx->pve);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full),
		cmocka_unit_test(defaults),
		cmocka_unit_test(errors_name_file_and_line),
		cmocka_unit_test(values_out_of_range),
		cmocka_unit_test(long_line_refused),
		cmocka_unit_test(format_round_trips),
		cmocka_unit_test(owner_and_mode),
		cmocka_unit_test(shipped_example_parses),
		cmocka_unit_test(host_defaults_and_merge),
		cmocka_unit_test(every_key_round_trips),
		cmocka_unit_test(messages_fit_the_file),
		cmocka_unit_test(host_file_takes_the_host_keys),
		cmocka_unit_test(documented_keys_are_the_table),
		cmocka_unit_test_setup_teardown(load_checks_the_file_it_reads, dir_setup,
						dir_teardown),
		cmocka_unit_test_setup_teardown(load_refuses_a_link, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(load_refuses_a_fifo_without_waiting, dir_setup,
						dir_teardown),
		cmocka_unit_test_setup_teardown(load_refuses_a_big_file, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(cluster_ini_moves, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(node_name_from_the_local_link, dir_setup,
						dir_teardown),
	};
	return cmocka_run_group_tests_name("ini", tests, NULL, NULL);
}
