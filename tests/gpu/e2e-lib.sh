# shellcheck shell=bash
# Shared by the GPU host runs (run-h200.sh, run-multi.sh, run-hostile.sh): source from the
# checkout root. A host without LXC gets it from .gpu-e2e/: Debian 12's lxc packages and
# the host-setup.sh that installs them, put there beside the build (not kept in git; the
# kit's fetch-debs.sh with EXTRA_DEBS=libyaml-0-2, which gpu-provision loads and the GPU
# host lacks; run-nested.sh needs tests/gpu/fetch-nested.sh's packages too). It
# runs host-setup.sh, makes sure containers find libcuda through
# the bound ld.so.cache, and gives mkct (a busybox container with the host's /usr), run_in,
# and the assertions: expect and its kin count each step's outcome; at exit a line
# "N passed, N failed", and the exit code is 1 when any failed.
set -uo pipefail

e2e_passed=0
e2e_failed=0
e2e_failures=""

expect() { # expect DESCRIPTION EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		e2e_passed=$((e2e_passed + 1))
		echo "  ok: $1"
	else
		e2e_failed=$((e2e_failed + 1))
		e2e_failures="$e2e_failures
  $1"
		echo "  FAILED: $1: expected [$2], got [$3]"
	fi
}

# expect_grep DESCRIPTION ERE TEXT: some line of TEXT matches ERE.
expect_grep() {
	expect "$1" yes "$(grep -qE -- "$2" <<<"$3" && echo yes || echo no)"
}

# expect_count DESCRIPTION N ERE TEXT: exactly N lines of TEXT match ERE.
expect_count() {
	local n
	n=$(grep -cE -- "$3" <<<"$4") || [ "$n" = 0 ]
	expect "$1" "$2" "$n"
}

# expect_within DESCRIPTION MS-LIMIT MS: a promised bound (the probe's deadline + 1 s).
expect_within() {
	expect "$1 (${3} ms, limit $2 ms)" yes "$([ "$3" -le "$2" ] && echo yes || echo no)"
}

# step CMD...: runs CMD, shows its output (stdout and stderr), keeps it in $out and its
# exit code in $rc.
step() {
	rc=0
	out=$("$@" 2>&1) || rc=$?
	[ -z "$out" ] || printf '%s\n' "$out"
}

ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

e2e_summary() {
	local rc=$?
	echo
	echo "$e2e_passed passed, $e2e_failed failed"
	[ "$e2e_failed" -eq 0 ] || { echo "failed:$e2e_failures"; exit 1; }
	exit "$rc"
}
trap e2e_summary EXIT
top=$(pwd)
GP=$top/build/gpu-provision
# attach writes only a gpu-hook that no one but root can change: where the checkout is not
# such a place, the binaries go to a root-owned directory first (tests/lib.sh).
. "$top/tests/lib.sh"
use_trusted_install || exit 1
P=/var/lib/gpu-e2e-lxc
CONF=/tmp/gpu-e2e-conf
say() { printf '\n== %s\n' "$*"; }

bash .gpu-e2e/host-setup.sh >/tmp/host-setup.log 2>&1 || { cat /tmp/host-setup.log; exit 1; }
rm -rf "$P" "$CONF"; mkdir -p "$P" "$CONF"
# mkct's containers see the host's /usr, driver included: they are given no other copy
# unless a run asks (run-inject.sh: attach --inject).
printf '[driver]\ninject = no\n' >"$CONF/gpu-provision.conf"
# The containers find libcuda through the host's ld.so.cache (bound in); make sure the
# cache lists the directory this host loads it from, not only LD_LIBRARY_PATH.
if ! ldconfig -p | grep -q 'libcuda.so.1 '; then
	for d in ${LD_LIBRARY_PATH//:/ } /usr/local/nvidia/lib64; do
		[ -e "$d/libcuda.so.1" ] && { echo "$d" >/etc/ld.so.conf.d/gpu-e2e-nvidia.conf; break; }
	done
	ldconfig
fi
ldconfig -p | grep 'libcuda.so.1 ' || { echo "no libcuda.so.1 in the ld.so.cache"; exit 1; }

mkct() { # mkct NAME: a busybox root with the host's /usr bound read-only
	local n=$1
	mkdir -p "$P/$n"
	gpu-e2e-rootfs "$P/$n/rootfs"
	cp "$top/build/cuinit" "$P/$n/rootfs/bin/cuinit"
	cat >"$P/$n/config" <<EOC
lxc.uts.name = $n
lxc.rootfs.path = dir:$P/$n/rootfs
lxc.net.0.type = empty
lxc.include = /usr/share/lxc/config/common.conf
lxc.apparmor.profile = unconfined
lxc.autodev = 1
lxc.init.cmd = /bin/sleep 100000
lxc.mount.entry = /usr usr none ro,rbind 0 0
lxc.mount.entry = /etc/ld.so.cache etc/ld.so.cache none ro,bind,create=file 0 0
EOC
}
run_in() { lxc-attach -P "$P" -n "$1" --clear-env -- "${@:2}"; }

# gpu_table: "INDEX MINOR PCI UUID" per GPU, as gpu-provision host --json gives them.
gpu_table() {
	"$GP" host --json | tr -d ' \n' |
		grep -o '"index":[0-9]*,"minor":[0-9]*,"pci":"[^"]*","uuid":"[^"]*"' |
		sed 's/"index":\([0-9]*\),"minor":\([0-9]*\),"pci":"\([^"]*\)","uuid":"\([^"]*\)"/\1 \2 \3 \4/'
}

# major NAME: the character major of NAME in /proc/devices.
major() { awk -v n="$1" '$2 == n {print $1}' /proc/devices; }

