/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-provision check over scratch copies of the fixtures: for each finding a host or
 * config that raises it, and a near one that does not, each time with the whole set of
 * ids. The host cases start from a healthy host: the fixture's device nodes made as its
 * dev-nodes.txt lists them (mknod: root only, else the case is skipped) and the open
 * module's GSP firmware on disk.
 */
#include "unit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/util.h"
#include "check/check.h"
#include "ids.h"

static char root[128], confdir[192];
static struct gp_findings found;

static void copy_fixture(const char *fixture)
{
	char cmd[512];

	snprintf(root, sizeof(root), "/tmp/gp-check.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -a %s/%s/. %s/", FIXTURES, fixture, root);
	assert_int_equal(system(cmd), 0);
	snprintf(confdir, sizeof(confdir), "%s/etc/gpu-provision", root);
}

static void cleanup(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

static void put_file(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	assert_int_equal(gp_mkdir_parents(path), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A character node under the root, replacing what is there. */
static void put_node(const char *rel, unsigned int major, unsigned int minor, mode_t mode,
		     gid_t gid)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	assert_int_equal(gp_mkdir_parents(path), 0);
	unlink(path);
	assert_int_equal(mknod(path, S_IFCHR | mode, makedev(major, minor)), 0);
	assert_int_equal(chmod(path, mode), 0);
	assert_int_equal(chown(path, 0, gid), 0);
}

static void remove_file(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	assert_int_equal(unlink(path), 0);
}

/* The fixture's nodes, as its dev-nodes.txt lists them (PATH TYPE MAJOR MINOR MODE UID GID). */
static void make_nodes(void)
{
	char path[512], rel[256], line[512];
	unsigned int major, minor, mode, uid, gid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/dev-nodes.txt", root);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s c %u %u %o %u %u", rel, &major, &minor, &mode, &uid,
			   &gid) != 6)
			continue;
		snprintf(path, sizeof(path), "/%s", rel);
		assert_int_equal(uid, 0);
		put_node(path, major, minor, mode, gid);
	}
	fclose(f);
}

/* A healthy host from fixture: its nodes and, for the open module, its GSP firmware. */
static void host_fixture(const char *fixture, const char *firmware_version)
{
	char rel[256];

	if (geteuid() != 0)
		skip(); /* mknod and root-owned files */
	copy_fixture(fixture);
	make_nodes();
	if (!firmware_version)
		return;
	snprintf(rel, sizeof(rel), "/lib/firmware/nvidia/%s/gsp_ga10x.bin", firmware_version);
	put_file(rel, "x");
}

static void silence(bool on)
{
	static int saved = -1;
	int devnull;

	if (on) {
		saved = dup(2);
		devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 2);
		close(devnull);
	} else {
		dup2(saved, 2);
		close(saved);
	}
}

/* Runs the host checks, or container name's, for the runtime rt; returns them. */
static const struct gp_findings *run_for(const char *name, const struct gp_runtime *rt)
{
	struct gp_check_run run;

	memset(&found, 0, sizeof(found));
	silence(true);
	assert_int_equal(gp_check_run_init(&run, test_ctx(root, confdir, NULL, true), rt), 0);
	if (name)
		gp_check_container(&run, name, &found);
	else
		gp_check_host(&run, &found);
	silence(false);
	gp_check_run_free(&run);
	return &found;
}

/*
 * The same with the runtime read for the root, but the given cgroup layout and LXC 6
 * (LXC 7's findings: cgroup_keys_lxc7_pve9), whichever LXC runs the tests.
 */
static const struct gp_findings *run(const char *name, enum gp_cg_layout layout)
{
	struct gp_runtime rt = *test_runtime(root, true);

	rt.layout = layout;
	rt.lxc_major = 6;
	snprintf(rt.lxc, sizeof(rt.lxc), "6.0.4");
	return run_for(name, &rt);
}

#define HOST() run(NULL, GP_CG_V2)
#define CT() run("101", GP_CG_V2)

static void driver(void **state)
{
	(void)state;
	host_fixture("h200-580-open", "580.159.04");
	assert_ids(HOST(), NULL);
	remove_file("/proc/driver/nvidia/version");
	assert_ids(HOST(), "driver-missing", NULL); /* and nothing else is judged */
	cleanup();
}

static void excluded_gpu(void **state)
{
	char cmd[512];

	(void)state;
	host_fixture("h200-580-open", "580.159.04");
	snprintf(cmd, sizeof(cmd),
		 "sed -i 's/GPU Excluded:\\t No/GPU Excluded:\\t Yes/' "
		 "%s/proc/driver/nvidia/gpus/0000:00:06.0/information",
		 root);
	assert_int_equal(system(cmd), 0);
	assert_ids(HOST(), "gpu-excluded", NULL);
	snprintf(cmd, sizeof(cmd),
		 "sed -i 's/GPU Excluded:\\t Yes/GPU Excluded:\\t No/' "
		 "%s/proc/driver/nvidia/gpus/0000:00:06.0/information",
		 root);
	assert_int_equal(system(cmd), 0);
	assert_ids(HOST(), NULL);
	cleanup();
}

static void gsp_firmware(void **state)
{
	(void)state;
	host_fixture("h200-580-open", NULL);
	assert_ids(HOST(), "gsp-firmware-missing", NULL);
	put_file("/lib/firmware/nvidia/550.54.14/gsp_ga10x.bin", "x"); /* another version's */
	assert_ids(HOST(), "gsp-firmware-missing", NULL);
	put_file("/usr/lib/firmware/nvidia/580.159.04/gsp_ga10x.bin", "x");
	assert_ids(HOST(), NULL);
	cleanup();
	/* A firmware directory the kernel was told about (firmware_class.path). */
	host_fixture("h200-580-open", NULL);
	put_file("/sys/module/firmware_class/parameters/path", "/usr/local/nvidia/firmware\n");
	assert_ids(HOST(), "gsp-firmware-missing", NULL);
	put_file("/usr/local/nvidia/firmware/nvidia/580.159.04/gsp_tu10x.bin", "x");
	assert_ids(HOST(), NULL);
	cleanup();
	/* The proprietary module carries its own. */
	host_fixture("h200-580-open", NULL);
	put_file("/proc/driver/nvidia/version",
		 "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Release Build\n");
	assert_ids(HOST(), NULL);
	cleanup();
}

