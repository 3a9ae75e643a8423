/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Implemented in provision/checkreport.c. */
#ifndef GP_CHECKREPORT_H
#define GP_CHECKREPORT_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/child.h"
#include "base/util.h"
#include "commands.h"
#include "diagnose/findings.h"
#include "diagnose/probejson.h"

/* One container of gpu-provision check: its findings and its probe's verdict. */
struct gp_check_subject {
	char name[65];
	struct gp_findings f;
	bool running;
	char probe[16];		   /* ok, failed, timeout; empty when not probed */
	struct gp_probe_caps caps; /* its probe's capabilities, after --deep */
	struct gp_child child;	   /* its probe, while it runs */
};

/*
 * Prints the result as text, --json or --format prometheus (with the cluster's part on a
 * Proxmox VE node: cluster NULL elsewhere), to stdout or with --output into
 * that file (replaced by a rename); returns the number of errors, or -errno when the file
 * could not be written (said).
 */
struct gp_cluster_check;
int gp_check_report(const struct gp_cli *cli, const struct gp_findings *host,
		    const struct gp_check_subject *subj, int n,
		    const struct gp_cluster_check *cluster);

#endif
