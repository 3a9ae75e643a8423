# shellcheck shell=bash
# A running container's own mounts that never answer, against check: a FUSE server of the
# test's own (tests/helpers/stallfs.c: it answers INIT and GETATTR of its root, never a
# LOOKUP) mounted in the container's mount namespace, as its root could; a FIFO, and links
# into /proc and /dev, as its loader cache. Privileged containers on an overlay rootfs, so
# that check reads them through their init (/proc/PID/root), as on Proxmox VE. The FUSE
# server is killed only at the end, so that a process of ours stuck on it would be seen.
# Sourced by run.sh.

STALLFS=${GP_BUILD:-$GP_TOP/build}/tests/helpers/stallfs
STALL_PIDS=""

# stall_ct NAME [INIT]: a privileged busybox container on an overlay rootfs, attached to
# GPU 0 of the H200 fixture; INIT, when given, is its lxc.init.cmd.
stall_ct() {
	local name=$1 cfg=$P/$1/config
	make_root h200-580-open "$WORK/$name.root"
	new_container "$P" "$name"
	mkdir -p "$P/$name/delta0"
	sed -i "s|^lxc.rootfs.path = .*|lxc.rootfs.path = overlay:$P/$name/rootfs:$P/$name/delta0|" "$cfg"
	[ -z "${2:-}" ] || echo "lxc.init.cmd = $2" >>"$cfg"
	gp --root "$WORK/$name.root" attach "$name" --gpus 0 >/dev/null
}

stall_pid() { lxc-info -P "$P" -n "$1" -pH; }

# stall_mount NAME DIR: the stalling FUSE server mounted at DIR in NAME's mount namespace.
stall_mount() {
	local name=$1 dir=$2 pid
	pid=$(stall_pid "$name")
	"$STALLFS" --ns "$pid" "$dir" >"$WORK/$name.stallfs" 2>&1 &
	STALL_PIDS="$STALL_PIDS $!"
	for _ in $(seq 50); do
		grep -qx ready "$WORK/$name.stallfs" && return 0
		sleep 0.1
	done
	echo "    stallfs did not mount: $(cat "$WORK/$name.stallfs")"
	return 1
}

# stall_kill: every stalling server ends, and with it whatever waited on one.
stall_kill() {
	local p
	for p in $STALL_PIDS; do kill "$p" 2>/dev/null || true; done
	for p in $STALL_PIDS; do wait "$p" 2>/dev/null || true; done
	STALL_PIDS=""
}

# stall_ours_left NAME: the processes of ours still running for NAME's root (check and its
# children carry "--root $WORK/NAME.root" in their command line), with their states.
stall_ours_left() {
	local p
	for p in $(pgrep -f -- "--root $WORK/$1.root" || true); do
		echo "$p $(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null)"
	done
}

# stall_proven NAME PATH: a lookup of PATH in NAME's namespace is stuck in the kernel (state D
# once killed): the mount really never answers, so the rest of the test can fail.
stall_proven() {
	local pid state
	stat "/proc/$(stall_pid "$1")/root$2" >/dev/null 2>&1 &
	pid=$!
	sleep 1
	kill -KILL "$pid"
	sleep 1
	state=$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null || echo gone)
	check "a lookup on the stalled mount" D "$state"
}

# stall_check NAME: check NAME --json into $WORK/check.json, its probe given 2 s (the
# probe runs the container's own loader, which may wait on the container's mount); its exit
# in crc, its seconds in secs.
stall_check() {
	local t0
	t0=$(date +%s)
	crc=0
	timeout -k 5 60 "$GP" --confdir "$CONF" --lxcpath "$P" --root "$WORK/$1.root" check "$1" \
		--json --timeout 2 >"$WORK/check.json" || crc=$?
	secs=$(($(date +%s) - t0))
}

# stall_root_fstype PID: the type of the mount PID's root is on, as its mountinfo shows it.
stall_root_fstype() { grep ' / / ' "/proc/$1/mountinfo" | tail -1 | sed 's/.* - //' | cut -d' ' -f1; }

stall_finding() { jq -r ".containers[].findings[] | select(.id == \"$1\") | .$2" "$WORK/check.json"; }

# The loader cache names a library in a directory on the container's stalled mount: check
# does not walk into it, says so, and leaves nothing behind.
test_check_stalled_mount_not_entered() {
	local d=$WORK/sf.cache pid
	stall_ct sf
	start sf
	pid=$(stall_pid sf)
	mkdir -p "$d/mnt/f/lib" "$d/etc"
	cp "${GP_BUILD:-$GP_TOP/build}/tests/fakecuda/libcuda.so" "$d/mnt/f/lib/libcuda.so.575.51.02"
	echo /mnt/f/lib >"$d/etc/ld.so.conf"
	ldconfig -r "$d"
	cp "$d/etc/ld.so.cache" "/proc/$pid/root/etc/ld.so.cache"
	mkdir -p "/proc/$pid/root/mnt/f"
	stall_mount sf /mnt/f
	stall_check sf
	check "check's exit" 1 "$crc"
	check "returned by the probe's deadline" yes "$([ "$secs" -lt 10 ] && echo yes)"
	check "what was not followed" "/proc/$pid/root: the container's /etc/ld.so.cache names /mnt/f/lib/libcuda.so.1" \
		"$(stall_finding container-libraries-unfollowed evidence)"
	check "left behind" "" "$(stall_ours_left sf)"
	stall_proven sf /mnt/f/lib
	stall_kill
	stop sf
}