static void uvm_and_hmm(void **state)
{
	(void)state;
	host_fixture("uvm-unloaded-580-open", "580.159.04");
	assert_ids(HOST(), "uvm-not-loaded", NULL);
	cleanup();
	/* The B200 case: HMM active; KASLR on or off decides the hint. */
	host_fixture("b200x8-590-open-hmm", "590.48.01");
	assert_ids(HOST(), "hmm-active", NULL); /* no /proc/cmdline: KASLR unknown */
	put_file("/proc/cmdline", "BOOT_IMAGE=/vmlinuz-6.8.12-9-pve root=/dev/pve/root quiet\n");
	assert_ids(HOST(), "hmm-active", "nokaslr-hint", NULL);
	put_file("/proc/cmdline", "BOOT_IMAGE=/vmlinuz-6.8.12-9-pve root=/dev/pve/root nokaslr\n");
	assert_ids(HOST(), "hmm-active", NULL);
	/* Near: uvm_disable_hmm=Y; HMM would still be active with N, so KASLR still matters. */
	put_file("/sys/module/nvidia_uvm/parameters/uvm_disable_hmm", "Y\n");
	assert_ids(HOST(), NULL);
	put_file("/proc/cmdline", "BOOT_IMAGE=/vmlinuz-6.8.12-9-pve root=/dev/pve/root quiet\n");
	assert_ids(HOST(), "nokaslr-hint", NULL);
	cleanup();
	/* A kernel without CONFIG_DEVICE_PRIVATE: no HMM, no hint. */
	host_fixture("h200-580-open", "580.159.04");
	put_file("/proc/cmdline", "quiet\n");
	assert_ids(HOST(), NULL);
	cleanup();
}

static void host_nodes(void **state)
{
	(void)state;
	host_fixture("h200-580-open", "580.159.04");
	remove_file("/dev/nvidia0");
	assert_ids(HOST(), "host-node-missing", NULL);
	put_node("/dev/nvidia0", 195, 1, 0666, 0); /* another GPU's number */
	assert_ids(HOST(), "host-node-stale", NULL);
	remove_file("/dev/nvidia0");
	put_file("/dev/nvidia0", ""); /* not a node */
	assert_ids(HOST(), "host-node-stale", NULL);
	put_node("/dev/nvidia-uvm", 511, 0, 0666, 0); /* yesterday's uvm major */
	put_node("/dev/nvidia0", 195, 0, 0600, 0);
	assert_ids(HOST(), "host-node-stale", "host-node-mode", NULL);
	put_node("/dev/nvidia-uvm", 238, 0, 0666, 0);
	assert_ids(HOST(), "host-node-mode", NULL);
	put_node("/dev/nvidia0", 195, 0, 0666, 44); /* the mode right, the group not */
	assert_ids(HOST(), "host-node-mode", NULL);
	put_node("/dev/nvidia0", 195, 0, 0666, 0);
	assert_ids(HOST(), NULL);
	cleanup();
}

static void daemons(void **state)
{
	(void)state;
	host_fixture("h200-580-open", "580.159.04");
	assert_ids(HOST(), NULL); /* no processes known: not judged */
	put_file("/proc/1/comm", "systemd\n");
	assert_ids(HOST(), "persistenced-missing", NULL);
	put_file("/proc/812/comm", "nvidia-persiste\n");
	assert_ids(HOST(), NULL);
	put_file("/proc/driver/nvidia-nvswitch/devices/0000:05:00.0", "\n");
	assert_ids(HOST(), "fabric-manager-missing", NULL);
	put_file("/proc/900/comm", "nv-fabricmanage\n");
	assert_ids(HOST(), NULL);
	cleanup();
}

static void kernel_log(void **state)
{
	(void)state;
	host_fixture("h200-580-open", "580.159.04");
	put_file("/var/log/kern.log", "kernel: nvidia-uvm: Loaded the UVM driver\n");
	assert_ids(HOST(), NULL);
	put_file("/var/log/kern.log", "kernel: NVRM: Xid (PCI:0000:00:06): 79, pid=0, GPU has "
				      "fallen off the bus.\n");
	assert_ids(HOST(), "kmsg-signature", "kmsg-signature", NULL); /* Xid, fallen off */
	put_file("/var/log/kern.log",
		 "kernel: nvidia-uvm: request_free_mem_region() err -34\n"
		 "kernel: nvidia-uvm: failed to intialize device private memory\n");
	assert_ids(HOST(), "kmsg-signature", "kmsg-signature", NULL); /* HMM init */
	cleanup();
}

/* Proxmox configs need no container manager: the config rules are checked on them. */
static void pve_config(const char *text)
{
	put_file("/etc/pve/lxc/101.conf", text);
}

static void cgroup_keys(void **state)
{
	(void)state;
	copy_fixture("h200-580-open");
	pve_config("arch: amd64\nlxc.cgroup.devices.allow: c 195:0 rwm\n"
		   "lxc.cgroup.devices.allow: c 195:255 rwm\n");
	assert_ids(CT(), "cgroup-v1-keys", "recipe-lines", NULL); /* once for the config */
	assert_ids(run("101", GP_CG_V1), "recipe-lines", NULL);
	pve_config("arch: amd64\nlxc.cgroup2.devices.allow: c 195:0 rwm\n");
	assert_ids(CT(), "recipe-lines", NULL);
	/* Both keys for the same rule, as LXC's common.conf has them: nothing to say. */
	pve_config("lxc.cgroup.devices.deny: a\nlxc.cgroup2.devices.deny: a\n");
	assert_ids(CT(), NULL);
	pve_config("lxc.cgroup.devices.deny: a\nlxc.cgroup2.devices.allow: a\n");
	assert_ids(CT(), "cgroup-v1-keys", "rule-opens-gpus", NULL);
	cleanup();
}

/* LXC 7 refuses every lxc.cgroup.* key; Proxmox VE 9's pve-container warns of them. */
static void cgroup_keys_lxc7_pve9(void **state)
{
	const struct gp_runtime lxc7 = { .lxc = "7.0.0", .lxc_major = 7, .layout = GP_CG_V2 };
	const struct gp_runtime pve9 = {
		.lxc = "6.0.4", .lxc_major = 6, .layout = GP_CG_V2, .pve = 9
	};
	const struct gp_runtime pve8 = {
		.lxc = "6.0.4", .lxc_major = 6, .layout = GP_CG_V2, .pve = 8
	};

	(void)state;
	copy_fixture("h200-580-open");
	/* Twins, as LXC's common.conf writes them: harmless to LXC 6, fatal to LXC 7. */
	pve_config("lxc.cgroup.devices.deny: a\nlxc.cgroup2.devices.deny: a\n");
	assert_ids(run_for("101", &lxc7), "cgroup-v1-lxc7", NULL);
	assert_ids(run_for("101", &pve9), "cgroup-v1-pve9", NULL);
	assert_ids(run_for("101", &pve8), NULL);
	/* Any lxc.cgroup.* key, not only the devices'. */
	pve_config("lxc.cgroup.memory.limit_in_bytes: 1G\n");
	assert_ids(run_for("101", &lxc7), "cgroup-v1-lxc7", NULL);
	assert_ids(run_for("101", &pve9), "cgroup-v1-pve9", NULL);
	/* A rule without its twin is not enforced: that error, once, and no warning too. */
	pve_config("lxc.cgroup2.devices.deny: a\nlxc.cgroup.devices.deny: a\n"
		   "lxc.cgroup2.devices.allow: c 1:3 rwm\nlxc.cgroup.devices.allow: c 1:3 rwm\n"
		   "lxc.cgroup.devices.allow: c 195:0 rwm\n");
	assert_ids(run_for("101", &pve9), "cgroup-v1-keys", "recipe-lines", NULL);
	assert_ids(run_for("101", &lxc7), "cgroup-v1-lxc7", "recipe-lines", NULL);
	/* lxc.cgroup2 alone: nothing for any of them. */
	pve_config("lxc.cgroup2.devices.deny: a\n");
	assert_ids(run_for("101", &lxc7), NULL);
	assert_ids(run_for("101", &pve9), NULL);
	cleanup();
}

