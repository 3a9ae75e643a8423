/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision check [NAME|--all]: host, configs and running containers, as findings. */
#include <json-c/json.h>
#include <limits.h>
#include <lxc/lxccontainer.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "checkout.h"
#include "commands.h"
#include "target.h"
#include "inventory.h"
#include "paths.h"
#include "util.h"

#define MAX_PARALLEL_PROBES 4
#define PROBE_JSON_MAX (1u << 20)

static bool is_running(const struct gp_cli *cli, const char *name)
{
	struct lxc_container *c = lxc_container_new(name, cli->lxcpath);
	bool running = c && c->is_defined(c) && c->is_running(c);

	if (c)
		lxc_container_put(c);
	return running;
}

/* Starts "gpu-provision probe NAME --json" with its stdout on a pipe. */
static int start_probe(const struct gp_cli *cli, struct gp_check_subject *s)
{
	char self[PATH_MAX];
	char *argv[16];
	int argc = 0, fds[2];
	posix_spawn_file_actions_t fa;
	extern char **environ;

	gp_program_path("gpu-provision", GP_SBINDIR, self, sizeof(self));
	argv[argc++] = self;
	if (cli->root) {
		argv[argc++] = (char *)"--root";
		argv[argc++] = cli->root;
	}
	argv[argc++] = (char *)"--confdir";
	argv[argc++] = (char *)cli->confdir;
	if (cli->lxcpath) {
		argv[argc++] = (char *)"--lxcpath";
		argv[argc++] = cli->lxcpath;
	}
	argv[argc++] = (char *)"probe";
	argv[argc++] = s->name;
	argv[argc++] = (char *)"--json";
	argv[argc] = NULL;
	if (pipe(fds) < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	if (posix_spawn(&s->pid, self, &fa, NULL, argv, environ) != 0)
		s->pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	s->fd = fds[0];
	return s->pid > 0 ? 0 : -EIO;
}

static void copy_finding(struct gp_findings *f, struct json_object *o)
{
	struct json_object *v;
	struct gp_finding *x;

	if (!json_object_object_get_ex(o, "id", &v) ||
	    !(x = gp_findings_add(f, json_object_get_string(v))))
		return;
	if (json_object_object_get_ex(o, "summary", &v))
		snprintf(x->summary, sizeof(x->summary), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(o, "evidence", &v))
		snprintf(x->evidence, sizeof(x->evidence), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(o, "fix", &v))
		snprintf(x->fix, sizeof(x->fix), "%s", json_object_get_string(v));
}

/* Joins the probe's verdict and findings into the container's. */
static void finish_probe(struct gp_check_subject *s)
{
	struct json_object *o = s->out.data ? json_tokener_parse(s->out.data) : NULL, *v;
	int status;

	waitpid(s->pid, &status, 0);
	close(s->fd);
	snprintf(s->probe, sizeof(s->probe), "failed");
	if (o && json_object_object_get_ex(o, "status", &v))
		snprintf(s->probe, sizeof(s->probe), "%s", json_object_get_string(v));
	if (o && json_object_object_get_ex(o, "findings", &v))
		for (size_t i = 0; i < json_object_array_length(v); i++)
			copy_finding(&s->f, json_object_array_get_idx(v, i));
	json_object_put(o);
	gp_buf_free(&s->out);
}

static bool read_some(struct gp_check_subject *s)
{
	char buf[4096];
	ssize_t n = read(s->fd, buf, sizeof(buf));

	if (n <= 0 || s->out.len > PROBE_JSON_MAX)
		return false;
	gp_buf_printf(&s->out, "%.*s", (int)n, buf);
	return true;
}

/* Probes the running containers, at most MAX_PARALLEL_PROBES at once. */
static void probe_all(const struct gp_cli *cli, struct gp_check_subject *subj, int n)
{
	struct pollfd pfd[MAX_PARALLEL_PROBES];
	int idx[MAX_PARALLEL_PROBES], active = 0, next = 0;

	for (;;) {
		while (active < MAX_PARALLEL_PROBES && next < n) {
			struct gp_check_subject *s = &subj[next++];

			if (s->running && start_probe(cli, s) == 0) {
				pfd[active] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
				idx[active++] = next - 1;
			}
		}
		if (active == 0)
			return;
		if (poll(pfd, (nfds_t)active, -1) < 0 && errno != EINTR)
			return;
		for (int i = 0; i < active; i++) {
			if (!pfd[i].revents || read_some(&subj[idx[i]]))
				continue;
			finish_probe(&subj[idx[i]]);
			pfd[i] = pfd[--active];
			idx[i] = idx[active];
			i--;
		}
	}
}

static int names(const struct gp_cli *cli, char ***list)
{
	if (cli->all)
		return gp_inventory_names(cli->confdir, list);
	if (cli->nargs < 2) {
		*list = NULL;
		return 0;
	}
	*list = calloc(2, sizeof(char *));
	if (!*list || !((*list)[0] = strdup(cli->args[1])))
		return -ENOMEM;
	return 1;
}

int gp_cmd_check(const struct gp_cli *cli)
{
	struct gp_check_ctx ctx;
	struct gp_findings *host = calloc(1, sizeof(*host));
	struct gp_check_subject *subj = NULL;
	char **list = NULL;
	int n = 0, errors;

	if ((cli->all && cli->nargs != 1) || cli->nargs > 2 ||
	    (cli->nargs == 2 && !gp_name_is_valid(cli->args[1]))) {
		gp_error(
		    "usage: gpu-provision check [NAME | --all] [--json | --format prometheus]");
		free(host);
		return 2;
	}
	if (!host || gp_check_ctx_init(&ctx, cli->root, cli->confdir, cli->lxcpath,
				       cli->pve || gp_target_is_pve(cli->root)) < 0) {
		free(host);
		return 3;
	}
	gp_check_host(&ctx, host);
	n = names(cli, &list);
	subj = calloc(n > 0 ? (size_t)n : 1, sizeof(*subj));
	for (int i = 0; subj && i < n; i++) {
		snprintf(subj[i].name, sizeof(subj[i].name), "%s", list[i]);
		gp_check_container(&ctx, list[i], &subj[i].f);
		subj[i].running = is_running(cli, list[i]);
	}
	if (subj)
		probe_all(cli, subj, n);
	errors = gp_check_output(cli, host, subj, n);
	gp_inventory_free(list, n);
	gp_check_ctx_free(&ctx);
	free(subj);
	free(host);
	return errors ? 1 : 0;
}
