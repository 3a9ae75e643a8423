#!/bin/bash
# The GPU host run of probe --deep: a container with every GPU and the host's /usr (the
# driver's whole user space) is made to compute, and NVML, NVDEC, NVENC and Vulkan are
# asked, with the real driver; then the time of probe, probe --deep and of lxc-attach of a
# bare cuInit program, medians of 15 alternating runs. On a GPU host, from the checkout
# root, after make gpu-tools (tests/gpu/e2e-lib.sh says what else): bash tests/gpu/run-deep.sh.
# The last line is "N passed, N failed".
set -uo pipefail
. tests/gpu/e2e-lib.sh

gp() { "$GP" --lxcpath "$P" --confdir "$CONF" "$@"; }
ngpus=$(gpu_table | wc -l)
vulkan=absent
ldconfig -p | grep -q 'libvulkan.so.1 ' && vulkan=ok

say "d1: every GPU ($ngpus), the host's /usr bound; the Vulkan loader here: $vulkan"
mkct d1
step gp attach d1 --gpus all
expect "attach: exit" 0 "$rc"
lxc-start -P "$P" -n d1 -l DEBUG -o /tmp/d1.log || grep -vE 'DEBUG|INFO' /tmp/d1.log | tail -20
step gp probe d1
expect "probe: exit" 0 "$rc"

say "probe d1 --deep"
step gp probe d1 --deep
expect "probe --deep: exit" 0 "$rc"
step gp probe d1 --deep --json
json=$out
verdicts=$(jq -r '.capabilities[] | "\(.capability) \(.status)"' <<<"$json" 2>/dev/null)
for want in "compute ok" "nvml ok" "nvdec-h264 ok" "nvdec-hevc ok" "nvdec-av1 unsupported" \
	"nvenc unsupported" "vulkan $vulkan"; do
	expect_count "$want on each GPU" "$ngpus" "^$want\$" "$verdicts"
done
expect "the kernel's result checked on each GPU" "$ngpus" \
	"$(jq '[.capabilities[] | select(.capability == "compute" and .step == "kernel-result")] | length' <<<"$json")"
expect "NVENC: NV_ENC_ERR_UNSUPPORTED_DEVICE on each GPU" "$ngpus" \
	"$(jq '[.capabilities[] | select(.capability == "nvenc" and .name == "NV_ENC_ERR_UNSUPPORTED_DEVICE")] | length' <<<"$json")"
expect "the deep verdict's GPUs are CUDA's" "$(jq -r '[.devices[].uuid] | sort | join(" ")' <<<"$json")" \
	"$(jq -r '[.capabilities[].gpu] | unique | join(" ")' <<<"$json")"
expect "findings: the engines this GPU lacks, said" "video-engine-absent" \
	"$(jq -r '[.findings[].id | select(. != "fixture-host")] | unique | join(" ")' <<<"$json")"

say "list and check after it"
step gp list
expect_grep "list: the deep verdict" "d1 .*ok, 0 min ago; deep: .*nvenc unsupported" "$out"
step gp check d1 --deep --format prometheus
expect_count "gpu_provision_capability: compute, nvml, 2 decoders per GPU" $((ngpus * 4)) \
	'^gpu_provision_capability\{container="d1",gpu="GPU-[0-9a-f-]*",capability="[a-z0-9-]*"\} 1$' "$out"

say "time: probe, probe --deep, lxc-attach of cuinit, cuinit on the host; 15 alternating runs"
: >/tmp/plain.ms; : >/tmp/deep.ms; : >/tmp/attach.ms; : >/tmp/host.ms; : >/tmp/inner.ms
ms() { local t0; t0=$(date +%s%N); "$@" >/tmp/ms.out 2>&1; ms_since "$t0"; }
for i in $(seq 15); do
	case $((i % 4)) in
	0) order="plain deep attach host" ;;
	1) order="deep attach host plain" ;;
	2) order="attach host plain deep" ;;
	*) order="host plain deep attach" ;;
	esac
	for k in $order; do
		case $k in
		plain) ms gp probe d1 >>/tmp/plain.ms
			sed -n 's/^probe d1: ok in \([0-9]*\) ms$/\1/p' /tmp/ms.out >>/tmp/inner.ms ;;
		deep) ms gp probe d1 --deep >>/tmp/deep.ms ;;
		attach) ms run_in d1 /bin/cuinit >>/tmp/attach.ms ;;
		host) ms "$top/build/cuinit" >>/tmp/host.ms ;;
		esac
	done
done
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
p=$(median </tmp/plain.ms) d=$(median </tmp/deep.ms) a=$(median </tmp/attach.ms)
h=$(median </tmp/host.ms) inner=$(median </tmp/inner.ms)
for k in plain deep attach host inner; do echo "$k: $(sort -n /tmp/$k.ms | paste -sd' ')"; done
awk -v p="$p" -v d="$d" -v a="$a" -v h="$h" -v i="$inner" 'BEGIN {
	printf "cuinit on the host:              %5d ms\n", h
	printf "lxc-attach of cuinit:            %5d ms\n", a
	printf "gpu-provision probe:             %5d ms (ratio to lxc-attach %.3f; the probe inside %d ms)\n", p, p / a, i
	printf "gpu-provision probe --deep:      %5d ms (%+d ms, ratio to probe %.3f)\n", d, d - p, d / p
}'
expect "probe within 1.05x of lxc-attach of cuinit" yes "$(awk -v p="$p" -v a="$a" 'BEGIN {print (p <= 1.05 * a) ? "yes" : "no"}')"
lxc-stop -P "$P" -n d1 -k
