/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Header only: the results that are no system error. A function returns 0, -errno of a
 * failed call, or one of these negated: outside errno's range (below 4096), so that no errno
 * a system call gives is ever taken for one. base/exitcode.h maps each to an exit code, and
 * gp_strerror (base/log.h) words them.
 */
#ifndef GP_ERROR_H
#define GP_ERROR_H

enum gp_outcome {
	GP_EREFUSED = 4097, /* a policy refused a change: prepare's [uvm] conflict */
	GP_EBADCONF,	    /* bad usage, configuration or input: the message says what to fix */
};

#endif
