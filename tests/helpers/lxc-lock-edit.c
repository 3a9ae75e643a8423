/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stand-in for a liblxc writer of a container's config (t-edits.sh):
 *   lxc-lock-edit LXCPATH NAME LINE SECONDS READY
 * takes the container's lock the way liblxc 5.0.2 does (an OFD write lock on
 * /run/lxc/lock/LXCPATH/.NAME: src/lxc/lxclock.c), reads LXCPATH/NAME/config, makes the
 * file READY, holds the lock SECONDS, then writes the config it read plus LINE (temp
 * file and rename) and lets go. Written apart from lib/base/lock.c on purpose: the test
 * checks with lxc-info that liblxc waits for this lock too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void die(const char *what, const char *path)
{
	fprintf(stderr, "lxc-lock-edit: %s \"%s\": %s\n", what, path, strerror(errno));
	exit(1);
}

static void mkdirs(char *path)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			die("mkdir", path);
		*p = '/';
	}
}

static int lock_container(const char *lxcpath, const char *name)
{
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "/run/lxc/lock/%s/.%s", lxcpath, name);
	mkdirs(path);
	fd = open(path, O_CREAT | O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0 || fcntl(fd, F_OFD_SETLKW, &lk) < 0)
		die("lock", path);
	return fd;
}

int main(int argc, char **argv)
{
	char config[4096], tmp[4200], buf[1 << 16];
	ssize_t n;
	int fd, in, out;

	if (argc != 6) {
		fprintf(stderr, "usage: lxc-lock-edit LXCPATH NAME LINE SECONDS READY\n");
		return 2;
	}
	fd = lock_container(argv[1], argv[2]);
	snprintf(config, sizeof(config), "%s/%s/config", argv[1], argv[2]);
	snprintf(tmp, sizeof(tmp), "%s.lock-edit", config);
	in = open(config, O_RDONLY | O_CLOEXEC);
	n = in < 0 ? -1 : read(in, buf, sizeof(buf));
	if (n < 0 || n == sizeof(buf))
		die("read", config);
	close(open(argv[5], O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	sleep((unsigned int)atoi(argv[4]));
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0 || write(out, buf, (size_t)n) != n || dprintf(out, "%s\n", argv[3]) < 0 ||
	    close(out) < 0 || rename(tmp, config) < 0)
		die("write", tmp);
	close(fd);
	return 0;
}
