/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The container's /proc/driver/nvidia/gpus cut to the start's GPUs (lib/start/procgpus.c).
 * The mask itself on a tree built here (no procfs here has the driver's directory), the
 * way to it on a real procfs and on hostile rootfs trees. Runs as root in a private mount
 * namespace of its own; every case checks what is mounted under its tree afterwards.
 */
#include "unit.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "start/procgpus.h"

#define GPU_A "0000:01:00.0"
#define GPU_B "0000:41:00.0"
#define GPU_C "0000:c1:00.0"

static char base[64];

static char *at(const char *rel)
{
	static char paths[4][256];
	static int next;
	char *p = paths[next++ % 4];

	snprintf(p, sizeof(paths[0]), "%s/%s", base, rel);
	return p;
}

static void make_file(const char *rel, const char *text)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* base/nvidia/gpus lists three GPUs, each with its information file. */
static int setup(void **state)
{
	static const char *gpus[] = { GPU_A, GPU_B, GPU_C };
	char rel[128], text[64];

	(void)state;
	snprintf(base, sizeof(base), "/tmp/gp-procgpus.XXXXXX");
	if (!mkdtemp(base) || mkdir(at("nvidia"), 0555) || mkdir(at("nvidia/gpus"), 0555) ||
	    mkdir(at("victim"), 0755))
		return -1;
	for (size_t i = 0; i < 3; i++) {
		snprintf(rel, sizeof(rel), "nvidia/gpus/%s", gpus[i]);
		if (mkdir(at(rel), 0555))
			return -1;
		snprintf(rel, sizeof(rel), "nvidia/gpus/%s/information", gpus[i]);
		snprintf(text, sizeof(text), "Bus Location: %s\n", gpus[i]);
		make_file(rel, text);
	}
	make_file("victim/file", "secret\n");
	return 0;
}

/* How many mounts lie under base, from /proc/self/mountinfo. */
static int mounts_under_base(void)
{
	char line[1024], mnt[512];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += sscanf(line, "%*s %*s %*s %*s %511s", mnt) == 1 &&
		     strncmp(mnt, base, strlen(base)) == 0;
	fclose(f);
	return n;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	for (int i = 0; i < 16 && mounts_under_base() > 0; i++) {
		char line[1024], mnt[512];
		FILE *f = fopen("/proc/self/mountinfo", "r");

		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "%*s %*s %*s %*s %511s", mnt) == 1 &&
			    strncmp(mnt, base, strlen(base)) == 0)
				umount2(mnt, MNT_DETACH | UMOUNT_NOFOLLOW);
		if (f)
			fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	return system(cmd);
}

static int group_setup(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "test-procgpus must run as root (sudo make unit)\n");
		return -1;
	}
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	return 0;
}

/* A plan given the GPUs at these PCI addresses (NULL ends them). */
static void plan_of(struct gp_plan *p, const char *const *pci)
{
	memset(p, 0, sizeof(*p));
	for (; *pci; pci++, p->ngpus++) {
		p->gpus[p->ngpus].index = (unsigned int)p->ngpus;
		snprintf(p->gpus[p->ngpus].uuid, sizeof(p->gpus[0].uuid), "GPU-%zu", p->ngpus);
		snprintf(p->gpus[p->ngpus].pci, sizeof(p->gpus[0].pci), "%s", *pci);
	}
}

/* The names in base/REL, sorted, joined by spaces. */
static char *listing(const char *rel)
{
	static char out[256];
	struct gp_buf b = { 0 };
	struct dirent **e;
	int n = scandir(at(rel), &e, NULL, alphasort);

	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		if (e[i]->d_name[0] != '.')
			gp_buf_printf(&b, "%s%s", b.len ? " " : "", e[i]->d_name);
		free(e[i]);
	}
	free(e);
	snprintf(out, sizeof(out), "%s", b.data ? b.data : "");
	gp_buf_free(&b);
	return out;
}

static int mask(const char *const *pci)
{
	struct gp_plan p;
	int fd = open(at("nvidia"), O_PATH | O_DIRECTORY | O_CLOEXEC), r;

	assert_true(fd >= 0);
	plan_of(&p, pci);
	r = gp_procgpus_mask_dir(fd, "gpus", &p);
	close(fd);
	return r;
}

