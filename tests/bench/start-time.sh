#!/bin/bash
# make bench: median container start time with gpu-hook versus the same container given the
# same nodes by static lxc.mount.entry lines (the recipe), started alternately in one run.
# Two more twins have the static lines plus as many hooks as the hook twin's config has
# (pre-start, autodev, post-stop) that do nothing: /bin/true, which is linked dynamically,
# and a static no-op built as gpu-hook is (-static-pie), whose start costs no loader: what
# LXC's way of running hooks costs by itself, whatever they do. gpu-hook's own work is its
# start over the static no-ops': the same number of hooks, linked the same way. A fifth is
# the hook twin with the driver's user space injected (compute, utility; test doubles made
# under the --root): what the injection adds to a start. A sixth is the inject twin with
# [driver] cdi = no: what writing the CDI spec adds.
# ROUNDS=N sets the number of starts of each (default 31).
#
# A start varies by milliseconds with the machine's load, and gpu-hook's own work is a
# fraction of a millisecond: the goals' ratios are taken again over PAIRS=N more rounds of
# the hook twin and the static no-op twin alone, and of the inject twin and the nocdi twin
# alone (default 301), and the last lines time
# each moment of the hook directly, run as LXC runs it (its arguments and environment;
# autodev in a mount namespace of its own, on a fresh /dev) beside the static no-op,
# SPAWNS=N pairs of each (default 500). The autodev hook's time includes its four binds,
# which the no-op twins have LXC make (their lxc.mount.entry lines).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
ROUNDS=${ROUNDS:-31}
TWINS="hook static noop snoop inject nocdi"
use_trusted_install || exit 1 # attach writes only a gpu-hook root alone can change
WORK=$(mktemp -d /tmp/gp-bench.XXXXXX)
chmod 755 "$WORK"
P=$WORK/lxc CONF=$WORK/conf
mkdir -p "$P" "$CONF"
trap 'for c in $TWINS; do lxc-stop -P "$P" -n $c -k >/dev/null 2>&1 || true; done; umount "$WORK/root/run" 2>/dev/null; rm -rf "$WORK" ${GP_INSTALLED:+"$GP_INSTALLED"}' EXIT

# cgroup_layout: how this host's cgroups are mounted, as LXC meets them.
cgroup_layout() {
	if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
		echo "unified (cgroup v2)"
	elif awk '$0 ~ / - cgroup / && $NF ~ /(^|,)devices(,|$)/ {f = 1} END {exit !f}' /proc/self/mountinfo; then
		echo "hybrid (v1 devices)"
	else
		echo "v1 without devices"
	fi
}

make_root h200-580-open "$WORK/root"
# The hook keeps its state in the root's run/gpu-provision: a tmpfs, as /run is on every host
# (on the disk, each start's plan costs a journalled create and rename, 0.3 ms on ext4).
mkdir -p "$WORK/root/run"
mount -t tmpfs -o mode=0755,size=16m gp-bench-run "$WORK/root/run"
add_host_userspace "$WORK/root" 580.159.04
for c in $TWINS; do new_container "$P" "$c"; done
"$GP" --root "$WORK/root" --confdir "$CONF" --lxcpath "$P" attach hook --gpus all --no-inject >/dev/null
"$GP" --root "$WORK/root" --confdir "$CONF" --lxcpath "$P" attach inject --gpus all --inject \
	--capabilities compute,utility >/dev/null
"$GP" --root "$WORK/root" --confdir "$CONF" --lxcpath "$P" attach nocdi --gpus all --inject \
	--capabilities compute,utility >/dev/null
sed -i '/^\[driver\]/a cdi = no' "$CONF/nocdi.ini"
grep -qx 'cdi = no' "$CONF/nocdi.ini" || { echo "bench: nocdi.ini has no [driver] section" >&2; exit 1; }
# The static twin: the same device rules, and one bind entry per node instead of the hook.
grep 'devices.allow = c' "$CONF/hook.applied" >>"$P/static/config"
for n in nvidiactl nvidia0 nvidia-uvm nvidia-uvm-tools; do
	echo "lxc.mount.entry = $WORK/root/dev/$n dev/$n none bind,create=file 0 0" >>"$P/static/config"