/* A capture without its mountinfo is judged by this host's layout, and says so. */
static void layout_assumed(void **state)
{
	(void)state;
	host_fixture("h200-580-open", "580.159.04");
	assert_ids(HOST(), NULL);
	remove_file("/proc/self/mountinfo");
	assert_ids(HOST(), "cgroup-layout-assumed", NULL);
	cleanup();
}

static void mount_entries(void **state)
{
	(void)state;
	host_fixture("h200-580-open", NULL);
	pve_config(
	    "lxc.cgroup2.devices.allow: c 238:* rwm\n"
	    "lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file\n"
	    "lxc.mount.entry: /dev/nvidia-uvm-tools dev/nvidia-uvm-tools none bind,create=file\n");
	assert_ids(CT(), "optional-mount", "recipe-lines", NULL);
	pve_config(
	    "lxc.cgroup2.devices.allow: c 238:* rwm\n"
	    "lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,create=file\n"
	    "lxc.mount.entry: /dev/nvidia-uvm-tools dev/nvidia-uvm-tools none bind,create=file\n");
	assert_ids(CT(), "recipe-lines", NULL);
	pve_config("lxc.mount.entry: /dev/fuse dev/fuse none bind,optional,create=file\n");
	assert_ids(CT(), NULL);
	pve_config("lxc.cgroup2.devices.allow: c 195:0 rwm\ndev0: /dev/nvidia0,mode=0666\n"
		   "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,create=file\n");
	assert_ids(CT(), "pve-duplicate", "recipe-lines", NULL);
	pve_config("dev0: /dev/nvidia0,mode=0666\nlxc.mount.entry: /dev/nvidia1 dev/nvidia1 none "
		   "bind,create=file\n");
	assert_ids(CT(), "recipe-lines", "recipe-node-missing", NULL); /* one GPU here */
	cleanup();
}

static void unprivileged_mode(void **state)
{
	(void)state;
	/* The 4-GPU host's nodes are 0660 group 44: unprivileged containers cannot open them. */
	copy_fixture("quad-550-proprietary");
	pve_config("arch: amd64\nunprivileged: 1\ndev0: /dev/nvidia0\n");
	assert_ids(CT(), "unprivileged-node-mode", "recipe-lines", "recipe-node-missing", NULL);
	pve_config("arch: amd64\nlxc.idmap: u 0 100000 65536\nlxc.idmap: g 0 100000 65536\n"
		   "dev0: path=/dev/nvidia0\n");
	assert_ids(CT(), "unprivileged-node-mode", "recipe-lines", "recipe-node-missing", NULL);
	pve_config("arch: amd64\nunprivileged: 0\ndev0: /dev/nvidia0\n");
	assert_ids(CT(), "recipe-lines", "recipe-node-missing", NULL);
	/* Near: an unprivileged container without GPUs is no matter of the nodes' mode. */
	pve_config("arch: amd64\nunprivileged: 1\n");
	assert_ids(CT(), NULL);
	cleanup();
	copy_fixture("h200-580-open"); /* nodes 0666 */
	pve_config("arch: amd64\nunprivileged: 1\n");
	assert_ids(CT(), NULL);
	cleanup();
}

/* The ini: in the cluster filesystem, root-owned 0640 as pmxcfs keeps every file. */
static void ini(const char *text)
{
	char path[512];

	put_file("/etc/pve/gpu-provision/101.ini", text);
	snprintf(path, sizeof(path), "%s/etc/pve/gpu-provision/101.ini", root);
	assert_int_equal(chmod(path, 0640), 0);
}

static void hooks(void **state)
{
	(void)state;
	copy_fixture("h200-580-open");
	pve_config("lxc.hook.pre-start: /nonexistent/gpu-hook --confdir /etc/gpu-provision\n");
	assert_ids(CT(), "hook-binary-missing", NULL);
	pve_config("lxc.hook.pre-start: /bin/true gpu-hook\n");
	assert_ids(CT(), NULL);
	/* GPUs in an ini, no hook in the config. */
	pve_config("arch: amd64\n");
	assert_ids(CT(), NULL); /* near: no ini, no GPUs */
	if (geteuid() != 0) {
		cleanup();
		skip(); /* an ini must be root's */
	}
	ini("[gpu]\ndevices = 0\n");
	assert_ids(CT(), "hook-missing", NULL);
	pve_config("arch: amd64\nlxc.hook.pre-start: /bin/true gpu-hook\n");
	assert_ids(CT(), NULL);
	ini("[gpu]\ndevices = 0\nmode = devn\n"); /* Proxmox's devN lines: no hook wanted */
	pve_config("arch: amd64\ndev0: /dev/nvidia0\n");
	put_file("/etc/pve/gpu-provision/101.applied", "dev0: /dev/nvidia0\n"); /* attach's own */
	assert_ids(CT(), NULL);
	cleanup();
}

/* An ini the hook would refuse is a finding with the refusal's file:line, not a stderr line. */
static void refused_ini(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* an ini must be root's */
	copy_fixture("h200-580-open");
	pve_config("arch: amd64\nlxc.hook.pre-start: /bin/true gpu-hook\n");
	ini("[gpu]\ndevices = 0\nbogus = 1\n");
	assert_ids(CT(), "ini-invalid", NULL);
	assert_non_null(
	    strstr(found.v[0].evidence, "/etc/pve/gpu-provision/101.ini:3: unknown key"));
	HOST();
	assert_string_not_equal(found.v[0].id, "ini-invalid");
	put_file("/etc/gpu-provision/gpu-provision.conf", "[uvm]\ndisable_hmm = maybe\n");
	HOST(); /* the host's file is checked first */
	assert_string_equal(found.v[0].id, "ini-invalid");
	assert_non_null(strstr(found.v[0].evidence, "gpu-provision.conf:2: disable_hmm is"));
	cleanup();
}