static void others_are_hidden(void **state)
{
	static const char *const given[] = { GPU_A, GPU_C, NULL };
	char *text = NULL;

	(void)state;
	assert_int_equal(mask(given), 1);
	assert_string_equal(listing("nvidia/gpus"), GPU_A " " GPU_C);
	assert_int_equal(gp_read_file(at("nvidia/gpus/" GPU_C "/information"), 4096, &text, NULL),
			 0);
	assert_string_equal(text, "Bus Location: " GPU_C "\n");
	free(text);
	/* Read-only, the list and what it shows. */
	assert_int_equal(mkdir(at("nvidia/gpus/" GPU_B), 0755), -1);
	assert_int_equal(errno, EROFS);
	assert_int_equal(open(at("nvidia/gpus/" GPU_A "/x"), O_WRONLY | O_CREAT, 0644), -1);
	assert_int_equal(errno, EROFS);
	assert_int_equal(mounts_under_base(), 3);
}

static void all_given_mounts_nothing(void **state)
{
	static const char *const given[] = { GPU_C, GPU_B, GPU_A, NULL };

	(void)state;
	assert_int_equal(mask(given), 0);
	assert_int_equal(mounts_under_base(), 0);
}

/* A given GPU the list lacks is no reason to show the others. */
static void given_gpu_missing_from_the_list(void **state)
{
	static const char *const given[] = { "0000:99:00.0", GPU_B, NULL };

	(void)state;
	assert_int_equal(mask(given), 1);
	assert_string_equal(listing("nvidia/gpus"), GPU_B);
}

/* A plan from before the PCI addresses, or of attach: nothing is known to hide. */
static void plan_without_addresses_mounts_nothing(void **state)
{
	static const char *const none[] = { NULL };
	struct gp_plan p;
	int fd = open(at("nvidia"), O_PATH | O_DIRECTORY | O_CLOEXEC);

	(void)state;
	plan_of(&p, none);
	assert_int_equal(gp_procgpus_mask_dir(fd, "gpus", &p), 0);
	p.ngpus = 1; /* a version 2 plan of before: UUID, no address */
	assert_int_equal(gp_procgpus_mask_dir(fd, "gpus", &p), 0);
	close(fd);
	assert_int_equal(mounts_under_base(), 0);
}

/* gpus a link to a host directory: not followed, nothing mounted there. */
static void gpus_symlink_is_not_followed(void **state)
{
	static const char *const given[] = { GPU_A, NULL };
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s/nvidia/gpus", base);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(symlink(at("victim"), at("nvidia/gpus")), 0);
	assert_int_equal(mask(given), -ELOOP);
	assert_int_equal(mounts_under_base(), 0);
	assert_string_equal(listing("victim"), "file");
}

/* A given GPU's entry a link: refused, the tmpfs taken back, the list as it was. */
static void gpu_entry_symlink_undoes_the_mask(void **state)
{
	static const char *const given[] = { GPU_A, NULL };
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s/nvidia/gpus/" GPU_A, base);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(symlink(at("victim"), at("nvidia/gpus/" GPU_A)), 0);
	assert_int_equal(mask(given), -ELOOP);
	assert_int_equal(mounts_under_base(), 0);
	assert_string_equal(listing("nvidia/gpus"), GPU_A " " GPU_B " " GPU_C);
}

static int front(const char *const *pci)
{
	struct gp_plan p;

	plan_of(&p, pci);
	return gp_procgpus_mask(at("rootfs"), &p);
}

/* A rootfs whose proc is a directory of its own, not a procfs: nothing is mounted. */
static void proc_not_a_procfs_is_left_alone(void **state)
{
	static const char *const given[] = { GPU_A, NULL };

	(void)state;
	assert_int_equal(mkdir(at("rootfs"), 0755), 0);
	assert_int_equal(mkdir(at("rootfs/proc"), 0755), 0);
	assert_int_equal(mkdir(at("rootfs/proc/driver"), 0755), 0);
	assert_int_equal(rename(at("nvidia"), at("rootfs/proc/driver/nvidia")), 0);
	assert_int_equal(front(given), 0);
	assert_int_equal(mounts_under_base(), 0);
	assert_string_equal(listing("rootfs/proc/driver/nvidia/gpus"), GPU_A " " GPU_B " " GPU_C);
}

/* proc a link to the host's /proc: not followed (said), nothing mounted. */
static void proc_symlink_is_not_followed(void **state)
{
	static const char *const given[] = { GPU_A, NULL };

	(void)state;
	assert_int_equal(mkdir(at("rootfs"), 0755), 0);
	assert_int_equal(symlink("/proc", at("rootfs/proc")), 0);
	assert_int_equal(front(given), -ELOOP);
	assert_int_equal(mounts_under_base(), 0);
}

