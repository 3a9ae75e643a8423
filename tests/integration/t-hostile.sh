# shellcheck shell=bash
# Hostile container files: the container's own /dev (lxc.autodev = 0) prepared by its
# owner to turn the root hook against the host. For each case nothing outside the rootfs
# may be created, changed or mounted, and the start gets exactly the right node or is
# refused. Sourced by run.sh.

# hostile_ct NAME: a container with its own /dev, attached to a fresh fixture root.
hostile_ct() {
	make_root h200-580-open "$WORK/$1.root"
	new_container "$P" "$1"
	sed -i 's/^lxc.autodev = 1/lxc.autodev = 0/' "$P/$1/config"
	rm -rf "$P/$1/rootfs/dev"
	mkdir -p "$P/$1/rootfs/dev"
	# A /dev of its own as a distribution has one: lxc-attach wants /dev/null in it.
	mknod -m 666 "$P/$1/rootfs/dev/null" c 1 3
	gp --root "$WORK/$1.root" attach "$1" --gpus 0 >/dev/null
	mkdir -p "$WORK/victim.d"
	echo secret >"$WORK/victim.d/file"
}

# No mount anywhere of the fixture's nodes or the victim, and the victim unchanged.
host_untouched() {
	check "host mounts of the nodes" 0 "$(host_mounts_under "$WORK/$1.root/dev")"
	check "mounts of the victim" 0 "$(mounts_under "$P" "$1" "$WORK/victim.d")"
	check "victim file" secret "$(cat "$WORK/victim.d/file")"
	check "victim dir" file "$(ls "$WORK/victim.d" | tr '\n' ' ' | tr -d ' ')"
}

refused() { # refused NAME PATTERN (an extended regular expression)
	if start "$1"; then echo "    $1 started"; stop "$1"; return 1; fi
	grep -qE -- "$2" "$P/$1.log" || { echo "    log lacks [$2]"; return 1; }
	host_untouched "$1"
}

# LXC 5.0.2 itself refuses a /dev that is a link before any hook can meet it (its own
# mounts open dev without following links); the hook would refuse it too (open_dev).
LXC_OR_HOOK_DEV='was a symbolic link|Failed to open "/dev"|is not a plain directory inside the rootfs|open /dev/null'

test_hostile_dev_symlink_to_host_dir() {
	hostile_ct hdev
	sed -i '/ dev\/shm \| dev\/mqueue /d' "$P/hdev/config"
	rm -rf "$P/hdev/rootfs/dev"
	ln -s "$WORK/victim.d" "$P/hdev/rootfs/dev"
	refused hdev "$LXC_OR_HOOK_DEV"
	check "nothing created in the victim dir" file "$(ls "$WORK/victim.d" | tr -d ' \n')"
}

test_hostile_node_is_a_directory() {
	hostile_ct hdir
	mkdir "$P/hdir/rootfs/dev/nvidia0"
	refused hdir "/dev/nvidia0 in the container cannot be a mount target"
}

test_hostile_node_is_a_fifo() {
	hostile_ct hfifo
	mkfifo "$P/hfifo/rootfs/dev/nvidia0"
	refused hfifo "/dev/nvidia0 in the container cannot be a mount target"
}

test_hostile_node_is_a_socket() {
	hostile_ct hsock
	"${GP_BUILD:-$GP_TOP/build}/tests/helpers/bind-socket" "$P/hsock/rootfs/dev/nvidia0"
	[ -S "$P/hsock/rootfs/dev/nvidia0" ]
	refused hsock "/dev/nvidia0 in the container cannot be a mount target"
}

test_hostile_node_is_a_mount_point() {
	hostile_ct hmnt
	touch "$P/hmnt/rootfs/dev/nvidia0"
	mount --bind "$WORK/victim.d/file" "$P/hmnt/rootfs/dev/nvidia0"
	if start hmnt; then echo "    started"; stop hmnt; umount "$P/hmnt/rootfs/dev/nvidia0"; return 1; fi
	umount "$P/hmnt/rootfs/dev/nvidia0"
	grep -q "/dev/nvidia0 in the container cannot be a mount target" "$P/hmnt.log"
	host_untouched hmnt
}

test_hostile_symlink_loop() {
	hostile_ct hloop
	ln -s nvidia0 "$P/hloop/rootfs/dev/nvidia0"
	ln -s nvidia-caps "$P/hloop/rootfs/dev/nvidia-caps-loop"
	refused hloop "/dev/nvidia0 in the container cannot be a mount target"
}

test_hostile_caps_dir_symlink() {
	make_root h200-580-open "$WORK/hcap.root"
	new_container "$P" hcap
	sed -i 's/^lxc.autodev = 1/lxc.autodev = 0/' "$P/hcap/config"
	mkdir -p "$P/hcap/rootfs/dev" "$WORK/victim.d"
	echo secret >"$WORK/victim.d/file"
	ln -s "$WORK/victim.d" "$P/hcap/rootfs/dev/nvidia-caps"
	gp --root "$WORK/hcap.root" attach hcap --gpus 0 --caps mig-config >/dev/null
	refused hcap "/dev/nvidia-caps in the container is not a plain directory"
}

# A node the owner left with another number: the hook binds today's over it.
test_hostile_node_with_other_rdev() {
	hostile_ct hrdev
	mknod "$P/hrdev/rootfs/dev/nvidia0" c 1 3
	start hrdev
	check "the right node" "195:0" "$(node_of hrdev /dev/nvidia0)"
	check "open" ENXIO "$(open_result "$P" hrdev /dev/nvidia0)"
	stop hrdev
	check "owner's node left as it was" "1:3" \
		"$(dev_of "$P/hrdev/rootfs/dev/nvidia0")"
	host_untouched hrdev
}