# The container's init chrooted into its own FUSE mount: its root is that mount, and
# check does not read it at all.
test_check_root_on_a_stalled_mount() {
	local pid
	stall_ct sr "/bin/sh /stall-init"
	cat >"$P/sr/rootfs/stall-init" <<-'EOF'
		mkdir -p /mnt/f
		while ! grep -q " /mnt/f " /proc/self/mountinfo; do sleep 0.1; done
		exec chroot /mnt/f /sbin/init
	EOF
	start sr
	pid=$(stall_pid sr)
	stall_mount sr /mnt/f
	for _ in $(seq 50); do
		[ "$(stall_root_fstype "$pid")" = fuse.stallfs ] && break
		sleep 0.1
	done
	check "the mount of init's root" fuse.stallfs "$(stall_root_fstype "$pid")"
	stall_check sr
	check "returned at once" yes "$([ "$secs" -lt 5 ] && echo yes)"
	check "what was not read" "sr's loader cache and C library were not read" \
		"$(stall_finding container-rootfs-unread summary)"
	stall_finding container-rootfs-unread evidence | grep -qF "its root is on a FUSE filesystem (fuse.stallfs)"
	check "left behind" "" "$(stall_ours_left sr)"
	stall_proven sr /sbin
	stall_kill
	stop sr
}

# The container's init chrooted into an overlay over its own FUSE mount: the root's mount is
# an overlay, so the reader is sent, and waits in the kernel past its deadline. check says
# so naming it; a second check sends no second reader while the first waits; once the
# server is gone, nothing of ours is left.
test_check_root_on_an_overlay_of_a_stalled_mount() {
	local pid left
	stall_ct so "/bin/sh /stall-init"
	mkdir -p "$P/so/rootfs/empty" "$P/so/rootfs/ovl"
	cat >"$P/so/rootfs/stall-init" <<-'EOF'
		mkdir -p /mnt/f
		while ! grep -q " /ovl " /proc/self/mountinfo; do sleep 0.1; done
		exec chroot /ovl /sbin/init
	EOF
	start so
	pid=$(stall_pid so)
	stall_mount so /mnt/f
	nsenter -t "$pid" -m mount -t overlay none -o lowerdir=/empty:/mnt/f /ovl
	for _ in $(seq 50); do
		grep ' / / ' "/proc/$pid/mountinfo" | grep -q 'lowerdir=/empty:/mnt/f' && break
		sleep 0.1
	done
	check "init's root, the overlay over the stalled mount" 1 \
		"$(grep ' / / ' "/proc/$pid/mountinfo" | grep -c 'lowerdir=/empty:/mnt/f')"
	stall_check so
	check "returned by the deadlines" yes "$([ "$secs" -lt 15 ] && echo yes)"
	stall_finding container-rootfs-unread evidence | grep -qE "did not answer within 5 s .*the reader, pid [0-9]+, waits in the kernel" ||
		{ echo "    evidence: $(stall_finding container-rootfs-unread evidence)"; return 1; }
	left=$(stall_ours_left so)
	check "one reader left, in the kernel" "1 D" "$(echo "$left" | wc -l) $(echo "$left" | cut -d' ' -f2)"
	stall_check so
	check "the second check, at once" yes "$([ "$secs" -lt 5 ] && echo yes)"
	stall_finding container-rootfs-unread evidence | grep -qF "the reader an earlier check left, pid ${left%% *}, still waits" ||
		{ echo "    second evidence: $(stall_finding container-rootfs-unread evidence)"; return 1; }
	check "still one reader" "$left" "$(stall_ours_left so)"
	stall_kill
	sleep 1
	check "left once the server is gone" "" "$(stall_ours_left so)"
	stop so
}

# A FIFO, a link into /proc and a link into /dev as the running container's loader cache:
# none is opened, each is said.
test_check_cache_fifo_and_links() {
	local pid link
	stall_ct sc
	start sc
	pid=$(stall_pid sc)
	rm -f "/proc/$pid/root/etc/ld.so.cache"
	mkfifo "/proc/$pid/root/etc/ld.so.cache"
	stall_check sc
	stall_finding container-rootfs-unread evidence | grep -qF "/etc/ld.so.cache\" is not a regular file: not read" ||
		{ echo "    fifo: $(stall_finding container-rootfs-unread evidence)"; return 1; }
	check "fifo, at once" yes "$([ "$secs" -lt 5 ] && echo yes)"
	for link in /proc/kmsg /dev/zero; do
		rm -f "/proc/$pid/root/etc/ld.so.cache"
		ln -s "$link" "/proc/$pid/root/etc/ld.so.cache"
		stall_check sc
		stall_finding container-rootfs-unread evidence | grep -qF "Invalid cross-device link" ||
			{ echo "    $link: $(stall_finding container-rootfs-unread evidence)"; return 1; }
		check "$link, at once" yes "$([ "$secs" -lt 5 ] && echo yes)"
	done
	check "left behind" "" "$(stall_ours_left sc)"
	stop sc
}
