/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Implemented in lib/base/proc.c: a process as the real host's /proc/PID/stat shows it, and
 * the mount an fd is on as a mount table shows it.
 */
#ifndef GP_PROC_H
#define GP_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * The start time of process pid, field 22 of the real host's /proc/PID/stat (clock ticks
 * since boot): 0; -ENOENT when no such process runs (a zombie neither, gp_proc_gone);
 * -GP_EBADCONF for a file that does not parse, another -errno when it cannot be read (EMFILE,
 * ENOMEM): then whether it runs is not known. The parser takes the file's text: 0 or
 * -GP_EBADCONF.
 */
int gp_proc_start_time(pid_t pid, unsigned long long *start);
int gp_parse_proc_stat(const char *buf, char *state, unsigned long long *start);

/* True when err, of reading /proc/PID/stat, says that no such process runs. */
bool gp_proc_gone(int err);

/* The id of the mount fd is on, from /proc/self/fdinfo (no filesystem is asked): or -1. */
int gp_proc_mount_id(int fd);

/*
 * The filesystem type of mount id in the mount table f (a mountinfo), read line by line
 * from where f is: 0, or -ENOENT. A line longer than 64 KiB (a container's own long paths)
 * is passed over.
 */
int gp_mountinfo_fstype(FILE *f, int id, char *fstype, size_t size);

#endif
