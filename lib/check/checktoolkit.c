/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-provision check NAME: what NVIDIA's container toolkit and Docker left in a container,
 * against the CDI spec each start writes (lib/start/cdi.c), from the files rootfsread.c read
 * (lib/check/toolkit.c): nothing in the container is run.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "check/check.h"
#include "check/toolkit.h"
#include "start/cdi.h"

/* The toolkit's packages, for the fixes that say to remove it. */
#define TOOLKIT_PACKAGES                                                                           \
	"nvidia-container-toolkit nvidia-container-toolkit-base libnvidia-container-tools "        \
	"libnvidia-container1"

static void check_cgroups(const char *name, bool unprivileged, const struct gp_toolkit *t,
			  struct gp_findings *f)
{
	const char *path = gp_toolkit_path(GP_TK_CONFIG);
	struct gp_finding *x;

	if (t->files[GP_TK_CONFIG].status < 0 || !unprivileged || t->no_cgroups == GP_YES ||
	    !(x = gp_findings_add(f, GP_FINDING_TOOLKIT_CGROUPS)))
		return;
	GP_SET(x->summary,
	       "%s is unprivileged and NVIDIA's container toolkit in it sets up device cgroups: "
	       "its hook fails (bpf_prog_query(BPF_CGROUP_DEVICE) failed: operation not permitted)",
	       name);
	if (t->no_cgroups == GP_NO)
		GP_SET(x->evidence, "the container's %s:%u: no-cgroups = false", path,
		       t->no_cgroups_line);
	else
		GP_SET(x->evidence,
		       "the container's %s has no [nvidia-container-cli] no-cgroups: the "
		       "default is false",
		       path);
	GP_SET(x->fix,
	       "use the CDI spec the start writes (docker run --device nvidia.com/gpu=all) and "
	       "remove the toolkit in the container (apt purge " TOOLKIT_PACKAGES
	       "); or set no-cgroups = true under [nvidia-container-cli] in %s",
	       path);
}

/* Docker's CDI: on when daemon.json says so, or by default from 28.2. */
static void check_docker_cdi(const char *name, const struct gp_toolkit *t, struct gp_findings *f)
{
	int v = t->docker_version[0] ? gp_toolkit_docker_version(t->docker_version) : -1;
	int daemon = t->files[GP_TK_DAEMON].status;
	char dpkg[160] = "no docker.io or docker-ce in its dpkg status: its version is unknown";
	struct gp_finding *x;
	bool never = v >= 0 && v < 2500,
	     on = t->cdi_feature == GP_YES || (t->cdi_feature == GP_UNKNOWN && v >= 2802);

	if ((daemon < 0 && daemon != -ENOENT) || (!t->docker_package[0] && daemon < 0) ||
	    (on && !never) || !(x = gp_findings_add(f, GP_FINDING_DOCKER_CDI_OFF)))
		return;
	if (t->docker_package[0])
		snprintf(dpkg, sizeof(dpkg), "its dpkg status: %s %s", t->docker_package,
			 t->docker_version);
	GP_SET(x->summary, "the Docker in %s does not read the CDI spec its start writes%s", name,
	       never ? ": CDI came with Docker 25" : "");
	GP_SET(x->evidence, "%s; the container's %s %s", dpkg, gp_toolkit_path(GP_TK_DAEMON),
	       daemon == -ENOENT	 ? "is not there"
	       : t->cdi_feature == GP_NO ? "says \"features\": {\"cdi\": false}"
					 : "has no \"features\": {\"cdi\": true}");
	if (never)
		GP_SET(x->fix, "install Docker 25 or later in the container (Debian 13's docker.io "
			       "with \"features\": {\"cdi\": true}, or Docker 28.2 and later), or "
			       "Podman 4.1 or later");
	else
		GP_SET(x->fix,
		       "put \"features\": {\"cdi\": true} into the container's %s and restart "
		       "docker; then docker run --device nvidia.com/gpu=all",
		       gp_toolkit_path(GP_TK_DAEMON));
}

