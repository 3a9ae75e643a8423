# Shell helpers shared by the integration tests, the demo and the benchmark. Source it.
# Containers live in a private lxcpath; host driver files come from a fixture root.

GP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GP=${GP_BUILD:-$GP_TOP/build}/gpu-provision
GP_FIXTURES=$GP_TOP/tests/fixtures

# path_is_trusted PATH: PATH and every directory above it are root's and not writable by
# group or others, as attach wants of the gpu-hook it writes into configs.
path_is_trusted() {
	local p uid mode
	p=$(realpath -e "$1") || return 1
	while :; do
		read -r uid mode < <(stat -c '%u %a' "$p") || return 1
		[ "$uid" = 0 ] && [ $((8#$mode & 8#022)) = 0 ] || return 1
		[ "$p" = / ] && return 0
		p=$(dirname "$p")
	done
}

# path_is_reachable PATH: every directory above PATH lets others through (o+x): an
# unprivileged container's hooks run as its mapped root, which is "others" on the host.
path_is_reachable() {
	local p
	p=$(realpath -e "$1") || return 1
	p=$(dirname "$p")
	while :; do
		[ $((8#$(stat -c '%a' "$p") & 8#001)) = 1 ] || return 1
		[ "$p" = / ] && return 0
		p=$(dirname "$p")
	done
}

# use_trusted_install: when the build tree fails that rule (a clone under /tmp, a home),
# or an unprivileged container's hook could not reach it (a clone under /root, mode 0700),
# install the binaries into a fresh root-owned directory under /var/lib, all three side by
# side (gpu-provision finds gpu-hook and gpu-probe beside itself, as in a build tree), and
# point GP there. GP_INSTALLED names that directory (empty when the build tree is used);
# the caller removes it.
use_trusted_install() {
	local build
	build=$(dirname "$GP")
	GP_INSTALLED=
	path_is_trusted "$build/gpu-hook" && path_is_reachable "$build/gpu-hook" && return 0
	path_is_trusted /var/lib || { echo "no root-owned place to install the binaries" >&2; return 1; }
	GP_INSTALLED=$(mktemp -d /var/lib/gp-test-bin.XXXXXX)
	chmod 0755 "$GP_INSTALLED"
	install -m 0755 "$build/gpu-provision" "$build/gpu-hook" "$build/gpu-probe" "$GP_INSTALLED/"
	GP=$GP_INSTALLED/gpu-provision
}

# dev_of PATH: a device node's "major:minor" in decimal. stat's %t:%T are hex, and only
# some awks read hex strings (gawk and bookworm's mawk; trixie's mawk reads 0xee as 0):
# bash's printf converts them.
dev_of() {
	local t
	t=$(stat -c '%t:%T' "$1") || return 1
	printf '%d:%d\n' "0x${t%%:*}" "0x${t##*:}"
}

# make_root FIXTURE DIR: a scratch copy of a fixture with its device nodes made by mknod.
make_root() {
	local fixture=$1 dir=$2 path type major minor mode uid gid
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	cp -a "$GP_FIXTURES/$fixture" "$dir"
	chmod 755 "$dir"
	while read -r path type major minor mode uid gid; do
		[ -n "$path" ] || continue
		mkdir -p "$dir/$(dirname "$path")"
		mknod -m "$mode" "$dir/$path" "$type" "$major" "$minor"
		chown "$uid:$gid" "$dir/$path"
	done < "$dir/dev-nodes.txt"
	# The root stands for this machine with the fixture's GPUs: real containers start
	# here, so it has this machine's cgroup layout, not the capture's.
	mkdir -p "$dir/proc/self"
	cat /proc/self/mountinfo >"$dir/proc/self/mountinfo"
}

# ensure_subids: root may map 100000-165535, as on Proxmox VE; LXC needs it where newuidmap
# is installed (without it, root writes the maps itself).
ensure_subids() {
	local f
	for f in /etc/subuid /etc/subgid; do
		grep -qx 'root:100000:65536' "$f" 2>/dev/null || echo 'root:100000:65536' >>"$f"
	done
}

# new_container LXCPATH NAME [unprivileged]: a busybox container with no network that
# includes LXC's common.conf (deny all devices, allow mknod), as a real distro config does.
new_container() {
	local lxcpath=$1 name=$2 mode=${3:-privileged} cfg
	lxc-create -P "$lxcpath" -n "$name" -t busybox >"$lxcpath/$name.create.log" 2>&1 || {
		cat "$lxcpath/$name.create.log" >&2
		return 1
	}
	cfg=$lxcpath/$name/config
	sed -i -e 's/^lxc.net.0.type = .*/lxc.net.0.type = empty/' \
		-e '/^lxc.net.0.link/d' -e '/^lxc.net.0.flags/d' "$cfg"
	echo "lxc.include = /usr/share/lxc/config/common.conf" >>"$cfg"
	if [ "$mode" = unprivileged ]; then
		ensure_subids
		printf '%s\n' "lxc.idmap = u 0 100000 65536" "lxc.idmap = g 0 100000 65536" >>"$cfg"
		chown -R 100000:100000 "$lxcpath/$name/rootfs"
		chmod 755 "$lxcpath/$name"
	fi
}

# in_ct LXCPATH NAME CMD...: runs a shell command inside the running container.
in_ct() {
	local lxcpath=$1 name=$2
	shift 2
	lxc-attach -P "$lxcpath" -n "$name" --clear-env -- /bin/sh -c "$*"
}

# open_result LXCPATH NAME NODE: what open(O_RDWR) of NODE says inside ("ok" or the error).
open_result() {
	local out
	out=$(in_ct "$1" "$2" "exec 3<>$3" 2>&1) && { echo ok; return; }
	case "$out" in
	*"Operation not permitted"*) echo EPERM ;;
	*"No such device or address"*) echo ENXIO ;;
	*"No such device"*) echo ENODEV ;;
	*"No such file"*) echo ENOENT ;;
	*"Permission denied"*) echo EACCES ;;
	*) echo "other: $out" ;;
	esac
}

