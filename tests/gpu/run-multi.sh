#!/bin/bash
# The multi-GPU host run (issue: eight GPUs), for as many GPUs as the host has:
#   A gets the last index (with six or more GPUs: 2,5), B the UUID of GPU 0, C all;
#   inside each, CUDA sees exactly its GPUs (UUIDs and PCI ids), and a node made by hand for
#   a GPU it was not given cannot be opened (EPERM); check --all probes all three at once;
#   the table of nvidia-smi index, PCI address, device minor and CUDA ordinal.
# From the checkout root, with .gpu-e2e and build carried: bash tests/gpu/run-multi.sh
set -uo pipefail
. tests/gpu/e2e-lib.sh

n=$(ls -d /proc/driver/nvidia/gpus/* | wc -l)
say "host: $n GPUs"
"$GP" host | sed -n '/^GPUs:/,$p'
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,pci.bus_id,uuid --format=csv,noheader
[ "$n" -ge 2 ] || { echo "needs two GPUs or more"; exit 2; }
if [ "$n" -ge 6 ]; then sel_a=2,5; else sel_a=$((n - 1)); fi
uuid0=$("$GP" host --json | tr -d ' \n' | grep -o '"index":0,"minor":[0-9]*,"pci":"[^"]*","uuid":"[^"]*"' | sed 's/.*"uuid":"//; s/"$//')

for c in A B C; do mkct "$c"; done
"$GP" --lxcpath "$P" --confdir "$CONF" attach A --gpus "$sel_a"
"$GP" --lxcpath "$P" --confdir "$CONF" attach B --gpus "$uuid0"
"$GP" --lxcpath "$P" --confdir "$CONF" attach C --gpus all
for c in A B C; do lxc-start -P "$P" -n "$c" -l INFO -o "/tmp/$c.log" || grep ERROR "/tmp/$c.log"; done

for c in A B C; do
	say "container $c ($(sed -n 's/^devices = //p' "$CONF/$c.ini"))"
	run_in "$c" /bin/sh -c 'ls /dev/ | grep "^nvidia[0-9]"'
	run_in "$c" /bin/cuinit | grep -E 'cuInit|devices|^device'
	"$GP" --lxcpath "$P" --confdir "$CONF" probe "$c" | head -1
done

say "A: a node made by hand for a GPU it was not given"
other=$("$GP" host --json | tr -d ' \n' | grep -o '"index":0,"minor":[0-9]*' | sed 's/.*://')
run_in A /bin/sh -c "mknod /dev/nvidia-other c 195 $other && exec 3<>/dev/nvidia-other"; echo "rc=$?"

say "check --all: three probes at once"
t0=$(date +%s%N)
"$GP" --lxcpath "$P" --confdir "$CONF" check --all --format prometheus | grep probe_status | grep ' 1$'
t1=$(date +%s%N)
echo "check --all: $(((t1 - t0) / 1000000)) ms"
t0=$(date +%s%N)
"$GP" --lxcpath "$P" --confdir "$CONF" probe C >/dev/null
t1=$(date +%s%N)
echo "one probe (C, all GPUs): $(((t1 - t0) / 1000000)) ms"

say "index / PCI / minor / CUDA ordinal (CUDA as C sees it, CUDA_DEVICE_ORDER unset)"
"$GP" host --json | tr -d ' \n' | grep -o '"index":[0-9]*,"minor":[0-9]*,"pci":"[^"]*","uuid":"[^"]*"' |
	sed 's/"index":/index /; s/,"minor":/ minor /; s/,"pci":"/ pci /; s/","uuid":"/ uuid /; s/"$//' |
	while read -r _ idx _ minor _ pci _ uuid; do
		ord=$(run_in C /bin/cuinit | awk -v u="$uuid" '$1 == "device" && $4 == u {print $2}')
		echo "index $idx  pci $pci  minor $minor  cuda-ordinal ${ord:-?}  $uuid"
	done
for c in A B C; do lxc-stop -P "$P" -n "$c" -k; done