done
# The no-op twins: the static twin's lines and one no-op per hook line of the hook twin's.
printf 'int main(void)\n{\n\treturn 0;\n}\n' | ${CC:-cc} -O2 -static-pie -x c -o "$WORK/noop" -
hooks=$(grep -c '^lxc\.hook\.' "$P/hook/config")
for c in noop snoop; do
	noop=/bin/true
	[ $c = noop ] || noop=$WORK/noop
	grep -v '^lxc.include' "$P/static/config" | grep 'devices.allow = c\|mount.entry = /tmp' >>"$P/$c/config"
	grep '^lxc\.hook\.' "$P/hook/config" | sed "s|=.*|= $noop|" >>"$P/$c/config"
done

# own_work MOMENT [SETUP]: the median over SPAWNS pairs of gpu-hook's MOMENT's wall time
# beyond the static no-op's, in microseconds, each after SETUP.
own_work() {
	local hook
	hook=$(sed -n "s/^lxc\.hook\.$1 = //p" "$P/hook/config")
	[ -n "$hook" ] || { echo "bench: the hook twin has no lxc.hook.$1" >&2; exit 1; }
	# shellcheck disable=SC2086 # the hook line's words, as LXC splits them with sh -c
	LXC_NAME=hook LXC_HOOK_TYPE=$1 LXC_CONFIG_FILE=$P/hook/config LXC_ROOTFS_MOUNT=$P/hook/rootfs \
		"$SPAWN_PAIR" "$SPAWNS" "${2:-}" $hook hook lxc "$1" -- "$WORK/noop" hook lxc "$1" |
		cut -d' ' -f3
}
# own_work_autodev: the same for autodev, in a mount namespace where the hook twin's rootfs
# has a fresh tmpfs /dev before each run, as LXC's autodev gives it.
own_work_autodev() {
	local dev=$P/hook/rootfs/dev
	unshare -m --propagation private bash -c "
		mount -t tmpfs gp-bench-dev '$dev' &&
		$(declare -f own_work); P='$P' WORK='$WORK' SPAWN_PAIR='$SPAWN_PAIR' SPAWNS=$SPAWNS \
			own_work autodev 'umount -l $dev && mount -t tmpfs gp-bench-dev $dev'"
}

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

# Warm caches; the inject twin's first start writes its loader cache, as any first start does.
for c in $TWINS; do
	: >"$WORK/$c.us"
	start_ms "$c" >/dev/null