/* The lines a recipe wrote, each judged against today's host, with file:line. */
static void recipe_lines(void **state)
{
	static const char nodes[] =
	    "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,create=file\n"
	    "lxc.mount.entry: /dev/nvidiactl dev/nvidiactl none bind,create=file\n"
	    "lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,create=file\n";

	(void)state;
	host_fixture("h200-580-open", NULL);
	/* The classic: a wildcard on 195 and uvm's major of another driver. */
	put_file("/etc/pve/lxc/101.conf", "arch: amd64\nlxc.cgroup2.devices.allow: c 195:* rwm\n"
					  "lxc.cgroup2.devices.allow: c 509:* rwm\n");
	assert_ids(CT(), "recipe-lines", "rule-stale", "rule-opens-gpus", NULL);
	assert_non_null(strstr(finding(&found, "rule-opens-gpus")->summary,
			       "can open every GPU of the host (1)"));
	assert_non_null(strstr(finding(&found, "rule-stale")->evidence,
			       "101.conf:3: lxc.cgroup2.devices.allow: c "
			       "509:* rwm; today nvidia is 195, nvidia-uvm "
			       "238"));
	/* uvm bound without its rule (cuInit 999), and without uvm-tools. */
	put_file("/etc/pve/lxc/101.conf", nodes);
	assert_ids(CT(), "recipe-lines", "recipe-rule-missing", "uvm-tools-missing", NULL);
	assert_non_null(
	    strstr(finding(&found, "recipe-rule-missing")->summary,
		   "binds nvidia0 (c 195:0), nvidiactl (c 195:255), nvidia-uvm (c 238:0), "
		   "but no lxc.cgroup2.devices rule lets it open them: cuInit fails (999)"));
	/* Near: an unprivileged Proxmox container has "a" from Proxmox: rules restrict nothing. */
	put_file(
	    "/etc/pve/lxc/101.conf",
	    "unprivileged: 1\nlxc.cgroup2.devices.allow: c 195:* rwm\n"
	    "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,create=file\n"
	    "lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,create=file\n"
	    "lxc.mount.entry: /dev/nvidia-uvm-tools dev/nvidia-uvm-tools none bind,create=file\n");
	assert_ids(CT(), "recipe-lines", "rules-inert", NULL);
	assert_non_null(strstr(finding(&found, "rules-inert")->evidence,
			       "101.conf:2: lxc.cgroup2.devices.allow: c 195:* rwm; "));
	/* Another GPU tool's hook, and a node from it gone. */
	put_file("/etc/pve/lxc/101.conf", "lxc.hook.mount: /usr/share/lxc/hooks/nvidia\n"
					  "lxc.environment: NVIDIA_VISIBLE_DEVICES=all\n"
					  "lxc.mount.entry: /dev/nvidia-modeset dev/nvidia-modeset "
					  "none bind,optional,create=file\n");
	assert_ids(CT(), "recipe-lines", "hooks-nvidia-privileged", "recipe-node-missing", NULL);
	/* Pending changes are not today's config, but are said as what the next start gets. */
	put_file("/etc/pve/lxc/101.conf", "arch: amd64\n\n[pve:pending]\ndev0: /dev/nvidia0\n");
	assert_ids(CT(), NULL);
	put_file("/etc/pve/lxc/101.conf", "arch: amd64\n\n[pve:pending]\ndev0: /dev/nvidia7\n");
	assert_ids(CT(), "recipe-node-missing", NULL);
	assert_non_null(
	    strstr(finding(&found, "recipe-node-missing")->summary, "a pending change"));
	assert_non_null(strstr(finding(&found, "recipe-node-missing")->evidence,
			       "101.conf:4 (pending): dev0: /dev/nvidia7"));
	/* With gpu-hook attached, a recipe's bind is in the hook's way. */
	put_file("/etc/gpu-provision/101.ini", "[gpu]\ndevices = 0\n");
	put_file("/etc/pve/lxc/101.conf",
		 "lxc.hook.pre-start: /bin/true gpu-hook\n"
		 "lxc.cgroup2.devices.allow: c 195:0 rwm\n"
		 "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,create=file\n");
	assert_ids(CT(), "recipe-conflict", NULL);
	assert_non_null(strstr(finding(&found, "recipe-conflict")->evidence,
			       "101.conf:3: lxc.mount.entry: /dev/nvidia0"));
	cleanup();
}

/* A hook's inline "# ..." swallows LXC's arguments under sh -c; quoted or own-line ones do not. */
static void hook_inline_comment(void **state)
{
	(void)state;
	host_fixture("h200-580-open", NULL);
	pve_config("arch: amd64\nlxc.hook.pre-start: /usr/local/bin/fix-perms.sh # the nodes\n");
	assert_ids(CT(), "hook-inline-comment", NULL);
	assert_non_null(strstr(finding(&found, "hook-inline-comment")->evidence,
			       "101.conf:2: lxc.hook.pre-start: /usr/local/bin/fix-perms.sh # the "
			       "nodes"));
	assert_non_null(strstr(finding(&found, "hook-inline-comment")->summary,
			       "\"# the nodes\" swallows the container's name"));
	/* Either syntax; gpu-hook's own line too (it needs the name and type). */
	pve_config("lxc.hook.mount = /bin/true gpu-hook;# ours\n");
	assert_ids(CT(), "hook-inline-comment", NULL);
	/* Near: a "#" in quotes, escaped or inside a word; a comment on its own line. */
	pve_config("lxc.hook.pre-start: sh -c 'echo \"a # b\"; echo # c'\n"
		   "lxc.hook.post-stop: sh -c \"echo \\\" # d\\\"\"\n"
		   "lxc.hook.pre-mount: /opt/hook#1 \\# e\n"
		   "# lxc.hook.pre-start: /usr/local/bin/x.sh # f\n"
		   "lxc.hook.version: 0\n");
	assert_ids(CT(), NULL);
	cleanup();
}

