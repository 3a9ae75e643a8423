#!/bin/bash
# make bench: check --all over three containers whose cuInit hangs past a 1 s deadline,
# beside check of one of them, alternately in one run: the ratio says how much of the
# three deadlines check --all overlaps (1.0: fully parallel; 3.0: one after another).
# The integration test (test_check_all_parallel) asserts the overlap itself, by the probes
# seen running at once; this is the figure. ROUNDS=N sets the rounds (default 5).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
ROUNDS=${ROUNDS:-5}
use_trusted_install || exit 1
WORK=$(mktemp -d /tmp/gp-bench.XXXXXX)
chmod 755 "$WORK"
P=$WORK/lxc CONF=$WORK/conf
mkdir -p "$P" "$CONF"
# Cleanup: a container that is already stopped is what we want.
trap 'for c in b1 b2 b3; do lxc-stop -P "$P" -n $c -k >/dev/null 2>&1 || true; done; rm -rf "$WORK" ${GP_INSTALLED:+"$GP_INSTALLED"}' EXIT

gp() { "$GP" --root "$WORK/root" --confdir "$CONF" --lxcpath "$P" "$@"; }
make_root h200-580-open "$WORK/root"
for c in b1 b2 b3; do
	new_container "$P" "$c"
	gp attach "$c" --gpus all >/dev/null
	printf '[gpu]\ndevices = all\n[probe]\ntimeout = 1\n' >"$CONF/$c.ini"
	add_fake_cuda "$P" "$c" 580.159.04
	set_fake_cuda "$P" "$c" hang
	lxc-start -P "$P" -n "$c"
done

ms() { # ms ARGS...: wall time of gpu-provision ARGS in ms; exit 1 (timeouts found) expected
	local t0 rc=0
	t0=$(date +%s%N)
	gp "$@" >/dev/null || rc=$?
	[ "$rc" = 1 ] || { echo "bench: gpu-provision $* exited $rc" >&2; exit 1; }
	echo $((($(date +%s%N) - t0) / 1000000))
}
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

: >"$WORK/all.ms"; : >"$WORK/one.ms"
for _ in $(seq "$ROUNDS"); do
	ms check --all >>"$WORK/all.ms"
	ms check b1 >>"$WORK/one.ms"
done
a=$(median <"$WORK/all.ms")
o=$(median <"$WORK/one.ms")
echo "bench: check with probes that hang past a 1 s deadline, median of $ROUNDS alternating runs"
awk -v a="$a" -v o="$o" 'BEGIN {
	printf "  check b1 (one probe):        %6d ms\n", o
	printf "  check --all (three probes):  %6d ms\n", a
	printf "  ratio all/one:               %6.2f (goal: under 1.5; 3 would be one after another)\n", a / o
}'
