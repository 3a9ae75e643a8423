#!/bin/bash
# make bench: median container start time with gpu-hook versus the same container given the
# same nodes by static lxc.mount.entry lines (the recipe), started alternately in one run.
# ROUNDS=N sets the number of starts of each (default 31).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
ROUNDS=${ROUNDS:-31}
WORK=$(mktemp -d /tmp/gp-bench.XXXXXX)
chmod 755 "$WORK"
P=$WORK/lxc CONF=$WORK/conf
mkdir -p "$P" "$CONF"
trap 'for c in hook static; do lxc-stop -P "$P" -n $c -k >/dev/null 2>&1 || true; done; rm -rf "$WORK"' EXIT

make_root h200-580-open "$WORK/root"
new_container "$P" hook
new_container "$P" static
"$GP" --root "$WORK/root" --confdir "$CONF" --lxcpath "$P" attach hook --gpus all >/dev/null
# The static twin: the same device rules, and one bind entry per node instead of the hook.
grep 'devices.allow = c' "$CONF/hook.applied" >>"$P/static/config"
for n in nvidiactl nvidia0 nvidia-uvm nvidia-uvm-tools; do
	echo "lxc.mount.entry = $WORK/root/dev/$n dev/$n none bind,create=file 0 0" >>"$P/static/config"
done

ms_now() { date +%s%N; }
start_ms() { # start_ms NAME: wall time of lxc-start until the container runs, in microseconds
	local t0 t1
	t0=$(ms_now)
	lxc-start -P "$P" -n "$1"
	t1=$(ms_now)
	[ "$(in_ct "$P" "$1" 'stat -c %t:%T /dev/nvidia0')" = "c3:0" ] || { echo "bench: $1 lacks nvidia0" >&2; exit 1; }
	lxc-stop -P "$P" -n "$1" -k
	echo $(((t1 - t0) / 1000))
}
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
quartiles() { sort -n | awk '{v[NR]=$1} END {printf "%.1f-%.1f", v[int((NR+3)/4)] / 1000, v[int((3*NR+1)/4)] / 1000}'; }

: >"$WORK/hook.us"; : >"$WORK/static.us"
start_ms hook >/dev/null; start_ms static >/dev/null # warm caches once
for i in $(seq "$ROUNDS"); do
	if [ $((i % 2)) -eq 0 ]; then
		start_ms hook >>"$WORK/hook.us"; start_ms static >>"$WORK/static.us"
	else
		start_ms static >>"$WORK/static.us"; start_ms hook >>"$WORK/hook.us"
	fi
done
h=$(median <"$WORK/hook.us")
s=$(median <"$WORK/static.us")
echo "bench: container start, median of $ROUNDS alternating starts each (4 nodes)"
sq=$(quartiles <"$WORK/static.us")
hq=$(quartiles <"$WORK/hook.us")
awk -v s="$s" -v h="$h" -v sq="$sq" -v hq="$hq" 'BEGIN { printf "  static lxc.mount.entry: %6.1f ms (quartiles %s)\n  gpu-hook:               %6.1f ms (quartiles %s)\n  difference:             %6.1f ms\n  ratio hook/static:      %6.3f (goal: under 1.05)\n", s / 1000, sq, h / 1000, hq, (h - s) / 1000, h / s }'