static bool builtin_runtime(const char *name)
{
	return strcmp(name, "runc") == 0 || strcmp(name, "io.containerd.runc.v2") == 0;
}

static void check_runtimes(const char *name, const struct gp_toolkit *t, struct gp_findings *f)
{
	const struct gp_toolkit_runtime *d = &t->default_runtime, *n = &t->nvidia;
	const char *path = gp_toolkit_path(GP_TK_DAEMON);
	struct gp_finding *x;

	if (t->files[GP_TK_DAEMON].status < 0)
		return;
	if (d->name[0] && !builtin_runtime(d->name) && (!d->defined || d->program == GP_ABSENT) &&
	    (x = gp_findings_add(f, GP_FINDING_DOCKER_DEFAULT_RUNTIME_MISSING))) {
		GP_SET(x->summary, "the Docker in %s %s", name,
		       d->defined ? "runs every container with a program the container lacks"
				  : "does not start: its default runtime is not defined");
		if (d->defined)
			GP_SET(x->evidence,
			       "the container's %s: \"default-runtime\": \"%s\", whose path %s is "
			       "not in the container",
			       path, d->name, d->path);
		else
			GP_SET(x->evidence,
			       "the container's %s: \"default-runtime\": \"%s\", and no runtime of "
			       "that name in \"runtimes\"",
			       path, d->name);
		GP_SET(x->fix,
		       "take \"default-runtime\" (and the \"%s\" runtime) out of the container's "
		       "%s and restart docker; give GPUs with --device nvidia.com/gpu=all",
		       d->name, path);
	}
	if (n->defined && n->program == GP_ABSENT && strcmp(d->name, n->name) != 0 &&
	    (x = gp_findings_add(f, GP_FINDING_DOCKER_RUNTIME_MISSING))) {
		GP_SET(x->summary, "the Docker in %s has an nvidia runtime whose program is gone",
		       name);
		GP_SET(x->evidence,
		       "the container's %s: runtimes.nvidia.path %s is not in the "
		       "container",
		       path, n->path);
		GP_SET(x->fix,
		       "take the \"nvidia\" runtime out of the container's %s; give GPUs with "
		       "--device nvidia.com/gpu=all",
		       path);
	}
}

/* Two specs of the start's kind: in one directory both lose the names, in a later one it wins. */
static void spec_conflict(const char *name, enum gp_toolkit_file which, struct gp_findings *f)
{
	bool later = which == GP_TK_SPEC_RUN_YAML;
	const char *path = gp_toolkit_path(which);
	struct gp_finding *x = gp_findings_add(f, later ? GP_FINDING_CDI_SPEC_OVERRIDES
							: GP_FINDING_CDI_SPEC_CONFLICT);

	if (!x)
		return;
	if (later)
		GP_SET(x->summary,
		       "%s's %s, of NVIDIA's generator, overrides the start's spec: nested "
		       "containers get its nodes and files",
		       name, path);
	else
		GP_SET(x->summary,
		       "%s's %s, of NVIDIA's generator, conflicts with the start's spec: "
		       "--device " GP_CDI_KIND "=all is refused",
		       name, path);
	GP_SET(x->evidence, "the container's %s: kind: " GP_CDI_KIND ", as " GP_CDI_LINK "'s",
	       path);
	GP_SET(x->fix,
	       "remove %s in the container%s (and the toolkit: apt purge " TOOLKIT_PACKAGES ")",
	       path, later ? " and disable nvidia-cdi-refresh, which writes it at each boot" : "");
}

