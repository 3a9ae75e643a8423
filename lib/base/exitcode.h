/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Header only: the exit codes of gpu-provision and gpu-hook, and the one mapping to them. */
#ifndef GP_EXITCODE_H
#define GP_EXITCODE_H

#include <errno.h>

#include "base/error.h"

enum gp_exit {
	GP_EXIT_OK = 0,
	/*
	 * A problem found (check, probe, host without a driver), or a change the policy
	 * refused: prepare's [uvm] conflict (-GP_EREFUSED). gpu-hook runs "gpu-provision
	 * prepare" and refuses the start on this code, with prepare's message
	 * (lib/start/hookuvm.c).
	 */
	GP_EXIT_PROBLEM = 1,
	GP_EXIT_USAGE = 2,  /* bad usage or configuration: the message says what to fix */
	GP_EXIT_FAILED = 3, /* an operation failed */
};

/*
 * A command's result (0, -errno, or an outcome of base/error.h; already said) as its exit
 * code: an errno, EPERM and EINVAL too, is an operation that failed.
 */
static inline int gp_exit_code(int r)
{
	switch (r) {
	case 0:
		return GP_EXIT_OK;
	case -GP_EREFUSED:
		return GP_EXIT_PROBLEM;
	case -GP_EBADCONF:
		return GP_EXIT_USAGE;
	default:
		return GP_EXIT_FAILED;
	}
}

/* The other way: what a gpu-provision child's exit code says, as a result. */
static inline int gp_exit_result(int code)
{
	return code == GP_EXIT_OK	 ? 0
	       : code == GP_EXIT_PROBLEM ? -GP_EREFUSED
	       : code == GP_EXIT_USAGE	 ? -GP_EBADCONF
					 : -EIO;
}

#endif