test_hostile_unprivileged_dev_symlink() {
	make_root h200-580-open "$WORK/hun.root"
	new_container "$P" hun unprivileged
	sed -i 's/^lxc.autodev = 1/lxc.autodev = 0/' "$P/hun/config"
	mkdir -p "$WORK/victim.d"
	echo secret >"$WORK/victim.d/file"
	sed -i '/ dev\/shm \| dev\/mqueue /d' "$P/hun/config"
	rm -rf "$P/hun/rootfs/dev"
	ln -s "$WORK/victim.d" "$P/hun/rootfs/dev"
	gp --root "$WORK/hun.root" attach hun --gpus 0 >/dev/null
	refused hun "$LXC_OR_HOOK_DEV"
}

# LD_PRELOAD and LD_LIBRARY_PATH handed to the hook load nothing into it.
test_hook_environment() {
	local evil=$WORK/evil.so headers
	# Read whole before grep -q: under pipefail, grep leaving early could fail the pipe.
	headers=$(readelf -l "${GP_BUILD:-$GP_TOP/build}/gpu-hook")
	if grep -q 'program interpreter' <<<"$headers"; then
		echo "this build's gpu-hook is dynamically linked (make asan): the proof needs the static one"
		return 77
	fi
	cat >"$WORK/evil.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void evil(void)
{
	char exe[256] = "";
	FILE *f = fopen(getenv("EVIL_MARK"), "a");
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (f) {
		fprintf(f, "%.*s\n", (int)(n > 0 ? n : 0), exe);
		fclose(f);
	}
}
EOC
	cc -shared -fPIC -o "$evil" "$WORK/evil.c"
	make_root h200-580-open "$WORK/env.root"
	new_container "$P" envct
	gp --root "$WORK/env.root" attach envct --gpus 0 >/dev/null
	: >"$WORK/evil.mark"
	EVIL_MARK=$WORK/evil.mark LD_PRELOAD=$evil LD_LIBRARY_PATH=$WORK start envct
	check "the hook loaded no preload" 0 "$(count_matching 'gpu-hook' "$WORK/evil.mark")"
	# It did load into programs that honour it, so the preload was really there.
	grep -q . "$WORK/evil.mark"
	check "nodes bound all the same" "195:0" "$(node_of envct /dev/nvidia0)"
	stop envct
	check "gpu-hook has no program interpreter" 0 \
		"$(count_matching 'Requesting program interpreter' <<<"$headers")"
}

# The container's proc a link to a host directory shaped as the driver's (no procfs of its
# own: lxc.mount.auto without proc, and without sys, whose mounts LXC makes through /proc):
# the hook does not mask /proc's GPU list through it (said, not a refusal: LXC 5.0.2 then
# refuses the start itself, as its transient procfs will not follow the link), nothing is
# mounted on the directory or created in it. The rootfs has the sys/fs/cgroup that
# cgroup:mixed mounts on: LXC 6.0 refuses the start before any hook without it.
test_hostile_proc_symlink() {
	hostile_ct hproc
	printf '%s\n' "lxc.mount.auto =" "lxc.mount.auto = cgroup:mixed" >>"$P/hproc/config"
	mkdir -p "$P/hproc/rootfs/sys/fs/cgroup"
	mkdir -p "$WORK/proc.d/driver/nvidia/gpus/0000:01:00.0"
	rm -rf "$P/hproc/rootfs/proc"
	ln -s "$WORK/proc.d" "$P/hproc/rootfs/proc"
	refused hproc "gpus in the container lists every GPU of the host, not only the given ones: it could not be masked \(Too many levels of symbolic links\)"
	check "mounts of the directory" 0 "$(host_mounts_under "$WORK/proc.d")"
	check "its GPU list" "0000:01:00.0" "$(ls "$WORK/proc.d/driver/nvidia/gpus")"
}

# A container's /etc/docker/daemon.json that check reads: a link to a host file, a file
# over the size limit, a FIFO (of a started container too): none is followed, read or waited
# on, and check says so.
test_hostile_check_daemon_json() {
	local d=$P/hdj/rootfs/etc/docker
	make_root h200-580-open "$WORK/hdj.root"
	new_container "$P" hdj
	gp --root "$WORK/hdj.root" attach hdj --gpus 0 >/dev/null
	mkdir -p "$WORK/hdj-victim.d" "$d"
	echo '{"default-runtime": "nvidia"}' >"$WORK/hdj-victim.d/daemon.json"
	ln -s "$WORK/hdj-victim.d/daemon.json" "$d/daemon.json"
	check_json "$WORK/hdj.root" hdj
	check "link: said" 1 "$(count_matching 'a symbolic link is on its path: not followed' "$WORK/check.json")"
	check "link: the host file not read" 0 "$(has_finding docker-default-runtime-missing)"
	rm "$d/daemon.json"
	truncate -s 100M "$d/daemon.json"
	check_json "$WORK/hdj.root" hdj
	check "huge: said" 1 "$(count_matching 'daemon.json: over its size limit' "$WORK/check.json")"
	rm "$d/daemon.json"
	mkfifo "$d/daemon.json"
	check_json "$WORK/hdj.root" hdj
	check "FIFO: said" 1 "$(count_matching 'daemon.json: not a regular file' "$WORK/check.json")"
	# Started: check probes it as well, and its rootfs (a directory) is read as before.
	start hdj
	check_json "$WORK/hdj.root" hdj
	check "FIFO, running: said" 1 "$(count_matching 'daemon.json: not a regular file' "$WORK/check.json")"
	check "FIFO, running: the reader answered" 0 "$(has_finding container-rootfs-unread)"
	stop hdj
	check "victim file" '{"default-runtime": "nvidia"}' "$(cat "$WORK/hdj-victim.d/daemon.json")"
}