static void spec_stale(const char *name, enum gp_toolkit_file which,
		       const struct gp_toolkit_spec *s, struct gp_findings *f)
{
	const char *path = gp_toolkit_path(which);
	struct gp_finding *x;
	char nodes[256] = "", files[384] = "";

	if ((!s->nodes_absent && !s->files_absent) ||
	    !(x = gp_findings_add(f, GP_FINDING_CDI_SPEC_STALE)))
		return;
	if (s->nodes_absent)
		snprintf(nodes, sizeof(nodes), "%u of its %u device nodes are not in its /dev (%s)",
			 s->nodes_absent, s->nodes, s->node_absent);
	if (s->files_absent)
		snprintf(files, sizeof(files), "%s%u of its %u files are not in the container (%s)",
			 nodes[0] ? "; " : "", s->files_absent, s->files, s->file_absent);
	GP_SET(x->summary,
	       "%s's %s names what the container does not have: a nested container "
	       "given its devices is not created",
	       name, path);
	GP_SET(x->evidence, "the container's %s: %s%s", path, nodes, files);
	GP_SET(x->fix,
	       "remove %s in the container (the start's " GP_CDI_LINK " gives what it has), or "
	       "run nvidia-ctk cdi generate again where the toolkit is meant to stay",
	       path);
}

static void check_specs(const char *name, bool spec_ours, const struct gp_toolkit *t,
			struct gp_findings *f)
{
	for (int i = GP_TK_SPEC_FIRST; i < GP_TK_NFILES; i++) {
		const struct gp_toolkit_spec *s = &t->specs[i - GP_TK_SPEC_FIRST];

		if (t->files[i].status < 0 || strcmp(s->kind, GP_CDI_KIND) != 0)
			continue;
		if (spec_ours)
			spec_conflict(name, (enum gp_toolkit_file)i, f);
		spec_stale(name, (enum gp_toolkit_file)i, s, f);
	}
}

/* Why a file was not read, in words. */
static void unread_why(const struct gp_toolkit_read *r, char *out, size_t size)
{
	switch (r->status) {
	case -ELOOP:
		snprintf(out, size, "a symbolic link is on its path: not followed");
		break;
	case -EINVAL:
		snprintf(out, size, "not a regular file (a FIFO, a device, a socket): not opened");
		break;
	case -EFBIG:
		snprintf(out, size, "over its size limit: not read");
		break;
	case -EXDEV:
		snprintf(out, size, "behind a mount of the container's: not entered");
		break;
	case -GP_EBADCONF:
		snprintf(out, size, "does not parse: %s", r->why);
		break;
	default:
		snprintf(out, size, "%s", gp_strerror(-r->status));
	}
}

static void check_unread(const char *name, const struct gp_toolkit *t, struct gp_findings *f)
{
	for (int i = 0; i < GP_TK_NFILES; i++) {
		const struct gp_toolkit_read *r = &t->files[i];
		struct gp_finding *x;
		char why[256];

		if (r->status == 0 || r->status == -ENOENT ||
		    !(x = gp_findings_add(f, GP_FINDING_TOOLKIT_FILE_UNREAD)))
			continue;
		unread_why(r, why, sizeof(why));
		GP_SET(x->summary, "%s's %s was not read, so not judged", name,
		       gp_toolkit_path((enum gp_toolkit_file)i));
		GP_SET(x->evidence, "the container's %s: %s",
		       gp_toolkit_path((enum gp_toolkit_file)i), why);
		GP_SET(x->fix,
		       r->status == -GP_EBADCONF
			   ? "correct the file: what reads it in the container refuses it too"
			   : "make it a regular file of the container's own filesystem, or "
			     "remove it");
	}
}

void gp_check_toolkit(const char *name, bool spec_ours, bool unprivileged,
		      const struct gp_toolkit *t, struct gp_findings *f)
{
	if (!t || !t->read)
		return;
	check_unread(name, t, f);
	check_cgroups(name, unprivileged, t, f);
	if (spec_ours)
		check_docker_cdi(name, t, f);
	check_runtimes(name, t, f);
	check_specs(name, spec_ours, t, f);
}
