/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bind-socket PATH: leaves a Unix socket at PATH, as a daemon listening there would. */
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	if (argc != 2)
		return 2;
	strncpy(a.sun_path, argv[1], sizeof(a.sun_path) - 1);
	return bind(socket(AF_UNIX, SOCK_STREAM, 0), (struct sockaddr *)&a, sizeof(a)) != 0;
}
