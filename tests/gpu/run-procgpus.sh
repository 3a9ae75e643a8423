#!/bin/bash
# On the GPU host (no LXC needed): /proc/driver/nvidia/gpus masked on the real driver's
# procfs, each case in a mount namespace of its own: given the host's GPUs (nothing to
# hide: nothing mounted), given all but the first (it is hidden, the others kept and
# readable), given none of them (an address no GPU has). What nvidia-smi then lists is
# recorded beside. Usage: [GP_BIN=DIR] tests/gpu/run-procgpus.sh OUTDIR (make gpu-tools)
set -euo pipefail
out=${1:?usage: run-procgpus.sh OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${GP_BIN:-$top/build}
mkdir -p "$out"
exec > >(tee "$out/procgpus.log") 2>&1
mapfile -t gpus < <(ls /proc/driver/nvidia/gpus)
echo "host lists ${#gpus[@]} GPU(s): ${gpus[*]}"
one_case() { # one_case WHAT PCI...
	local what=$1
	shift
	echo "--- $what: given ${*:-nothing}"
	unshare -m --propagation private bash -c '
		"$0" "$@"
		echo "listed: $(ls /proc/driver/nvidia/gpus | paste -sd" ")"
		echo "mounts on it: $(grep -c " /proc/driver/nvidia/gpus" /proc/self/mountinfo || true)"
		for d in /proc/driver/nvidia/gpus/*/; do
			[ -d "$d" ] && echo "readable: $(grep -c . "$d/information") lines in $d/information"
		done
		touch /proc/driver/nvidia/gpus/x 2>&1 | sed "s/^/write: /" || true
		echo "nvidia-smi -L: $(nvidia-smi -L 2>&1 | paste -sd"|")"
	' "$bin/procmask" "$@"
}
one_case "every GPU" "${gpus[@]}"
[ "${#gpus[@]}" -lt 2 ] || one_case "all but the first" "${gpus[@]:1}"
one_case "none of them" 0000:ff:1f.7
echo "--- after: the host's own list: $(ls /proc/driver/nvidia/gpus | paste -sd' ')"
