#!/bin/bash
# make bench: what the probe costs beside what it stands for, median of ROUNDS alternating
# runs in one running container whose driver libraries are the test doubles (tests/fakecuda,
# tests/fakedriver): gpu-provision probe; the same with --deep; lxc-attach of a bare cuInit
# program (tests/gpu/cuinit.c), the way an admin would check by hand. The doubles answer
# at once, so each figure is the tool's own cost; on a GPU host tests/gpu/run-deep.sh
# measures the same three against the real driver. ROUNDS=N sets the rounds (default 15).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
ROUNDS=${ROUNDS:-15}
use_trusted_install || exit 1
WORK=$(mktemp -d /tmp/gp-bench.XXXXXX)
chmod 755 "$WORK"
P=$WORK/lxc CONF=$WORK/conf
mkdir -p "$P" "$CONF"
trap 'lxc-stop -P "$P" -n pt -k >/dev/null 2>&1 || true; rm -rf "$WORK" ${GP_INSTALLED:+"$GP_INSTALLED"}' EXIT

gp() { "$GP" --root "$WORK/root" --confdir "$CONF" --lxcpath "$P" "$@"; }
make_root h200-580-open "$WORK/root"
new_container "$P" pt
gp attach pt --gpus all --no-inject >/dev/null
add_fake_deep "$P" pt 580.159.04
set_fake_cuda "$P" pt "device 0000:00:06.0 GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460"
cp "${GP_BUILD:-$GP_TOP/build}/cuinit" "$P/pt/rootfs/bin/cuinit"
lxc-start -P "$P" -n pt

ms() { # ms CMD...: wall time of CMD in ms, which must succeed
	local t0
	t0=$(date +%s%N)
	"$@" >/dev/null || { echo "bench: $* failed" >&2; exit 1; }
	echo $((($(date +%s%N) - t0) / 1000000))
}
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# The deep probe must prove everything the doubles offer, or its time means nothing.
gp probe pt --deep --json >"$WORK/deep.json" || { cat "$WORK/deep.json"; exit 1; }
[ "$(jq '[.capabilities[] | select(.status == "ok")] | length' "$WORK/deep.json")" = 7 ] ||
	{ echo "bench: the deep probe did not prove all seven" >&2; jq .capabilities "$WORK/deep.json"; exit 1; }
for i in $(seq "$ROUNDS"); do
	case $((i % 3)) in
	0) order="plain deep attach" ;;
	1) order="deep attach plain" ;;
	*) order="attach plain deep" ;;
	esac
	for k in $order; do
		case $k in
		plain) ms gp probe pt ;;
		deep) ms gp probe pt --deep ;;
		attach) ms lxc-attach -P "$P" -n pt --clear-env -- /bin/cuinit ;;
		esac >>"$WORK/$k.ms"
	done
done
p=$(median <"$WORK/plain.ms")
d=$(median <"$WORK/deep.ms")
a=$(median <"$WORK/attach.ms")
echo "bench: the probe, median of $ROUNDS alternating runs each (test doubles of the driver)"
awk -v p="$p" -v d="$d" -v a="$a" 'BEGIN {
	printf "  lxc-attach of a cuInit program: %5d ms\n", a
	printf "  gpu-provision probe:            %5d ms (%+d ms, ratio %.3f)\n", p, p - a, p / a
	printf "  gpu-provision probe --deep:     %5d ms (%+d ms over the probe, ratio %.3f)\n", d, d - p, d / p
}'
