#!/bin/bash
# Integration tests: real LXC containers (busybox template) given GPUs from fixture roots.
# Run as root. Each test prints "ok" or "not ok"; the last line counts them.
set -u
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "integration: must run as root (sudo make check)" >&2
	exit 1
fi
command -v lxc-start >/dev/null || { echo "integration: lxc is missing: make deps" >&2; exit 1; }

# attach refuses a gpu-hook that others could change (a build tree under /tmp or a home).
use_trusted_install || exit 1
WORK=$(mktemp -d /tmp/gp-it.XXXXXX)
chmod 755 "$WORK"
P=$WORK/lxc
CONF=$WORK/conf
mkdir -p "$P" "$CONF"
chmod 755 "$P"
# The device tests' fixture hosts carry no driver user space: their containers are given
# none unless a test asks (t-inject.sh: attach --inject).
HOST_DEFAULTS='[driver]
inject = no'
echo "$HOST_DEFAULTS" >"$CONF/gpu-provision.conf"
passed=0
failed=0
skipped=0
failures=""

cleanup() {
	local c
	pkill -x stallfs 2>/dev/null && sleep 0.5
	for c in $(lxc-ls -P "$P" 2>/dev/null); do
		lxc-stop -P "$P" -n "$c" -k >/dev/null 2>&1
		lxc-destroy -P "$P" -n "$c" >/dev/null 2>&1
	done
	# A mount a broken start left under WORK (a mutant's) goes before WORK does.
	awk -v w="$WORK/" 'index($5, w) == 1 {print $5}' /proc/self/mountinfo | sort -r |
		while read -r m; do umount -l "$m" 2>/dev/null || true; done
	[ -n "${KEEP:-}" ] || rm -rf "$WORK"
	[ -z "$GP_INSTALLED" ] || rm -rf "$GP_INSTALLED"
}
trap cleanup EXIT

run_test() {
	local name=$1 rc
	run_isolated "$name"
	rc=$?
	# A stalling FUSE server a failed test left (t-stall.sh) ends, and its waiters with it.
	pkill -x stallfs 2>/dev/null && sleep 0.5
	# No test may change the host's own device nodes.
	if [ "$(stat -c '%a %t:%T' /dev/null)" != "666 1:3" ]; then
		echo "    the host's /dev/null changed: $(stat -c '%a %t:%T' /dev/null)" >>"$WORK/$name.out"
		chmod 0666 /dev/null
		[ $rc -eq 0 ] && rc=1
	fi
	report_test "$name" "$rc"
}

gp() { "$GP" --confdir "$CONF" --lxcpath "$P" "$@"; }

start() { # start NAME: lxc-start with a debug log kept beside the container
	lxc-start -P "$P" -n "$1" -l DEBUG -o "$P/$1.log"
}

# Cleanup: a container already stopped (or never started) is what stop wants, so its
# failure is no test's concern.
stop() { lxc-stop -P "$P" -n "$1" -k >/dev/null 2>&1 || true; }

# node_of NAME PATH: "major:minor" of a node inside, "absent" when the shell inside says
# there is no such path, "attach failed (exit N)" when lxc-attach itself did not run it.
node_of() {
	local out rc=0
	out=$(in_ct "$P" "$1" "if [ -e $2 ]; then stat -c '%t:%T' $2; else echo absent; fi") ||
		rc=$?
	case $rc:$out in
	0:absent) echo absent ;;
	0:*:*) printf '%d:%d\n' "0x${out%%:*}" "0x${out##*:}" ;;
	*) echo "attach failed (exit $rc) [$out]" ;;
	esac
}

# The start was refused and left nothing: not running, no mount, no plan.
assert_refused_clean() { # NAME ROOT LOG-PATTERN
	check "state" STOPPED "$(lxc-info -P "$P" -n "$1" -sH)"
	check "mounts left" 0 "$(host_mounts_under "$2/dev")"
	check "plan left" absent "$([ -e "$2/run/gpu-provision/$1.plan" ] && echo present || echo absent)"
	grep -q -- "$3" "$P/$1.log" || { echo "    log lacks [$3]"; grep gpu-hook "$P/$1.log" | tail -5; return 1; }
}

# Every file is sourced into this one shell: a function two of them define would be the
# last one's in both, silently.
dups=$(grep -ho '^[a-z_][a-z_0-9]*()' "$(dirname "$0")"/*.sh "$(dirname "$0")/../lib.sh" | sort | uniq -d)
if [ -n "$dups" ]; then
	echo "integration: functions defined twice: $(tr "\n" " " <<<"$dups")" >&2
	exit 1
fi
for f in "$(dirname "$0")"/t-*.sh; do
	. "$f"
done

# ONLY="test_a test_b" runs just those; a name that no test has is an error, not a pass.
all_tests=" $(declare -F | awk '$3 ~ /^test_/ {print $3}' | tr '\n' ' ')"
for t in ${ONLY:-}; do
	[[ $all_tests == *" $t "* ]] || { echo "integration: no test is named $t" >&2; exit 2; }
done
runner_can_fail
for t in $all_tests; do
	[ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $t "* ]] && continue
	run_test "$t"
done
echo "integration: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ] || { echo "failed:$failures"; exit 1; }