# count_matching GREP-ARGS...: grep -c, except that no matching line is the count 0 and
# not a failure; grep's own errors (exit 2: a file it cannot read) still fail.
count_matching() {
	local rc=0
	grep -c "$@" || rc=$?
	[ "$rc" -le 1 ]
}

# host_mounts_under DIR: how many host mounts have DIR in their source or target.
host_mounts_under() {
	count_matching -- "$1" /proc/self/mountinfo
}

# mounts_under LXCPATH NAME DIR: host_mounts_under DIR, and the mounts of DIR in the
# container's own mount namespace while it runs (a mount made there never shows on the host).
mounts_under() {
	local pid n
	n=$(host_mounts_under "$3")
	pid=$(lxc-info -P "$1" -n "$2" -pH 2>/dev/null || true)
	[ -z "$pid" ] || n=$((n + $(count_matching -- "$3" "/proc/$pid/mountinfo")))
	echo "$n"
}

# add_fake_cuda LXCPATH NAME VERSION: the test double of libcuda.so.1, as the file
# libcuda.so.VERSION in the container's /opt/fakecuda, found through an ld.so.cache made
# for the rootfs. Its behaviour comes from the container's /etc/fake-cuda (set_fake_cuda).
add_fake_cuda() {
	local root=$1/$2/rootfs version=$3
	mkdir -p "$root/opt/fakecuda"
	rm -f "$root"/opt/fakecuda/libcuda.so*
	cp "${GP_BUILD:-$GP_TOP/build}/tests/fakecuda/libcuda.so" "$root/opt/fakecuda/libcuda.so.$version"
	echo /opt/fakecuda >"$root/etc/ld.so.conf"
	ldconfig -r "$root"
}

