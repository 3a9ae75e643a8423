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

# overlay_ct NAME [INIT]: a privileged busybox container on an overlay rootfs, attached to
# GPU 0 of the H200 fixture; INIT, when given, is its lxc.init.cmd.
overlay_ct() {
	local name=$1 cfg=$P/$1/config
	make_root h200-580-open "$WORK/$name.root"
	new_container "$P" "$name"
	mkdir -p "$P/$name/delta0"
	sed -i "s|^lxc.rootfs.path = .*|lxc.rootfs.path = overlay:$P/$name/rootfs:$P/$name/delta0|" "$cfg"
	[ -z "${2:-}" ] || echo "lxc.init.cmd = $2" >>"$cfg"
	gp --root "$WORK/$name.root" attach "$name" --gpus 0 >/dev/null
}

ct_pid() { lxc-info -P "$P" -n "$1" -pH; }

# stall_mount NAME DIR: the stalling FUSE server mounted at DIR in NAME's mount namespace.
stall_mount() {
	local name=$1 dir=$2 pid
	pid=$(ct_pid "$name")
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

# ours_left NAME: the processes of ours still running for NAME's root (check and its
# children carry "--root $WORK/NAME.root" in their command line), with their states.
ours_left() {
	local p
	for p in $(pgrep -f -- "--root $WORK/$1.root" || true); do
		echo "$p $(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null)"
	done
}

# stalls NAME PATH: a lookup of PATH in NAME's namespace is stuck in the kernel (state D
# once killed): the mount really never answers, so the rest of the test can fail.
stalls() {
	local pid state
	stat "/proc/$(ct_pid "$1")/root$2" >/dev/null 2>&1 &
	pid=$!
	sleep 1
	kill -KILL "$pid"
	sleep 1
	state=$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null || echo gone)
	check "a lookup on the stalled mount" D "$state"
}

# timed_check NAME: check NAME --json into $WORK/check.json, its probe given 2 s (the
# probe runs the container's own loader, which may wait on the container's mount); its exit
# in crc, its seconds in secs.
timed_check() {
	local t0
	t0=$(date +%s)
	crc=0
	timeout -k 5 60 "$GP" --confdir "$CONF" --lxcpath "$P" --root "$WORK/$1.root" check "$1" \
		--json --timeout 2 >"$WORK/check.json" || crc=$?
	secs=$(($(date +%s) - t0))
}

# root_fstype PID: the type of the mount PID's root is on, as its mountinfo shows it.
root_fstype() { grep ' / / ' "/proc/$1/mountinfo" | tail -1 | sed 's/.* - //' | cut -d' ' -f1; }

finding_of() { jq -r ".containers[].findings[] | select(.id == \"$1\") | .$2" "$WORK/check.json"; }

# The loader cache names a library in a directory on the container's stalled mount: check
# does not walk into it, says so, and leaves nothing behind.
test_check_stalled_mount_not_entered() {
	local d=$WORK/sf.cache pid
	overlay_ct sf
	start sf
	pid=$(ct_pid sf)
	mkdir -p "$d/mnt/f/lib" "$d/etc"
	cp "${GP_BUILD:-$GP_TOP/build}/tests/fakecuda/libcuda.so" "$d/mnt/f/lib/libcuda.so.575.51.02"
	echo /mnt/f/lib >"$d/etc/ld.so.conf"
	ldconfig -r "$d"
	cp "$d/etc/ld.so.cache" "/proc/$pid/root/etc/ld.so.cache"
	mkdir -p "/proc/$pid/root/mnt/f"
	stall_mount sf /mnt/f
	timed_check sf
	check "check's exit" 1 "$crc"
	check "returned by the probe's deadline" yes "$([ "$secs" -lt 10 ] && echo yes)"
	check "what was not followed" "/proc/$pid/root: the container's /etc/ld.so.cache names /mnt/f/lib/libcuda.so.1" \
		"$(finding_of container-libraries-unfollowed evidence)"
	check "left behind" "" "$(ours_left sf)"
	stalls sf /mnt/f/lib
	stall_kill
	stop sf
}

