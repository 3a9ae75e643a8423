#!/bin/bash
# make bench: median container start time with gpu-hook versus the same container given the
# same nodes by static lxc.mount.entry lines (the recipe), started alternately in one run.
# A third twin has the static lines plus two hooks that do nothing (/bin/true as pre-start
# and autodev): what LXC's way of running hooks costs by itself, whatever they do. A fourth
# is the hook twin with the driver's user space injected (compute, utility; test doubles
# made under the --root): what the injection adds to a start.
# ROUNDS=N sets the number of starts of each (default 31).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
ROUNDS=${ROUNDS:-31}
use_trusted_install || exit 1 # attach writes only a gpu-hook root alone can change
WORK=$(mktemp -d /tmp/gp-bench.XXXXXX)
chmod 755 "$WORK"
P=$WORK/lxc CONF=$WORK/conf
mkdir -p "$P" "$CONF"
trap 'for c in hook static noop inject; do lxc-stop -P "$P" -n $c -k >/dev/null 2>&1 || true; done; rm -rf "$WORK" ${GP_INSTALLED:+"$GP_INSTALLED"}' EXIT

make_root h200-580-open "$WORK/root"
add_host_userspace "$WORK/root" 580.159.04
new_container "$P" hook
new_container "$P" static
new_container "$P" noop
new_container "$P" inject
"$GP" --root "$WORK/root" --confdir "$CONF" --lxcpath "$P" attach hook --gpus all --no-inject >/dev/null
"$GP" --root "$WORK/root" --confdir "$CONF" --lxcpath "$P" attach inject --gpus all --inject \
	--capabilities compute,utility >/dev/null
# The static twin: the same device rules, and one bind entry per node instead of the hook.
grep 'devices.allow = c' "$CONF/hook.applied" >>"$P/static/config"
for n in nvidiactl nvidia0 nvidia-uvm nvidia-uvm-tools; do
	echo "lxc.mount.entry = $WORK/root/dev/$n dev/$n none bind,create=file 0 0" >>"$P/static/config"
done
grep -v '^lxc.include' "$P/static/config" | grep 'devices.allow = c\|mount.entry = /tmp' >>"$P/noop/config"
printf '%s\n' "lxc.hook.pre-start = /bin/true" "lxc.hook.autodev = /bin/true" >>"$P/noop/config"

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

: >"$WORK/hook.us"; : >"$WORK/static.us"; : >"$WORK/noop.us"; : >"$WORK/inject.us"
# Warm caches; the inject twin's first start writes its loader cache, as any first start does.
for c in hook static noop inject; do start_ms $c >/dev/null; done
lxc-start -P "$P" -n inject
files=$(grep -c '^\(lib\|bin\|cfg\) ' "$WORK/root/run/gpu-provision/inject.inject")
in_ct "$P" inject 'nvidia-smi' | grep -q 'nvmlInit_v2 0' || { echo "bench: inject has no nvidia-smi" >&2; exit 1; }
lxc-stop -P "$P" -n inject -k
for i in $(seq "$ROUNDS"); do
	case $((i % 4)) in
	0) order="hook static noop inject" ;;
	1) order="static noop inject hook" ;;
	2) order="noop inject hook static" ;;
	*) order="inject hook static noop" ;;
	esac
	for c in $order; do start_ms $c >>"$WORK/$c.us"; done
done
h=$(median <"$WORK/hook.us")
s=$(median <"$WORK/static.us")
n=$(median <"$WORK/noop.us")
j=$(median <"$WORK/inject.us")
echo "bench: container start, median of $ROUNDS alternating starts each (4 nodes)"
nq=$(quartiles <"$WORK/noop.us")
sq=$(quartiles <"$WORK/static.us")
hq=$(quartiles <"$WORK/hook.us")
jq=$(quartiles <"$WORK/inject.us")
awk -v s="$s" -v h="$h" -v n="$n" -v j="$j" -v sq="$sq" -v hq="$hq" -v nq="$nq" -v jq="$jq" \
	-v files="$files" 'BEGIN {
	printf "  static lxc.mount.entry:   %6.1f ms (quartiles %s)\n", s / 1000, sq
	printf "  + two no-op hooks:        %6.1f ms (quartiles %s)\n", n / 1000, nq
	printf "  gpu-hook:                 %6.1f ms (quartiles %s)\n", h / 1000, hq
	printf "  ratio hook/static:        %6.3f (goal: under 1.05)\n", h / s
	printf "  ratio no-op hooks/static: %6.3f (what any two LXC hooks cost)\n", n / s
	printf "  ratio hook/no-op hooks:   %6.3f (what gpu-hook does beyond that)\n", h / n
	printf "  gpu-hook + injection:     %6.1f ms (quartiles %s), %d files injected\n", j / 1000, jq, files
	printf "  injection adds:           %6.1f ms (goal: under 5 ms), ratio %.3f\n", (j - h) / 1000, j / h
}'