# add_fake_deep LXCPATH NAME VERSION [--without LIB]...: the test doubles gpu-probe --deep
# loads (tests/fakecuda, tests/fakedriver) in the container's /opt/fakecuda, as add_fake_cuda
# puts libcuda: libcuda, libnvidia-ml, libnvcuvid and libnvidia-encode as LIB.so.VERSION,
# the Vulkan loader as libvulkan.so.1 (its version is not the driver's). Each --without LIB
# (libnvcuvid, say) leaves that one out. Their behaviour: set_fake_cuda.
add_fake_deep() {
	local root=$1/$2/rootfs config=$1/$2/config version=$3 build=${GP_BUILD:-$GP_TOP/build}/tests
	local libs=" libcuda libnvidia-ml libnvcuvid libnvidia-encode libvulkan " lib src dst
	shift 3
	while [ $# -gt 0 ]; do
		if [ "$1" != --without ] || [[ $libs != *" ${2:-} "* ]]; then
			echo "add_fake_deep: \"$*\": want --without LIB, LIB one of${libs% }" >&2
			return 2
		fi
		libs=${libs/ $2 / }
		shift 2
	done
	mkdir -p "$root/opt/fakecuda"
	rm -f "$root"/opt/fakecuda/lib{cuda,nvidia-ml,nvcuvid,nvidia-encode,vulkan}.so*
	for lib in $libs; do
		src=$build/fakedriver/$lib.so dst=$lib.so.$version
		[ "$lib" = libcuda ] && src=$build/fakecuda/libcuda.so
		[ "$lib" = libvulkan ] && dst=libvulkan.so.1
		cp "$src" "$root/opt/fakecuda/$dst"
	done
	echo /opt/fakecuda >"$root/etc/ld.so.conf"
	ldconfig -r "$root"
	hide_host_vulkan "$config" "$libs"
}

# hide_host_vulkan CONFIG LIBS: the host's own Vulkan loader (libvulkan1, which the build's
# libvulkan-dev brings) reaches a busybox container through the template's binds of /lib
# and /usr/lib: where LIBS gives none of ours, the container meets /dev/null in its place
# under both, so the loader is absent there as on a host without one.
hide_host_vulkan() {
	local f dir
	sed -i '\|^lxc.mount.entry = /dev/null .*libvulkan|d' "$1"
	[[ $2 != *" libvulkan "* ]] || return 0
	f=$(readlink -f /usr/lib/x86_64-linux-gnu/libvulkan.so.1 2>/dev/null) || return 0
	[ -e "$f" ] || return 0
	for dir in lib usr/lib; do
		echo "lxc.mount.entry = /dev/null $dir/${f#/usr/lib/} none bind,ro 0 0" >>"$1"
	done
}

# add_host_userspace ROOT VERSION: a driver user space made under a --root, of test doubles
# (tests/fakecuda, tests/fakedriver): libcuda and libnvidia-ml as the files .so.VERSION,
# nvidia-smi in usr/bin, and the cache ldconfig -r writes for them.
add_host_userspace() {
	local root=$1 version=$2 build=${GP_BUILD:-$GP_TOP/build}/tests
	local lib=$root/usr/lib/x86_64-linux-gnu
	mkdir -p "$lib" "$root/usr/bin" "$root/etc"
	rm -f "$lib"/libcuda.so* "$lib"/libnvidia-ml.so*
	cp "$build/fakecuda/libcuda.so" "$lib/libcuda.so.$version"
	cp "$build/fakedriver/libnvidia-ml.so" "$lib/libnvidia-ml.so.$version"
	install -m 0755 "$build/fakedriver/nvidia-smi" "$root/usr/bin/nvidia-smi"
	echo /usr/lib/x86_64-linux-gnu >"$root/etc/ld.so.conf"
	ldconfig -r "$root"
}

# set_fake_cuda LXCPATH NAME LINES...: what the double does (see tests/fakecuda/libcuda.c).
set_fake_cuda() {
	local root=$1/$2/rootfs
	shift 2
	printf '%s\n' "$@" >"$root/etc/fake-cuda"
}

# A test's checks, for the suites that run tests (tests/integration, tests/cluster).
check() { # check DESCRIPTION EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then return 0; fi
	echo "    $1: expected [$2], got [$3]"
	return 1
}

# on_err COMMAND: a test's ERR trap; names the command whose failure ends the test. Not
# inside a $(...) (where a failure is the substitution's business: grep -c finding nothing)
# nor for "return N" (the function that returned said why, as check does).
on_err() {
	local rc=$?
	if [ "$BASH_SUBSHELL" -le 1 ] && [ "${1%% *}" != return ]; then
		echo "    failed (exit $rc): $1"
	fi
}

# run_isolated NAME: runs the test function NAME in a subshell, its output into $WORK/NAME.out,
# and returns its exit status. -e: a failing command or check ends the test, and the ERR trap
# (-E: in functions too) names it; pipefail: a pipe fails when any of its commands does, not
# only the last (gp ... | grep -q would otherwise hide gp's exit). Call it as a command of its
# own, then read $?: under ||, && or if, bash ignores -e in all it runs, the subshell's own
# set -e too, and a test would pass whenever its last command does (runner_can_fail sees it).
run_isolated() {
	(
		set -eE -o pipefail
		trap 'on_err "$BASH_COMMAND"' ERR
		"$1"
	) >"$WORK/$1.out" 2>&1
}

# runner_can_fail: a test whose first command fails and whose last succeeds must fail through
# run_test; exits 2 where it passes, before any real test can pass that way.
runner_fails_midway() {
	false
	true
}
runner_can_fail() {
	run_isolated runner_fails_midway
	if [ $? -eq 0 ]; then
		echo "tests: a failing command did not end a test: run_isolated must run as a command of its own" >&2
		exit 2
	fi
	rm -f "$WORK/runner_fails_midway.out"
}

# report_test NAME RC: says "ok", "skip" (RC 77, with the output's last line) or "not ok"
# (with the output's last 30 lines) for test NAME, and counts it in passed, skipped, failed
# and failures.
report_test() {
	if [ "$2" -eq 0 ]; then
		echo "ok - $1"
		passed=$((passed + 1))
	elif [ "$2" -eq 77 ]; then
		echo "skip - $1: $(tail -1 "$WORK/$1.out")"
		skipped=$((skipped + 1))
	else
		echo "not ok - $1"
		sed 's/^/    /' "$WORK/$1.out" | tail -30
		failed=$((failed + 1))
		failures="$failures $1"
	fi
}
