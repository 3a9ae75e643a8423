/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gpu-provision check over scratch copies of the fixtures: for each finding a host or
 * config that raises it, and a near one that does not.
 */
#include "unit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"
#include "util.h"

static char root[128];

/* A scratch copy of a fixture (no device nodes: tests that need them make them). */
static void scratch(const char *fixture)
{
	char cmd[512];

	snprintf(root, sizeof(root), "/tmp/gp-check.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -a %s/%s/. %s/", FIXTURES, fixture, root);
	assert_int_equal(system(cmd), 0);
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

/* Runs the host checks (and the container's, when name is given) and counts id. */
static int raised(const char *id, const char *name, enum gp_cg_layout layout)
{
	struct gp_findings *f = calloc(1, sizeof(*f));
	struct gp_check_ctx ctx;
	int n = 0;

	silence(true);
	assert_int_equal(gp_check_ctx_init(&ctx, root, "/nonexistent-confdir", NULL, true), 0);
	ctx.layout = layout;
	if (name)
		gp_check_container(&ctx, name, f);
	else
		gp_check_host(&ctx, f);
	silence(false);
	for (size_t i = 0; i < f->n; i++)
		n += strcmp(f->v[i].id, id) == 0;
	gp_check_ctx_free(&ctx);
	free(f);
	return n;
}

#define HOST(id) raised(id, NULL, GP_CG_V2)

static void driver(void **state)
{
	(void)state;
	scratch("h200-580-open");
	assert_int_equal(HOST("driver-missing"), 0);
	unlink(strcat(strcpy((char[256]){ 0 }, root), "/proc/driver/nvidia/version"));
	assert_int_equal(HOST("driver-missing"), 1);
	cleanup();
}

static void excluded_gpu(void **state)
{
	char cmd[512];

	(void)state;
	scratch("quad-550-proprietary");
	assert_int_equal(HOST("gpu-excluded"), 0);
	snprintf(cmd, sizeof(cmd),
		 "sed -i 's/GPU Excluded:\\t No/GPU Excluded:\\t Yes/' "
		 "%s/proc/driver/nvidia/gpus/0000:41:00.0/information",
		 root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(HOST("gpu-excluded"), 1);
	cleanup();
}

static void gsp_firmware(void **state)
{
	(void)state;
	scratch("h200-580-open");
	assert_int_equal(HOST("gsp-firmware-missing"), 1);
	put_file("/lib/firmware/nvidia/580.159.04/gsp_ga10x.bin", "x");
	assert_int_equal(HOST("gsp-firmware-missing"), 0);
	cleanup();
	/* A firmware directory the kernel was told about (firmware_class.path). */
	scratch("h200-580-open");
	put_file("/sys/module/firmware_class/parameters/path", "/usr/local/nvidia/firmware\n");
	assert_int_equal(HOST("gsp-firmware-missing"), 1);
	put_file("/usr/local/nvidia/firmware/nvidia/580.159.04/gsp_tu10x.bin", "x");
	assert_int_equal(HOST("gsp-firmware-missing"), 0);
	cleanup();
	scratch("quad-550-proprietary"); /* the proprietary module carries its own */
	assert_int_equal(HOST("gsp-firmware-missing"), 0);
	cleanup();
}

static void uvm_and_hmm(void **state)
{
	(void)state;
	scratch("uvm-unloaded-580-open");
	assert_int_equal(HOST("uvm-not-loaded"), 1);
	assert_int_equal(HOST("hmm-active"), 0);
	cleanup();
	scratch("b200x8-590-open-hmm");
	assert_int_equal(HOST("uvm-not-loaded"), 0);
	assert_int_equal(HOST("hmm-active"), 1);
	put_file("/proc/cmdline", "BOOT_IMAGE=/vmlinuz-6.8.12-9-pve root=/dev/pve/root quiet\n");
	assert_int_equal(HOST("nokaslr-hint"), 1);
	put_file("/proc/cmdline", "BOOT_IMAGE=/vmlinuz-6.8.12-9-pve root=/dev/pve/root nokaslr\n");
	assert_int_equal(HOST("nokaslr-hint"), 0);
	cleanup();
	scratch("h200-580-open");
	put_file("/proc/cmdline", "quiet\n");
	assert_int_equal(HOST("hmm-active"), 0);
	assert_int_equal(HOST("nokaslr-hint"), 0);
	cleanup();
}

static void host_nodes(void **state)
{
	char path[256];

	(void)state;
	if (geteuid() != 0)
		skip(); /* mknod needs root; the integration tests cover nodes too */
	scratch("uvm-unloaded-580-open");
	snprintf(path, sizeof(path), "%s/dev", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/dev/nvidiactl", root);
	assert_int_equal(mknod(path, S_IFCHR | 0666, makedev(195, 255)), 0);
	chmod(path, 0666);
	assert_int_equal(HOST("host-node-missing"), 1); /* nvidia0 */
	snprintf(path, sizeof(path), "%s/dev/nvidia0", root);
	assert_int_equal(mknod(path, S_IFCHR | 0666, makedev(195, 1)), 0);
	chmod(path, 0666);
	assert_int_equal(HOST("host-node-missing"), 0);
	assert_int_equal(HOST("host-node-stale"), 1);
	unlink(path);
	assert_int_equal(mknod(path, S_IFCHR | 0600, makedev(195, 0)), 0);
	chmod(path, 0600);
	assert_int_equal(HOST("host-node-stale"), 0);
	assert_int_equal(HOST("host-node-mode"), 1);
	chmod(path, 0666);
	assert_int_equal(HOST("host-node-mode"), 0);
	cleanup();
}

static void daemons(void **state)
{
	(void)state;
	scratch("h200-580-open");
	assert_int_equal(HOST("persistenced-missing"), 0); /* no processes known: not judged */
	put_file("/proc/1/comm", "systemd\n");
	assert_int_equal(HOST("persistenced-missing"), 1);
	put_file("/proc/812/comm", "nvidia-persiste\n");
	assert_int_equal(HOST("persistenced-missing"), 0);
	assert_int_equal(HOST("fabric-manager-missing"), 0);
	put_file("/proc/driver/nvidia-nvswitch/devices/0000:05:00.0", "\n");
	assert_int_equal(HOST("fabric-manager-missing"), 1);
	put_file("/proc/900/comm", "nv-fabricmanage\n");
	assert_int_equal(HOST("fabric-manager-missing"), 0);
	cleanup();
}

static void kernel_log(void **state)
{
	(void)state;
	scratch("h200-580-open");
	put_file("/var/log/kern.log", "kernel: nvidia-uvm: Loaded the UVM driver\n");
	assert_int_equal(HOST("kmsg-signature"), 0);
	put_file("/var/log/kern.log", "kernel: NVRM: Xid (PCI:0000:00:06): 79, pid=0, GPU has "
				      "fallen off the bus.\n");
	assert_int_equal(HOST("kmsg-signature"), 2);
	cleanup();
}

/* Proxmox configs need no container manager: the config rules are checked on them. */
static void pve_config(const char *text)
{
	put_file("/etc/pve/lxc/101.conf", text);
}

static void container_configs(void **state)
{
	(void)state;
	scratch("quad-550-proprietary");
	pve_config("arch: amd64\nlxc.cgroup.devices.allow: c 195:0 rwm\n");
	assert_int_equal(raised("cgroup-v1-keys", "101", GP_CG_V2), 1);
	assert_int_equal(raised("cgroup-v1-keys", "101", GP_CG_V1), 0);
	pve_config("arch: amd64\nlxc.cgroup2.devices.allow: c 195:0 rwm\n");
	assert_int_equal(raised("cgroup-v1-keys", "101", GP_CG_V2), 0);
	/* Both keys for the same rule, as LXC's common.conf has them: nothing to say. */
	pve_config("lxc.cgroup.devices.deny: a\nlxc.cgroup2.devices.deny: a\n");
	assert_int_equal(raised("cgroup-v1-keys", "101", GP_CG_V2), 0);
	pve_config(
	    "lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file\n");
	assert_int_equal(raised("optional-mount", "101", GP_CG_V2), 1);
	pve_config("lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,create=file\n");
	assert_int_equal(raised("optional-mount", "101", GP_CG_V2), 0);
	/* The 4-GPU host's nodes are 0660 group 44: unprivileged containers cannot open them. */
	pve_config("arch: amd64\nunprivileged: 1\n");
	assert_int_equal(raised("unprivileged-node-mode", "101", GP_CG_V2), 1);
	pve_config("arch: amd64\n");
	assert_int_equal(raised("unprivileged-node-mode", "101", GP_CG_V2), 0);
	pve_config("dev0: /dev/nvidia0,mode=0666\nlxc.mount.entry: /dev/nvidia0 dev/nvidia0 none "
		   "bind,create=file\n");
	assert_int_equal(raised("pve-duplicate", "101", GP_CG_V2), 1);
	pve_config("dev0: /dev/nvidia0,mode=0666\nlxc.mount.entry: /dev/nvidia1 dev/nvidia1 none "
		   "bind,create=file\n");
	assert_int_equal(raised("pve-duplicate", "101", GP_CG_V2), 0);
	pve_config("lxc.hook.pre-start: /nonexistent/gpu-hook --confdir /etc/gpu-provision\n");
	assert_int_equal(raised("hook-binary-missing", "101", GP_CG_V2), 1);
	pve_config("lxc.hook.pre-start: /bin/true gpu-hook\n");
	assert_int_equal(raised("hook-binary-missing", "101", GP_CG_V2), 0);
	cleanup();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(driver),	cmocka_unit_test(excluded_gpu),
		cmocka_unit_test(gsp_firmware), cmocka_unit_test(uvm_and_hmm),
		cmocka_unit_test(host_nodes),	cmocka_unit_test(daemons),
		cmocka_unit_test(kernel_log),	cmocka_unit_test(container_configs),
	};
	return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
