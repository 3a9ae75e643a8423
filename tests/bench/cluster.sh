#!/bin/bash
# make bench-cluster: check --all and list --cluster on pve1 of a three-node cluster of pmxcfs
# (tests/cluster/lib.sh) with 30 GPU containers, ten a node, beside the same two commands
# over a plain copy of that /etc/pve (the simulation's kind of tree) bound at the same path,
# alternately in one run. The ratio is what reading through pmxcfs costs; timings are
# figures, not asserted. Usage: tests/bench/cluster.sh KIT PMXCFS; ROUNDS=N (default 7).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/../cluster/lib.sh"
KIT=${1:?usage: cluster.sh KIT PMXCFS}
PMXCFS=${2:?usage: cluster.sh KIT PMXCFS}
ROUNDS=${ROUNDS:-7}
cluster_need "$KIT" "$PMXCFS"
cluster_start >/dev/null

for i in $NODES; do
	for c in 0 1 2 3 4 5 6 7 8 9; do
		ct_config "$i" "96$i$c"
		gpn "$i" attach "96$i$c" --gpus any:1 --inject >/dev/null
	done
	gpn "$i" prepare >/dev/null 2>&1 || true # under --root a module change is printed
done
sleep 2 # the last writes reach pve1
SIM=$WORK/plain-pve
mkdir -p "$SIM"
node 1 cp -a /etc/pve/nodes /etc/pve/gpu-provision /etc/pve/.members /etc/pve/.rrd "$SIM/"
ln -s nodes/pve1 "$SIM/local"
ln -s nodes/pve1/lxc "$SIM/lxc"
[ "$(find "$SIM/nodes" -name '96*.conf' | wc -l)" = 30 ] || { echo "bench: not 30 configs" >&2; exit 1; }

# ms TREE ARGS...: wall time in ms of gpu-provision ARGS on pve1, in a mount namespace of
# its own where etc/pve is pmxcfs ("pmxcfs") or the plain copy bound over it ("plain").
# check exits 1 for the fixture hosts' own findings.
ms() {
	local tree=$1
	shift
	# shellcheck disable=SC2016 # expanded by the shell inside
	node 1 unshare -m --propagation private sh -c '
		[ "$1" = plain ] && mount --bind "$2" "$3/etc/pve"
		shift 3
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || [ $? = 1 ] || exit 9
		echo $((($(date +%s%N) - t0) / 1000000))' sh "$tree" "$SIM" "$WORK/n1" \
		"$GP" --confdir "$WORK/n1.conf" --lxcpath "$P" --root "$WORK/n1" "$@"
}
# seen TREE: how many GPU containers check --all on pve1 judges over TREE (30, else the
# figures would time something else).
seen() {
	# shellcheck disable=SC2016 # expanded by the shell inside
	node 1 unshare -m --propagation private sh -c '
		[ "$1" = plain ] && mount --bind "$2" "$3/etc/pve"
		shift 3
		"$@" || [ $? = 1 ]' sh "$1" "$SIM" "$WORK/n1" \
		"$GP" --confdir "$WORK/n1.conf" --lxcpath "$P" --root "$WORK/n1" check --all --json |
		jq '.cluster.containers | length'
}
for tree in pmxcfs plain; do
	[ "$(seen "$tree")" = 30 ] || { echo "bench: check --all over $tree judges $(seen "$tree") containers, not 30" >&2; exit 1; }
done
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

for what in "check --all" "list --cluster"; do
	: >"$WORK/pmxcfs.ms"
	: >"$WORK/plain.ms"
	for _ in $(seq "$ROUNDS"); do
		# shellcheck disable=SC2086 # the command's words
		ms pmxcfs $what >>"$WORK/pmxcfs.ms"
		# shellcheck disable=SC2086
		ms plain $what >>"$WORK/plain.ms"
	done
	real=$(median <"$WORK/pmxcfs.ms")
	plain=$(median <"$WORK/plain.ms")
	printf '%-15s 30 GPU containers, 3 nodes: pmxcfs %d ms, plain tree %d ms (medians of %d): %s x\n' \
		"$what" "$real" "$plain" "$ROUNDS" "$(awk -v a="$real" -v b="$plain" 'BEGIN {printf "%.2f", (b ? a / b : 0)}')"
done
