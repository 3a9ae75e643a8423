/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test double of the host's ldconfig, for test-ldconfig: a static program that reports
 * how it was run (its user, capabilities, no_new_privs, descriptors beyond stdio, whether
 * the device node /node opens, whether a file can be made in "/" and in the mount /sub,
 * what "/" holds, the network interfaces it sees, its limits, the flags of the mount "/"
 * is on, the name it was executed by, its arguments) on one line and exits 1, so that the runner
 * passes the line on. Where "/" holds a file named hang, it waits forever instead.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

static int made(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0644);

	if (fd < 0)
		return 0;
	close(fd);
	unlink(path);
	return 1;
}

/* The network interfaces this process sees, by name: "lo" alone in a new namespace. */
static void print_net(void)
{
	struct if_nameindex *ifs = if_nameindex();

	printf(" net");
	for (struct if_nameindex *i = ifs; i && i->if_index; i++)
		printf(" %s", i->if_name);
	if (ifs)
		if_freenameindex(ifs);
}

static void print_limits(void)
{
	static const struct {
		int resource;
		const char *name;
	} limits[] = { { RLIMIT_AS, "as" },
		       { RLIMIT_CPU, "cpu" },
		       { RLIMIT_FSIZE, "fsize" },
		       { RLIMIT_NOFILE, "nofile" },
		       { RLIMIT_CORE, "core" } };
	struct rlimit rl;

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		if (getrlimit(limits[i].resource, &rl) == 0)
			printf(" %s %llu", limits[i].name, (unsigned long long)rl.rlim_max);
}

static void print_mount(void)
{
	struct statvfs sv;

	if (statvfs("/", &sv) < 0)
		return;
	printf(" mount%s%s%s", sv.f_flag & ST_NODEV ? " nodev" : "",
	       sv.f_flag & ST_NOSUID ? " nosuid" : "", sv.f_flag & ST_NOEXEC ? " noexec" : "");
}

int main(int argc, char **argv)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	int bounding = 0, fds = 0, node;
	char root[256] = "";
	size_t len = 0;
	struct dirent *e;
	DIR *dir;

	if (access("/hang", F_OK) == 0)
		for (;;)
			pause();
	syscall(SYS_capget, &h, d);
	for (int c = 0; c <= 63; c++)
		bounding += prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1;
	for (int fd = 3; fd < 256; fd++)
		fds += fcntl(fd, F_GETFD) >= 0;
	dir = opendir("/");
	while (dir && (e = readdir(dir)) && len < sizeof(root) - 1)
		if (e->d_name[0] != '.')
			len +=
			    (size_t)snprintf(root + len, sizeof(root) - len, "%.64s ", e->d_name);
	node = open("/node", O_RDONLY | O_NONBLOCK);
	printf("uid %u eff %x prm %x bnd %d nnp %d fds %d env %s node %s", getuid(),
	       d[0].effective | d[1].effective, d[0].permitted | d[1].permitted, bounding,
	       prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), fds, environ[0] ? environ[0] : "none",
	       node >= 0	 ? "opened"
	       : errno == EACCES ? "refused"
				 : "other");
	printf(" top %s", made("/made") ? "made" : "refused");
	print_net();
	print_limits();
	print_mount();
	printf(" exe %s", (const char *)getauxval(AT_EXECFN));
	printf(" sub %s root %sargv", made("/sub/made") ? "made" : "refused", root);
	for (int i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	return 1;
}