/* A hook on the host that chowns or chmods the host's /dev/nvidia*, not the container's. */
static void hook_host_nodes(void **state)
{
	(void)state;
	host_fixture("h200-580-open", NULL);
	pve_config("unprivileged: 1\nlxc.hook.pre-start: sh -c 'chown :100000 /dev/nvidia*'\n");
	assert_ids(CT(), "hook-changes-host-nodes", NULL);
	assert_non_null(
	    strstr(finding(&found, "hook-changes-host-nodes")->evidence,
		   "101.conf:2: lxc.hook.pre-start: sh -c 'chown :100000 /dev/nvidia*'"));
	pve_config("lxc.hook.autodev = /bin/chmod 0666 /dev/nvidia0 /dev/nvidiactl\n");
	assert_ids(CT(), "hook-changes-host-nodes", NULL);
	/* Near: the container's nodes, a start hook (in the container), no chown, a script. */
	pve_config("lxc.hook.mount: sh -c 'chown 100000 ${LXC_ROOTFS_MOUNT}/dev/nvidia0'\n"
		   "lxc.hook.autodev: sh -c 'chmod 666 $LXC_ROOTFS_MOUNT/dev/nvidia-uvm'\n"
		   "lxc.hook.start: chmod 0666 /dev/nvidia0\n"
		   "lxc.hook.pre-start: sh -c 'ls -l /dev/nvidia0; chowner /dev/nvidia0'\n"
		   "lxc.hook.pre-start: /usr/local/bin/nvidia-chown.sh /dev/nvidia0\n");
	assert_ids(CT(), NULL);
	cleanup();
}

/* NVIDIA_* variables only LXC's hooks/nvidia reads; that hook exits in a privileged container. */
static void nvidia_env_and_hook(void **state)
{
	(void)state;
	host_fixture("h200-580-open", NULL);
	pve_config("unprivileged: 1\nlxc.environment.runtime: NVIDIA_VISIBLE_DEVICES=all\n"
		   "lxc.environment: NVIDIA_DRIVER_CAPABILITIES=compute,utility\n"
		   "lxc.environment: TZ=UTC\n");
	assert_ids(CT(), "nvidia-env-unread", NULL);
	assert_non_null(strstr(finding(&found, "nvidia-env-unread")->summary, "sets 2 NVIDIA_*"));
	assert_non_null(
	    strstr(finding(&found, "nvidia-env-unread")->evidence,
		   "101.conf:2: lxc.environment.runtime: NVIDIA_VISIBLE_DEVICES=all; "));
	assert_non_null(strstr(finding(&found, "nvidia-env-unread")->evidence,
			       "101.conf:3: lxc.environment: NVIDIA_DRIVER_CAPABILITIES="));
	/* gpu-hook does not read them either. */
	pve_config("unprivileged: 1\nlxc.hook.pre-start: /bin/true gpu-hook\n"
		   "lxc.environment.hooks = NVIDIA_VISIBLE_DEVICES=0\n");
	assert_ids(CT(), "nvidia-env-unread", NULL);
	/* Near: LXC's hooks/nvidia reads them (unprivileged), or a hook's value names them. */
	pve_config("unprivileged: 1\nlxc.hook.mount: /usr/share/lxc/hooks/nvidia\n"
		   "lxc.environment: NVIDIA_VISIBLE_DEVICES=all\n");
	assert_ids(CT(), "recipe-lines", "other-gpu-hook", NULL);
	pve_config("lxc.idmap: u 0 100000 65536\nlxc.idmap: g 0 100000 65536\n"
		   "lxc.hook.mount = /usr/share/lxc/hooks/nvidia\n"
		   "lxc.environment = NVIDIA_VISIBLE_DEVICES=all\n");
	assert_ids(CT(), "recipe-lines", "other-gpu-hook", NULL);
	pve_config("lxc.hook.pre-start: sh -c 'nvidia-container-cli configure "
		   "--device=$NVIDIA_VISIBLE_DEVICES $LXC_ROOTFS_MOUNT'\n"
		   "lxc.environment: NVIDIA_VISIBLE_DEVICES=0\n");
	assert_ids(CT(), "recipe-lines", "other-gpu-hook", NULL);
	/* Privileged: hooks/nvidia exits, the start fails. */
	pve_config("lxc.hook.mount: /usr/share/lxc/hooks/nvidia\n"
		   "lxc.environment: NVIDIA_VISIBLE_DEVICES=all\n");
	assert_ids(CT(), "recipe-lines", "hooks-nvidia-privileged", NULL); /* said once */
	assert_non_null(strstr(finding(&found, "hooks-nvidia-privileged")->evidence,
			       "101.conf:1: lxc.hook.mount: /usr/share/lxc/hooks/nvidia; no "
			       "lxc.idmap nor unprivileged: 1"));
	cleanup();
}

/* Majors: a stale one said once for its lines, inert where Proxmox allows all, another
 * NVIDIA device's where uvm was meant, one next to a static device's. */
static void recipe_majors(void **state)
{
	static const char uvm[] =
	    "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,create=file\n"
	    "lxc.mount.entry: /dev/nvidiactl dev/nvidiactl none bind,create=file\n"
	    "lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,create=file\n"
	    "lxc.mount.entry: /dev/nvidia-uvm-tools dev/nvidia-uvm-tools none bind,create=file\n"
	    "lxc.cgroup2.devices.allow: c 195:0 rwm\n"
	    "lxc.cgroup2.devices.allow: c 195:255 rwm\n";
	char text[1024];

	(void)state;
	host_fixture("h200-580-open", NULL);
	/* 509 for uvm and uvm-tools: one finding naming both lines. */
	snprintf(text, sizeof(text),
		 "%slxc.cgroup2.devices.allow: c 509:0 rwm\n"
		 "lxc.cgroup2.devices.allow: c 509:1 rwm\n",
		 uvm);
	pve_config(text);
	assert_ids(CT(), "recipe-lines", "rule-stale", "recipe-rule-missing", NULL);
	assert_non_null(strstr(finding(&found, "rule-stale")->evidence,
			       "101.conf:7: lxc.cgroup2.devices.allow: c 509:0 rwm; "
			       "/tmp"));
	assert_non_null(strstr(finding(&found, "rule-stale")->evidence,
			       "101.conf:8: lxc.cgroup2.devices.allow: c 509:1 rwm"));
	/* 240 is nvidia-nvlink's today: written for uvm (238), which is denied. */
	snprintf(text, sizeof(text),
		 "%slxc.cgroup2.devices.allow: c 240:0 rwm\n"
		 "lxc.cgroup2.devices.allow: c 240:1 rwm\n",
		 uvm);
	pve_config(text);
	assert_ids(CT(), "recipe-lines", "rule-other-nvidia-major", NULL);
	assert_non_null(strstr(finding(&found, "rule-other-nvidia-major")->summary,
			       "allows major 240 for nvidia-uvm, but 240 is nvidia-nvlink's "
			       "today and uvm's is 238"));
	/* Near: the config gives nvlink's node, so 240 is its rule; uvm's is missing. */
	snprintf(text, sizeof(text),
		 "%slxc.cgroup2.devices.allow: c 240:* rwm\n"
		 "dev0: /dev/nvidia-nvlink\n",
		 uvm);
	pve_config(text);
	assert_ids(CT(), "recipe-lines", "recipe-rule-missing", NULL);
	/* Near: uvm allowed, 240 only beside it: nothing said of it. */
	snprintf(text, sizeof(text),
		 "%slxc.cgroup2.devices.allow: c 238:* rwm\n"
		 "lxc.cgroup2.devices.allow: c 240:* rwm\n",
		 uvm);
	pve_config(text);
	assert_ids(CT(), "recipe-lines", NULL);
	/* A stale major beside nvram (misc, 10) and a Coral (120), which are absent here. */
	pve_config("lxc.cgroup2.devices.allow: c 195:* rwm\n"
		   "lxc.cgroup2.devices.allow: c 236:* rwm\n"
		   "lxc.cgroup2.devices.allow: c 10:144 rwm\n"
		   "lxc.cgroup2.devices.allow: c 120:* rwm\n"
		   "lxc.mount.entry: /dev/nvram dev/nvram none bind,optional,create=file\n"
		   "lxc.mount.entry: /dev/apex_0 dev/apex_0 none bind,optional,create=file\n"
		   "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,create=file\n");
	assert_ids(CT(), "recipe-lines", "rule-stale", NULL);
	/* Near: beside a device of a dynamic major whose module is not loaded, maybe its. */
	pve_config("lxc.cgroup2.devices.allow: c 195:* rwm\n"
		   "lxc.cgroup2.devices.allow: c 236:* rwm\n"
		   "lxc.mount.entry: /dev/hailo0 dev/hailo0 none bind,optional,create=file\n"
		   "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,create=file\n");
	assert_ids(CT(), "recipe-lines", NULL);
	/* Unprivileged Proxmox: the stale rule is inert, said as info, not as an error. */
	pve_config("unprivileged: 1\nlxc.cgroup2.devices.allow: c 195:* rwm\n"
		   "lxc.cgroup2.devices.allow: c 509:* rwm\n"
		   "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,create=file\n");
	assert_ids(CT(), "recipe-lines", "rules-inert", NULL);
	cleanup();
}