done
lxc-start -P "$P" -n inject
files=$(grep -c '^\(lib\|bin\|cfg\) ' "$WORK/root/run/gpu-provision/inject.inject")
in_ct "$P" inject 'nvidia-smi' | grep -q 'nvmlInit_v2 0' || { echo "bench: inject has no nvidia-smi" >&2; exit 1; }
lxc-stop -P "$P" -n inject -k
# Each round starts every twin once, the order turned by one each round.
read -ra twins <<<"$TWINS"
for i in $(seq "$ROUNDS"); do
	for k in "${!twins[@]}"; do
		c=${twins[$(((i + k) % ${#twins[@]}))]}
		start_ms "$c" >>"$WORK/$c.us"
	done
done
# pair_rounds A B: PAIRS rounds of A and B alone, first one then the other, into A.pairs
# and B.pairs.
pair_rounds() {
	local i
	: >"$WORK/$1.pairs"
	: >"$WORK/$2.pairs"
	for i in $(seq "$PAIRS"); do
		if ((i % 2)); then
			start_ms "$1" >>"$WORK/$1.pairs"
			start_ms "$2" >>"$WORK/$2.pairs"
		else
			start_ms "$2" >>"$WORK/$2.pairs"
			start_ms "$1" >>"$WORK/$1.pairs"
		fi
	done
}
PAIRS=${PAIRS:-301}
pair_rounds hook snoop
pair_rounds inject nocdi
SPAWNS=${SPAWNS:-500}
SPAWN_PAIR=${GP_BUILD:-$GP_TOP/build}/tests/helpers/spawn-pair
[ -x "$SPAWN_PAIR" ] || { echo "bench: no $SPAWN_PAIR (make tests-helpers)" >&2; exit 1; }
wpre=$(own_work pre-start)
wdev=$(own_work_autodev)
wpost=$(own_work post-stop)
# paired A B: the median over rounds of A's start over B's in the same round, where the
# machine's load is what both met; steadier than a ratio of two medians.
paired() { paste "$WORK/$1" "$WORK/$2" | awk '{print $1 / $2}' | sort -n | awk '{v[NR]=$1} END {printf "%.3f", v[int((NR+1)/2)]}'; }
h=$(median <"$WORK/hook.us")
s=$(median <"$WORK/static.us")
n=$(median <"$WORK/noop.us")
z=$(median <"$WORK/snoop.us")
j=$(median <"$WORK/inject.us")
c=$(median <"$WORK/nocdi.us")
echo "bench: container start, median of $ROUNDS alternating starts each (4 nodes)"
echo "  on $(lxc-start --version | head -1 | sed 's/^/LXC /'), cgroups $(cgroup_layout), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
nq=$(quartiles <"$WORK/noop.us")
zq=$(quartiles <"$WORK/snoop.us")
sq=$(quartiles <"$WORK/static.us")
hq=$(quartiles <"$WORK/hook.us")
jq=$(quartiles <"$WORK/inject.us")
pn=$(paired hook.us noop.us)
pz=$(paired hook.us snoop.us)
pp=$(paired hook.pairs snoop.pairs)
pc=$(paired inject.us nocdi.us)
pcp=$(paired inject.pairs nocdi.pairs)
cpd=$(paste "$WORK/inject.pairs" "$WORK/nocdi.pairs" | awk '{print $1 - $2}' | median)
awk -v s="$s" -v h="$h" -v n="$n" -v z="$z" -v j="$j" -v sq="$sq" -v hq="$hq" -v nq="$nq" \
	-v zq="$zq" -v jq="$jq" -v files="$files" -v k="$hooks" -v pn="$pn" -v pz="$pz" \
	-v c="$c" -v pc="$pc" -v wpre="$wpre" -v wdev="$wdev" -v wpost="$wpost" -v spawns="$SPAWNS" -v pp="$pp" -v pairs="$PAIRS" \
	-v pcp="$pcp" -v cpd="$cpd" 'BEGIN {
	printf "  static lxc.mount.entry:       %6.1f ms (quartiles %s)\n", s / 1000, sq
	printf "  + %d no-op hooks (/bin/true): %6.1f ms (quartiles %s)\n", k, n / 1000, nq
	printf "  + %d no-op hooks (static):    %6.1f ms (quartiles %s)\n", k, z / 1000, zq
	printf "  gpu-hook (%d hooks):          %6.1f ms (quartiles %s)\n", k, h / 1000, hq
	printf "  ratio hook/static:            %6.3f\n", h / s
	printf "  ratio no-op hooks/static:     %6.3f /bin/true, %.3f static (what any LXC hooks cost)\n", n / s, z / s
	printf "  ratio hook/no-op hooks:       %6.3f /bin/true, %.3f static (what gpu-hook does beyond that)\n", h / n, h / z
	printf "  paired, median of rounds:     %6.3f /bin/true, %.3f static\n", pn, pz
	printf "  paired, %d rounds of two:    %6.3f static (goal: under 1.03)\n", pairs, pp
	printf "  gpu-hook + injection:         %6.1f ms (quartiles %s), %d files injected\n", j / 1000, jq, files
	printf "  injection adds:               %6.1f ms (goal: under 5 ms), ratio %.3f\n", (j - h) / 1000, j / h
	printf "  the CDI spec adds:            %6.2f ms, paired ratio %.3f\n", (j - c) / 1000, pc
	printf "  paired, %d rounds of two:    %6.2f ms (goal: under 1 ms), paired ratio %.3f\n", pairs, cpd / 1000, pcp
	printf "  gpu-hook alone, timed directly (median of %d pairs with the static no-op):\n", spawns
	printf "    pre-start %d us, autodev %d us (post-stop %d us, after the stop)\n", wpre, wdev, wpost
}'
