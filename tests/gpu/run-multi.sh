#!/bin/bash
# The multi-GPU host run (issue: eight GPUs), for as many GPUs as the host has:
#   A gets the last index (with six or more GPUs: 2,5), B the UUID of GPU 0, C all;
#   inside each, CUDA sees exactly its GPUs (UUIDs and PCI ids), and a node made by hand for
#   a GPU it was not given cannot be opened (EPERM); check --all probes all three at once;
#   the table of nvidia-smi index, PCI address, device minor and CUDA ordinal.
# On a GPU host, from the checkout root, after make gpu-tools (tests/gpu/e2e-lib.sh says
# what else): bash tests/gpu/run-multi.sh
# Each step's outcome is checked (expect, tests/gpu/e2e-lib.sh); the last line is
# "N passed, N failed" and the exit code is 1 when any check failed (2: too few GPUs).
set -uo pipefail
. tests/gpu/e2e-lib.sh

gp() { "$GP" --lxcpath "$P" --confdir "$CONF" "$@"; }
table=$(gpu_table)
n=$(wc -l <<<"$table")
say "host: $n GPUs"
"$GP" host | sed -n '/^GPUs:/,$p'
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,pci.bus_id,uuid --format=csv,noheader
expect "GPUs in host --json as in /proc/driver/nvidia/gpus" \
	"$(find /proc/driver/nvidia/gpus -mindepth 1 -maxdepth 1 | wc -l)" "$n"
[ "$n" -ge 2 ] || { echo "needs two GPUs or more"; exit 2; }
if [ "$n" -ge 6 ]; then sel_a=2,5; else sel_a=$((n - 1)); fi
uuid0=$(awk '$1 == 0 {print $4}' <<<"$table")

# of SELECTION COLUMN: the column (2 minor, 3 pci, 4 uuid) of the GPUs an index list (or
# "all") selects, sorted, space-separated.
of() {
	awk -v sel=",$1," -v col="$2" 'sel == ",all," || index(sel, "," $1 ",") {print $col}' \
		<<<"$table" | sort | paste -sd' '
}
declare -A want_idx=([A]=$sel_a [B]=0 [C]=all)

for c in A B C; do mkct "$c"; done
for c in A B C; do
	case $c in B) sel=$uuid0 ;; *) sel=${want_idx[$c]} ;; esac
	step gp attach "$c" --gpus "$sel"
	expect "attach $c --gpus $sel: exit" 0 "$rc"
done
for c in A B C; do
	lxc-start -P "$P" -n "$c" -l INFO -o "/tmp/$c.log" || grep ERROR "/tmp/$c.log"
	expect "$c state" RUNNING "$(lxc-info -P "$P" -n "$c" -sH)"
done

for c in A B C; do
	say "container $c ($(sed -n 's/^devices = //p' "$CONF/$c.ini"))"
	step run_in "$c" /bin/sh -c 'ls /dev/ | grep "^nvidia[0-9]"'
	expect "$c: the minors of its GPUs' nodes, no other" "$(of "${want_idx[$c]}" 2)" \
		"$(sed -n 's/^nvidia\([0-9]*\)$/\1/p' <<<"$out" | sort | paste -sd' ')"
	step run_in "$c" /bin/cuinit
	grep -E 'cuInit|devices|^device' <<<"$out"
	expect "$c: cuInit" "0 cuInit 0 CUDA_SUCCESS" "$rc $(grep -o '^cuInit [0-9]* [A-Z_]*' <<<"$out")"
	expect "$c: the UUIDs CUDA sees" "$(of "${want_idx[$c]}" 4)" \
		"$(awk '$1 == "device" {print $4}' <<<"$out" | sort | paste -sd' ')"
	step gp probe "$c"
	expect "probe $c" "0 probe $c: ok" "$rc $(head -1 <<<"$out" | grep -o "^probe $c: [a-z]*")"
done

say "A: a node made by hand for a GPU it was not given"
other=$(of 0 2)
step run_in A /bin/sh -c "mknod /dev/nvidia-other c 195 $other && exec 3<>/dev/nvidia-other"
expect "A: open of GPU 0's node refused" "yes" \
	"$([ "$rc" -ne 0 ] && grep -q 'Operation not permitted' <<<"$out" && echo yes || echo "no (exit $rc)")"

say "check --all: three probes at once"
t0=$(date +%s%N)
step gp check --all --format prometheus
echo "check --all: $(ms_since "$t0") ms"
for c in A B C; do
	expect_grep "check --all: $c ok" "^gpu_provision_probe_status\\{container=\"$c\",status=\"ok\"\\} 1$" "$out"
done
t0=$(date +%s%N)
step gp probe C
echo "one probe (C, all GPUs): $(ms_since "$t0") ms"

say "index / PCI / minor / CUDA ordinal (CUDA as C sees it, CUDA_DEVICE_ORDER unset)"
cuda=$(run_in C /bin/cuinit)
while read -r idx minor pci uuid; do
	ord=$(awk -v u="$uuid" '$1 == "device" && $4 == u {print $2}' <<<"$cuda")
	echo "index $idx  pci $pci  minor $minor  cuda-ordinal ${ord:-?}  $uuid"
	expect "GPU $idx has a CUDA ordinal in C" yes "$([ -n "$ord" ] && echo yes || echo no)"
done <<<"$table"
for c in A B C; do lxc-stop -P "$P" -n "$c" -k; done