/* devN: a directory, one path twice, modes wider or narrower than the host's. */
static void recipe_devn(void **state)
{
	(void)state;
	host_fixture("h200-580-open", NULL);
	pve_config("unprivileged: 1\ndev0: /dev/nvidia-caps\ndev1: /dev/nvidia0,mode=0666\n");
	assert_ids(CT(), "recipe-lines", "devn-not-device", NULL);
	assert_non_null(strstr(finding(&found, "devn-not-device")->summary,
			       "gives /dev/nvidia-caps by devN, which is a directory"));
	pve_config("unprivileged: 1\ndev0: /dev/nvidia0,mode=0666\ndev1: /dev/nvidiactl,mode=0666\n"
		   "dev2: /dev/nvidia0,mode=0666\n");
	assert_ids(CT(), "recipe-lines", "devn-duplicate", NULL);
	assert_non_null(strstr(finding(&found, "devn-duplicate")->summary,
			       "gives /dev/nvidia0 twice, by dev0 and dev2"));
	/* The MIG config cap is 0400 on the host: 0444 lets every user read it. */
	pve_config("unprivileged: 1\ndev0: /dev/nvidia0,mode=0666\n"
		   "dev1: /dev/nvidia-caps/nvidia-cap1,mode=0444\n"
		   "dev2: /dev/nvidia-caps/nvidia-cap2,mode=0444\n");
	assert_ids(CT(), "recipe-lines", "devn-mode-wider", NULL);
	assert_non_null(strstr(finding(&found, "devn-mode-wider")->summary,
			       "gives /dev/nvidia-caps/nvidia-cap1 mode 0444, where the host "
			       "keeps it 0400: every user of the container can read it"));
	/* Proxmox's default 0660 root:root, or root:44, where the host's are 0666. */
	pve_config("unprivileged: 1\ndev0: /dev/nvidia0,gid=44\ndev1: /dev/nvidiactl,gid=44\n"
		   "dev2: /dev/nvidia-caps/nvidia-cap1\n");
	assert_ids(CT(), "recipe-lines", "devn-mode-narrower", NULL);
	assert_non_null(strstr(finding(&found, "devn-mode-narrower")->summary,
			       "gets 2 NVIDIA node(s) by devN as 0660 uid 0 gid 44"));
	/* An option that is no number: what Proxmox makes of it is not guessed at. */
	pve_config("unprivileged: 1\ndev0: /dev/nvidia0,mode=abc\ndev1: /dev/nvidiactl,mode=\n"
		   "dev2: /dev/nvidia-caps/nvidia-cap1,mode=0444,gid=99999999999\n"
		   "dev3: /dev/nvidia-caps/nvidia-cap2,mode=077777\n");
	assert_ids(CT(), "recipe-lines", NULL);
	cleanup();
}

/* A selector a hook reads that names a GPU or MIG instance the host lacks; near: it has it. */
#define GPU0_UUID "GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460" /* h200-580-open's */

static void recipe_selector(void **state)
{
	static const char *hook = "unprivileged: 1\nlxc.hook.mount: /usr/share/lxc/hooks/nvidia\n";
	char text[512];

	(void)state;
	host_fixture("h200-580-open", NULL);
	snprintf(text, sizeof(text), "%slxc.environment: NVIDIA_VISIBLE_DEVICES=0, 3,GPU-0000\n",
		 hook);
	pve_config(text);
	assert_ids(CT(), "recipe-lines", "other-gpu-hook", "selector-absent", NULL);
	assert_non_null(strstr(finding(&found, "selector-absent")->summary,
			       "names \"3\", \"GPU-0000\", which this host lacks (no GPU has "
			       "index 3)"));
	assert_non_null(strstr(finding(&found, "selector-absent")->evidence,
			       "101.conf:3: lxc.environment: NVIDIA_VISIBLE_DEVICES=0, 3,GPU-0000; "
			       "the host has GPU 0 only"));
	/* MIG: no instance on this host; then gi 1 ci 0 made on GPU 0 (minor 0). */
	snprintf(text, sizeof(text), "%slxc.environment: NVIDIA_VISIBLE_DEVICES=MIG-%s/1/0\n", hook,
		 GPU0_UUID);
	pve_config(text);
	assert_ids(CT(), "recipe-lines", "other-gpu-hook", "selector-absent", NULL);
	assert_non_null(strstr(finding(&found, "selector-absent")->summary,
			       "(GPU 0 has no MIG instance gi 1 ci 0)"));
	snprintf(text, sizeof(text), "%slxc.environment: NVIDIA_VISIBLE_DEVICES=MIG-0a1b2c\n",
		 hook);
	pve_config(text);
	assert_ids(CT(), "recipe-lines", "other-gpu-hook", "selector-absent", NULL);
	put_file("/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access", "DeviceFileMinor: 12\n");
	put_file("/proc/driver/nvidia/capabilities/gpu0/mig/gi1/ci0/access",
		 "DeviceFileMinor: 13\n");
	assert_ids(CT(), "recipe-lines", "other-gpu-hook", NULL); /* a MIG UUID: NVML knows */
	snprintf(text, sizeof(text),
		 "%slxc.environment: NVIDIA_VISIBLE_DEVICES=MIG-%s/1/0,%s,all,void\n", hook,
		 GPU0_UUID, GPU0_UUID);
	pve_config(text);
	assert_ids(CT(), "recipe-lines", "other-gpu-hook", NULL);
	/* No hook reads it: nvidia-env-unread, not a failed start. */
	pve_config("unprivileged: 1\nlxc.environment: NVIDIA_VISIBLE_DEVICES=3\n");
	assert_ids(CT(), "nvidia-env-unread", NULL);
	cleanup();
}