# The container's init chrooted into its own FUSE mount: its root is that mount, and
# check does not read it at all.
test_check_root_on_a_stalled_mount() {
	local pid
	overlay_ct sr "/bin/sh /stall-init"
	cat >"$P/sr/rootfs/stall-init" <<-'EOF'
		mkdir -p /mnt/f
		while ! grep -q " /mnt/f " /proc/self/mountinfo; do sleep 0.1; done
		exec chroot /mnt/f /sbin/init
	EOF
	start sr
	pid=$(ct_pid sr)
	stall_mount sr /mnt/f
	for _ in $(seq 50); do
		[ "$(root_fstype "$pid")" = fuse.stallfs ] && break
		sleep 0.1
	done
	check "the mount of init's root" fuse.stallfs "$(root_fstype "$pid")"
	timed_check sr
	check "returned at once" yes "$([ "$secs" -lt 5 ] && echo yes)"
	check "what was not read" "sr's loader cache and C library were not read" \
		"$(finding_of container-rootfs-unread summary)"
	finding_of container-rootfs-unread evidence | grep -qF "its root is on a FUSE filesystem (fuse.stallfs)"
	check "left behind" "" "$(ours_left sr)"
	stalls sr /sbin
	stall_kill
	stop sr
}

# The container's init chrooted into an overlay over its own FUSE mount: the root's mount is
# an overlay, so the reader is sent, and waits in the kernel past its deadline. check says
# so naming it; a second check sends no second reader while the first waits; once the
# server is gone, nothing of ours is left.
test_check_root_on_an_overlay_of_a_stalled_mount() {
	local pid left
	overlay_ct so "/bin/sh /stall-init"
	mkdir -p "$P/so/rootfs/empty" "$P/so/rootfs/ovl"
	cat >"$P/so/rootfs/stall-init" <<-'EOF'
		mkdir -p /mnt/f
		while ! grep -q " /ovl " /proc/self/mountinfo; do sleep 0.1; done
		exec chroot /ovl /sbin/init
	EOF
	start so
	pid=$(ct_pid so)
	stall_mount so /mnt/f
	nsenter -t "$pid" -m mount -t overlay none -o lowerdir=/empty:/mnt/f /ovl
	for _ in $(seq 50); do
		grep ' / / ' "/proc/$pid/mountinfo" | grep -q 'lowerdir=/empty:/mnt/f' && break
		sleep 0.1
	done
	check "init's root, the overlay over the stalled mount" 1 \
		"$(grep ' / / ' "/proc/$pid/mountinfo" | grep -c 'lowerdir=/empty:/mnt/f')"
	timed_check so
	check "returned by the deadlines" yes "$([ "$secs" -lt 15 ] && echo yes)"
	finding_of container-rootfs-unread evidence | grep -qE "did not answer within 5 s .*the reader, pid [0-9]+, waits in the kernel" ||
		{ echo "    evidence: $(finding_of container-rootfs-unread evidence)"; return 1; }
	left=$(ours_left so)
	check "one reader left, in the kernel" "1 D" "$(echo "$left" | wc -l) $(echo "$left" | cut -d' ' -f2)"
	timed_check so
	check "the second check, at once" yes "$([ "$secs" -lt 5 ] && echo yes)"
	finding_of container-rootfs-unread evidence | grep -qF "the reader an earlier check left, pid ${left%% *}, still waits" ||
		{ echo "    second evidence: $(finding_of container-rootfs-unread evidence)"; return 1; }
	check "still one reader" "$left" "$(ours_left so)"
	stall_kill
	sleep 1
	check "left once the server is gone" "" "$(ours_left so)"
	stop so
}

# A FIFO, a link into /proc and a link into /dev as the running container's loader cache:
# none is opened, each is said.
test_check_cache_fifo_and_links() {
	local pid link
	overlay_ct sc
	start sc
	pid=$(ct_pid sc)
	rm -f "/proc/$pid/root/etc/ld.so.cache"
	mkfifo "/proc/$pid/root/etc/ld.so.cache"
	timed_check sc
	finding_of container-rootfs-unread evidence | grep -qF "/etc/ld.so.cache\" is not a regular file: not read" ||
		{ echo "    fifo: $(finding_of container-rootfs-unread evidence)"; return 1; }
	check "fifo, at once" yes "$([ "$secs" -lt 5 ] && echo yes)"
	for link in /proc/kmsg /dev/zero; do
		rm -f "/proc/$pid/root/etc/ld.so.cache"
		ln -s "$link" "/proc/$pid/root/etc/ld.so.cache"
		timed_check sc
		finding_of container-rootfs-unread evidence | grep -qF "Invalid cross-device link" ||
			{ echo "    $link: $(finding_of container-rootfs-unread evidence)"; return 1; }
		check "$link, at once" yes "$([ "$secs" -lt 5 ] && echo yes)"
	done
	check "left behind" "" "$(ours_left sc)"
	stop sc
}
