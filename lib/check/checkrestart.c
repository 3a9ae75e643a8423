/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision check NAME: a running container's injected driver, the day after an update. */
#include <stdio.h>

#include "base/util.h"
#include "check/check.h"
#include "check/restart.h"
#include "config/ini.h"

static void evidence(const struct gp_restart *r, const struct gp_host *host, struct gp_finding *x)
{
	if (r->replaced)
		GP_SET(x->evidence,
		       "its mount table: %zu of its %zu binds at " GP_INJECT_DIR
		       " are of files removed on the host (%s//deleted); its start injected %s, "
		       "the module is %s",
		       r->replaced, r->bound, r->example, r->injected, host->version);
	else
		GP_SET(x->evidence, "its start injected %s; /proc/driver/nvidia/version: %s",
		       r->injected, host->version);
}

static void say_replaced(const char *name, const struct gp_restart *r, const struct gp_host *host,
			 struct gp_findings *f)
{
	struct gp_finding *x = gp_findings_add(f, GP_FINDING_DRIVER_REPLACED);

	if (!x)
		return;
	GP_SET(x->summary,
	       "%s runs %zu injected driver file(s) the host has since replaced at %s: it works "
	       "on them until it restarts, and its next start gets the host's",
	       name, r->replaced, host->version);
	evidence(r, host, x);
	GP_SET(x->fix, "gpu-provision sync %s --restart, when a restart suits it", name);
}

static void say_version(const char *name, const struct gp_restart *r, const struct gp_host *host,
			struct gp_findings *f)
{
	struct gp_finding *x = gp_findings_add(f, GP_FINDING_DRIVER_VERSION_STALE);

	if (!x)
		return;
	GP_SET(x->summary,
	       "%s runs driver %s's libraries, but the loaded module is %s: CUDA fails (driver "
	       "and library versions differ) until it restarts",
	       name, r->injected, host->version);
	evidence(r, host, x);
	GP_SET(x->fix, "gpu-provision sync %s --restart: its next start injects %s", name,
	       host->version);
}

static void say_reboot(const char *name, const struct gp_restart *r, const struct gp_host *host,
		       struct gp_findings *f)
{
	struct gp_finding *x = gp_findings_add(f, GP_FINDING_REBOOT_PENDING);

	if (!x)
		return;
	GP_SET(x->summary,
	       "%s runs driver %s; the host's files are now %s's, the loaded module still %s's: "
	       "a start now is refused (no files at the module's version), so it must not "
	       "restart before the host does",
	       name, r->injected, r->userspace[0] ? r->userspace : "another version",
	       host->version);
	evidence(r, host, x);
	GP_SET(x->fix,
	       "reboot the host (or load the installed driver's module): every container then "
	       "starts on the installed driver; until then leave %s running",
	       name);
}

void gp_check_restart_say(const char *name, const struct gp_restart *r, const struct gp_host *host,
			  struct gp_findings *f)
{
	if (r->need == GP_RESTART_REPLACED)
		say_replaced(name, r, host, f);
	else if (r->need == GP_RESTART_VERSION)
		say_version(name, r, host, f);
	else if (r->need == GP_RESTART_REBOOT_FIRST)
		say_reboot(name, r, host, f);
}

enum gp_restart_need gp_check_restart(const struct gp_check_run *run, const char *name,
				      const struct gp_ini *conf, struct gp_findings *f)
{
	struct gp_restart r;

	gp_restart_judge(run->ctx, &run->hs.host, name, conf, &r);
	gp_check_restart_say(name, &r, &run->hs.host, f);
	return r.need;
}