/* Whole directories bound: every GPU's caps or DRM nodes, the host's libraries over the CT's. */
static void recipe_binds(void **state)
{
	(void)state;
	host_fixture("h200-580-open", NULL);
	put_node("/dev/dri/card0", 226, 0, 0660, 44);
	put_node("/dev/dri/renderD128", 226, 128, 0666, 0);
	put_file("/dev/dri/by-path/README", "a directory of links, no node\n");
	pve_config("unprivileged: 1\n"
		   "lxc.mount.entry: /dev/nvidia-caps dev/nvidia-caps none bind,create=dir\n"
		   "lxc.mount.entry: /dev/dri/ dev/dri none bind,optional,create=dir\n");
	assert_ids(CT(), "recipe-lines", "bind-device-dir", "bind-device-dir", NULL);
	assert_non_null(
	    strstr(finding(&found, "bind-device-dir")->summary,
		   "binds the whole /dev/nvidia-caps: 2 node(s) today, the MIG config cap"));
	assert_non_null(
	    strstr(found.v[found.n - 1].summary, "binds the whole /dev/dri: 2 node(s) today"));
	pve_config("unprivileged: 1\n"
		   "lxc.mount.entry: /usr/lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu none "
		   "bind,ro 0 0\n"
		   "lxc.mount.entry: /usr/lib/ /usr/lib/ none rbind,ro 0 0\n");
	assert_ids(CT(), "bind-host-libdir", "bind-host-libdir", NULL);
	assert_non_null(strstr(
	    finding(&found, "bind-host-libdir")->summary,
	    "binds the host's /usr/lib/x86_64-linux-gnu over its own /usr/lib/x86_64-linux-gnu"));
	/* Near: one GPU's render node, a library directory of NVIDIA's, or the host's kept aside.
	 */
	pve_config(
	    "unprivileged: 1\n"
	    "lxc.mount.entry: /dev/dri/renderD128 dev/dri/renderD128 none bind,create=file\n"
	    "lxc.mount.entry: /usr/lib/x86_64-linux-gnu/nvidia/current "
	    "usr/lib/x86_64-linux-gnu/nvidia/current none bind,ro,create=dir\n"
	    "lxc.mount.entry: /usr/lib/x86_64-linux-gnu mnt/host-lib none bind,ro,create=dir\n");
	assert_ids(CT(), NULL);
	cleanup();
}

/* nvidia0 written where the rules name minor 1 (GPU 3 here): the cause said; near: both bound. */
static void recipe_other_gpu_meant(void **state)
{
	static const char *lines =
	    "lxc.cgroup2.devices.allow: c 195:1 rwm\n"
	    "lxc.cgroup2.devices.allow: c 195:255 rwm\n"
	    "lxc.mount.entry: /dev/nvidiactl dev/nvidiactl none bind,create=file\n";
	char text[512];

	(void)state;
	host_fixture("quad-550-proprietary", NULL);
	snprintf(text, sizeof(text),
		 "%slxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,create=file\n", lines);
	pve_config(text);
	assert_ids(CT(), "recipe-lines", "recipe-rule-missing", NULL);
	assert_non_null(strstr(finding(&found, "recipe-rule-missing")->summary,
			       "its rules name another GPU, which it does not bind"));
	assert_non_null(
	    strstr(finding(&found, "recipe-rule-missing")->fix, "adopt 101 --gpus 3 --dry-run"));
	/* Near: its rule's GPU bound too, or no exact GPU rule at all: the effect only. */
	snprintf(text, sizeof(text),
		 "%slxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,create=file\n"
		 "lxc.mount.entry: /dev/nvidia1 dev/nvidia1 none bind,create=file\n",
		 lines);
	pve_config(text);
	assert_ids(CT(), "recipe-lines", "recipe-rule-missing", NULL);
	assert_null(strstr(finding(&found, "recipe-rule-missing")->summary, "another GPU"));
	cleanup();
}

/* A bind from a copy of a node kept outside /dev, gone or of another number today. */
static void recipe_copies(void **state)
{
	char text[1024];

	(void)state;
	host_fixture("h200-580-open", NULL);
	put_node("/copies/nvidia0", 195, 0, 0666, 0);
	put_node("/copies/uvm", 509, 0, 0666, 0);
	snprintf(text, sizeof(text),
		 "lxc.mount.entry: %s/copies/nvidia0 dev/nvidia0 none bind,create=file\n"
		 "lxc.mount.entry: %s/copies/uvm dev/nvidia-uvm none bind,create=file\n"
		 "lxc.mount.entry: %s/copies/ctl dev/nvidiactl none bind,optional,create=file\n",
		 root, root, root);
	pve_config(text);
	assert_ids(CT(), "recipe-lines", "bind-copy-stale", "bind-copy-stale",
		   "recipe-rule-missing", NULL); /* privileged, no rule for the copy of nvidia0 */
	assert_non_null(strstr(finding(&found, "bind-copy-stale")->summary,
			       "/copies/uvm onto dev/nvidia-uvm, but it is c 509:0, and "
			       "/dev/nvidia-uvm is c 238:0 today: the container gets another "
			       "device there"));
	cleanup();
}