/*
 * A real procfs at rootfs/proc: reached, and where it has no driver directory (this
 * machine has no GPU) nothing is mounted; given every GPU it lists, nothing either.
 */
static void real_procfs_with_every_gpu_given(void **state)
{
	const char *pci[GP_MAX_GPUS + 1] = { NULL };
	DIR *d = opendir("/proc/driver/nvidia/gpus");
	struct dirent *e;
	char names[GP_MAX_GPUS][32];
	size_t n = 0;

	(void)state;
	while (d && (e = readdir(d)) && n < GP_MAX_GPUS)
		if (e->d_name[0] != '.') {
			snprintf(names[n], sizeof(names[0]), "%.31s", e->d_name);
			pci[n] = names[n];
			n++;
		}
	if (d)
		closedir(d);
	if (n == 0)
		pci[n++] = GPU_A; /* a plan with a GPU, as a start's */
	assert_int_equal(mkdir(at("rootfs"), 0755), 0);
	assert_int_equal(mkdir(at("rootfs/proc"), 0755), 0);
	assert_int_equal(mount("proc", at("rootfs/proc"), "proc", MS_NOSUID | MS_NODEV, NULL), 0);
	assert_int_equal(front(pci), 0);
	assert_int_equal(mounts_under_base(), 1);
}

static int write_to(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/*
 * The mask on a real procfs directory (the driver's is not here: a procfs directory with
 * subdirectories stands in, /proc/sys/net/ipv4/conf, its entries the names to keep), in
 * pid namespace ns's procfs mounted at base/rootfs/proc, as root or, in a user namespace
 * of its own, as an unprivileged container's root (lxc.idmap). The child's exit: 0 when
 * masked as wanted.
 */
static int mask_real_procfs(bool userns)
{
	static const char *const given[] = { "lo", NULL };
	struct gp_plan p;
	char *text = NULL;
	int fd, r;

	if (unshare(CLONE_NEWNS | CLONE_NEWPID | (userns ? CLONE_NEWUSER : 0)) < 0)
		return 10;
	if (userns && (write_to("/proc/self/uid_map", "0 0 1\n") < 0 ||
		       write_to("/proc/self/setgroups", "deny\n") < 0 ||
		       write_to("/proc/self/gid_map", "0 0 1\n") < 0))
		return 11;
	if (fork() != 0) {
		int st;

		wait(&st);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 12;
	}
	/* pid 1 of the new namespace, as a container's init is */
	if (mount("proc", at("rootfs/proc"), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		_exit(13);
	fd = open(at("rootfs/proc/sys/net/ipv4"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	plan_of(&p, given);
	r = fd < 0 ? -errno : gp_procgpus_mask_dir(fd, "conf", &p);
	if (r != 1)
		_exit(20 + (r < 0 ? -r % 80 : r));
	if (strcmp(listing("rootfs/proc/sys/net/ipv4/conf"), "lo") != 0)
		_exit(14);
	if (gp_read_file(at("rootfs/proc/sys/net/ipv4/conf/lo/forwarding"), 64, &text, NULL) < 0)
		_exit(15);
	if (mkdir(at("rootfs/proc/sys/net/ipv4/conf/eth9"), 0755) == 0 || errno != EROFS)
		_exit(16);
	_exit(0);
}

static void real_procfs_dir_masked(bool userns)
{
	pid_t pid;
	int st;

	assert_int_equal(mkdir(at("rootfs"), 0755), 0);
	assert_int_equal(mkdir(at("rootfs/proc"), 0755), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(mask_real_procfs(userns));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void real_procfs_dir_masked_as_root(void **state)
{
	(void)state;
	real_procfs_dir_masked(false);
}

static void real_procfs_dir_masked_in_a_user_namespace(void **state)
{
	(void)state;
	real_procfs_dir_masked(true);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(others_are_hidden),
		T(all_given_mounts_nothing),
		T(given_gpu_missing_from_the_list),
		T(plan_without_addresses_mounts_nothing),
		T(gpus_symlink_is_not_followed),
		T(gpu_entry_symlink_undoes_the_mask),
		T(proc_not_a_procfs_is_left_alone),
		T(proc_symlink_is_not_followed),
		T(real_procfs_with_every_gpu_given),
		T(real_procfs_dir_masked_as_root),
		T(real_procfs_dir_masked_in_a_user_namespace),
	};
#undef T
	return cmocka_run_group_tests_name("procgpus", tests, group_setup, NULL);
}