/* Privileged, AppArmor off and an empty cap.drop: root in it is root on the host. */
static void privileged_unconfined(void **state)
{
	(void)state;
	host_fixture("h200-580-open", NULL);
	pve_config("arch: amd64\nlxc.cap.drop:\nlxc.apparmor.profile: unconfined\n");
	assert_ids(CT(), "privileged-unconfined", NULL);
	assert_non_null(strstr(finding(&found, "privileged-unconfined")->evidence,
			       "101.conf:2: lxc.cap.drop: ; "));
	assert_non_null(strstr(finding(&found, "privileged-unconfined")->evidence,
			       "101.conf:3: lxc.apparmor.profile: unconfined; no lxc.idmap nor "
			       "unprivileged: 1"));
	pve_config("lxc.apparmor.profile = unconfined\nlxc.cap.drop =\n");
	assert_ids(CT(), "privileged-unconfined", NULL);
	/* Near: unprivileged; a drop after the empty one; one of the two only; a later profile. */
	pve_config("unprivileged: 1\nlxc.apparmor.profile: unconfined\nlxc.cap.drop:\n");
	assert_ids(CT(), NULL);
	pve_config("lxc.idmap: u 0 100000 65536\nlxc.apparmor.profile: unconfined\n"
		   "lxc.cap.drop:\n");
	assert_ids(CT(), NULL);
	pve_config("lxc.apparmor.profile: unconfined\nlxc.cap.drop:\nlxc.cap.drop: sys_module\n");
	assert_ids(CT(), NULL);
	pve_config("lxc.apparmor.profile: unconfined\n");
	assert_ids(CT(), NULL);
	pve_config("lxc.cap.drop:\nlxc.apparmor.profile: unconfined\n"
		   "lxc.apparmor.profile: generated\n");
	assert_ids(CT(), NULL);
	cleanup();
}

/* NVIDIA lines commented out: Proxmox keeps them as the description, none applies. */
static void commented_block(void **state)
{
	(void)state;
	host_fixture("h200-580-open", NULL);
	pve_config("arch: amd64\n### NVidia GPU: ###\n#lxc.cgroup2.devices.allow: c 195:* rwm\n"
		   "#lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,optional,create=file\n"
		   "# lxc.mount.entry = /dev/nvidiactl dev/nvidiactl none bind,optional\n"
		   "#dev0: /dev/nvidia-uvm\n");
	assert_ids(CT(), "nvidia-block-commented", NULL);
	assert_non_null(strstr(finding(&found, "nvidia-block-commented")->summary,
			       "has 3 NVIDIA line(s) commented out"));
	assert_non_null(strstr(finding(&found, "nvidia-block-commented")->evidence,
			       "101.conf:4: #lxc.mount.entry: /dev/nvidia0 dev/nvidia0"));
	assert_non_null(strstr(finding(&found, "nvidia-block-commented")->evidence,
			       "101.conf:6: #dev0: /dev/nvidia-uvm"));
	/* Near: prose that names NVIDIA; a block in a snapshot; lines in force beside it. */
	pve_config("#GPU: an NVIDIA RTX 3090 for transcoding\n# nvidia driver 550 on the host\n"
		   "arch: amd64\n");
	assert_ids(CT(), NULL);
	pve_config("arch: amd64\n\n[before-gpu]\n#lxc.mount.entry: /dev/nvidia0 dev/nvidia0 "
		   "none bind\n");
	assert_ids(CT(), NULL);
	pve_config("unprivileged: 1\n#dev0: /dev/nvidia1\n");
	assert_ids(CT(), "nvidia-block-commented", NULL);
	pve_config("unprivileged: 1\n#dev0: /dev/nvidia1\n"
		   "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,create=file\n");
	assert_ids(CT(), "recipe-lines", NULL);
	pve_config("lxc.hook.pre-start: /bin/true gpu-hook\n#dev0: /dev/nvidia0\n");
	assert_ids(CT(), NULL);
	cleanup();
}

/* A container that does not exist is said so, not checked as one without findings. */
static void missing_container(void **state)
{
	struct gp_check_run run;
	int init, absent, broken;

	(void)state;
	copy_fixture("h200-580-open");
	/* One that exists with a config that does not parse is not "no such container". */
	pve_config("arch: amd64\nthis is no key value line\n");
	memset(&found, 0, sizeof(found));
	silence(true);
	init =
	    gp_check_run_init(&run, test_ctx(root, confdir, NULL, true), test_runtime(root, true));
	absent = gp_check_container(&run, "999", &found);
	broken = gp_check_container(&run, "101", &found);
	silence(false);
	assert_int_equal(init, 0);
	assert_int_equal(absent, -ENOENT);
	assert_int_equal(broken, -GP_EBADCONF);
	gp_check_run_free(&run);
	cleanup();
}

/* The rules attach wrote (its .applied record) against today's majors. */
static void stale_rules(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* an ini must be root's */
	copy_fixture("h200-580-open");
	ini("[gpu]\ndevices = 0\n");
	pve_config("arch: amd64\nlxc.hook.pre-start: /bin/true gpu-hook\n");
	put_file("/etc/pve/gpu-provision/101.applied", "lxc.cgroup2.devices.allow: c 195:0 rwm\n"
						       "lxc.cgroup2.devices.allow: c 238:0 rwm\n"
						       "lxc.cgroup2.devices.allow: c 238:1 rwm\n");
	assert_ids(CT(), NULL);
	put_file("/etc/pve/gpu-provision/101.applied", "lxc.cgroup2.devices.allow: c 195:0 rwm\n"
						       "lxc.cgroup2.devices.allow: c 511:0 rwm\n"
						       "lxc.cgroup2.devices.allow: c 511:1 rwm\n");
	assert_ids(CT(), "rule-stale", "rule-stale", NULL); /* uvm's major of another boot */
	put_file("/etc/pve/gpu-provision/101.applied", "lxc.cgroup2.devices.allow: c 195:1 rwm\n");
	assert_ids(CT(), "rule-stale", NULL); /* a GPU the ini does not give */
	cleanup();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(recipe_lines),
		cmocka_unit_test(driver),
		cmocka_unit_test(excluded_gpu),
		cmocka_unit_test(gsp_firmware),
		cmocka_unit_test(uvm_and_hmm),
		cmocka_unit_test(host_nodes),
		cmocka_unit_test(daemons),
		cmocka_unit_test(kernel_log),
		cmocka_unit_test(cgroup_keys),
		cmocka_unit_test(cgroup_keys_lxc7_pve9),
		cmocka_unit_test(layout_assumed),
		cmocka_unit_test(mount_entries),
		cmocka_unit_test(unprivileged_mode),
		cmocka_unit_test(hooks),
		cmocka_unit_test(stale_rules),
		cmocka_unit_test(refused_ini),
		cmocka_unit_test(missing_container),
		cmocka_unit_test(hook_inline_comment),
		cmocka_unit_test(hook_host_nodes),
		cmocka_unit_test(nvidia_env_and_hook),
		cmocka_unit_test(recipe_majors),
		cmocka_unit_test(recipe_devn),
		cmocka_unit_test(recipe_copies),
		cmocka_unit_test(recipe_selector),
		cmocka_unit_test(recipe_binds),
		cmocka_unit_test(recipe_other_gpu_meant),
		cmocka_unit_test(privileged_unconfined),
		cmocka_unit_test(commented_block),
	};
	return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
