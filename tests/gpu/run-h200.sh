#!/bin/bash
# The GPU host run: real driver, real libcuda, real cgroup v2 enforcement, no --root.
# On a GPU host, from the checkout root, after make gpu-tools (tests/gpu/e2e-lib.sh says
# what else): bash tests/gpu/run-h200.sh
# 1. a container attached with gpu-provision sees nvidia0, nvidiactl, nvidia-uvm with the
#    host's majors, and cuInit() == 0 with one device inside;
# 2. the same container with uvm's cgroup rule removed is refused by the hook at pre-start;
# 3. without the hook's check (static binds, uvm not allowed) cuInit fails (999 was seen).
# Each step's outcome is checked (expect, tests/gpu/e2e-lib.sh); the last line is
# "N passed, N failed" and the exit code is 1 when any check failed.
set -uo pipefail
. tests/gpu/e2e-lib.sh

gp() { "$GP" --lxcpath "$P" --confdir "$CONF" "$@"; }
ngpus=$(gpu_table | wc -l)
uvm=$(major nvidia-uvm)

say "host: $(uname -r); lxc $(lxc-start --version)"
step "$GP" host
expect "host: exit" 0 "$rc"
expect_grep "host: the driver" '^driver: +[0-9.]+ ' "$out"
expect "host: GPUs as in /proc/driver/nvidia/gpus" "$(find /proc/driver/nvidia/gpus -mindepth 1 -maxdepth 1 | wc -l)" "$ngpus"
expect_grep "host: majors as in /proc/devices" "^majors: +nvidia 195, nvidia-uvm $uvm," "$out"
grep -E 'nvidia' /proc/devices
ls -l /dev/nvidia* 2>&1

say "uvm and HMM on the real host: libkmod state, NVML, verdict"
t0=$(date +%s%N)
step "$GP" host --json
json=$(tr -d '\n ' <<<"$out")
grep -o '"uvm":{[^}]*}' <<<"$json"
expect "host --json: uvm loaded" '"loaded":true' "$(grep -o '"uvm":{"loaded":[a-z]*' <<<"$json" | sed 's/.*{//')"
"$GP" host | sed -n '/^modules:/,/^nodes:/p'
echo "host took $(ms_since "$t0") ms"
say "gpu-provision prepare --dry-run, then prepare --modules-only (real)"
step "$GP" --confdir "$CONF" prepare --dry-run
expect "prepare --dry-run: exit" 0 "$rc"
step "$GP" --confdir "$CONF" prepare --modules-only
expect "prepare --modules-only: exit" 0 "$rc"
grep -H . /sys/module/nvidia_uvm/parameters/uvm_disable_hmm
expect "after prepare: HMM not active" '"hmm_active":false' \
	"$("$GP" host --json | tr -d '\n ' | grep -o '"hmm_active":[a-z]*')"

say "bare cuInit on the host, 5 runs"
for i in 1 2 3 4 5; do
	step "$top/build/cuinit"
	expect "host cuInit run $i" "0 cuInit 0 CUDA_SUCCESS" "$rc $(grep -o '^cuInit [0-9]* [A-Z_]*' <<<"$out")"
done
grep " /usr" /proc/self/mountinfo | cut -d" " -f4,5

say "1. container g1: gpu-provision attach g1 --gpus all"
mkct g1
step gp attach g1 --gpus all
expect "attach g1: exit" 0 "$rc"
grep -E 'gpu-hook|devices.allow = c (195|[0-9]+):' "$P/g1/config" | grep -v '\*'
for rule in "195:255" "$uvm:0" "$uvm:1" $(gpu_table | awk '{print "195:" $2}'); do
	expect_count "g1's config allows c $rule" 1 "^lxc.cgroup2.devices.allow = c $rule rwm$" "$(cat "$P/g1/config")"
done
expect_count "g1's hook lines" 3 '^lxc.hook.(pre-start|autodev|post-stop) = .*gpu-hook' "$(cat "$P/g1/config")"
lxc-start -P "$P" -n g1 -l DEBUG -o /tmp/g1.log || { grep -E 'ERROR|gpu-hook' /tmp/g1.log; }
expect "g1 state" RUNNING "$(lxc-info -P "$P" -n g1 -sH)"
step run_in g1 /bin/sh -c 'ls /usr/local/nvidia/lib64/libcuda.so.1; ls -l /dev/nvidia*; grep " /dev/nvidia" /proc/self/mountinfo | cut -d" " -f5,6'
expect_count "g1: nodes bound nosuid,noexec" $((3 + ngpus)) '^/dev/nvidia[^ ]* [a-z]+,nosuid,noexec' "$out"
expect_grep "g1: nvidia-uvm with the host's major" "^c.* $uvm, +0 .* /dev/nvidia-uvm$" "$out"
step run_in g1 /bin/sh -c 'ls /proc/driver/nvidia/gpus | tr "\n" " "; echo; grep -c " /proc/driver/nvidia/gpus " /proc/self/mountinfo'
expect "g1 (every GPU given): /proc lists the host's GPUs, nothing mounted over it" \
	"$(ls /proc/driver/nvidia/gpus | tr '\n' ' ') 0" "$(paste -sd' ' <<<"$out")"
say "cuinit inside g1, 5 runs"
for i in 1 2 3 4 5; do
	step run_in g1 /bin/cuinit
	expect "g1 cuInit run $i" "0 cuInit 0 CUDA_SUCCESS devices $ngpus" \
		"$rc $(grep -o '^cuInit [0-9]* [A-Z_]*' <<<"$out") $(grep '^devices ' <<<"$out")"
done
say "gpu-provision probe g1 (the real probe: memfd, liblxc attach, real libcuda), 5 runs"
for i in 1 2 3 4 5; do
	step gp probe g1
	expect "probe g1 run $i" "0 probe g1: ok" "$rc $(head -1 <<<"$out" | grep -o '^probe g1: [a-z]*')"
done
step gp probe g1 --json
json=$(tr -d '\n ' <<<"$out")
expect "probe g1 --json: exit" 0 "$rc"
expect "probe g1 --json: status" '"status":"ok"' "$(grep -o '"status":"[a-z]*"' <<<"$json")"
expect "probe g1 --json: cuInit" '"cuinit":{"code":0,"name":"CUDA_SUCCESS"}' "$(grep -o '"cuinit":{[^}]*}' <<<"$json")"
expect "probe g1 --json: devices" "$ngpus" "$(grep -o '"devices":\[[^]]*\]' <<<"$json" | grep -o '"uuid"' | wc -l)"
say "gpu-provision check --all (host, g1's config, g1 probed), then as Prometheus metrics"
step gp check --all
expect "check --all: exit" 0 "$rc"
expect_grep "check --all: g1" '^container g1 \(probe: ok\)$' "$out"
step gp check --all --format prometheus
expect "check --all prometheus: exit" 0 "$rc"
expect_grep "prometheus: g1 ok" '^gpu_provision_probe_status\{container="g1",status="ok"\} 1$' "$out"
expect_grep "prometheus: no error" '^gpu_provision_findings\{severity="error"\} 0$' "$out"
say "g1 with uvm's device rule taken away at run time (lxc-cgroup), then probed"
lxc-cgroup -P "$P" -n g1 devices.deny "c $uvm:0 rwm"
expect "lxc-cgroup devices.deny: exit" 0 "$?"
step gp probe g1
expect "probe g1 without uvm: exit" 1 "$rc"
expect_grep "probe g1 without uvm: cuInit 999" '^  cuInit 999 CUDA_ERROR_UNKNOWN' "$out"
expect "probe g1 without uvm: errors" "node-cgroup uvm-blocked" \
	"$(sed -n 's/^error \([a-z0-9-]*\):.*/\1/p' <<<"$out" | sort | paste -sd' ')"
lxc-stop -P "$P" -n g1 -k

say "2. g1 with uvm's rule removed: the hook refuses the start"
sed -i "/devices.allow = c $uvm:0 rwm/d" "$P/g1/config"
rc=0
lxc-start -P "$P" -n g1 -l DEBUG -o /tmp/g1b.log || rc=$?
expect "start refused" yes "$([ "$rc" -ne 0 ] && echo yes || echo no)"
step grep -o 'gpu-hook: error: .*' /tmp/g1b.log
expect_grep "the hook's reason" "has no rule \"lxc.cgroup2.devices.allow = c $uvm:0 rwm\" for /dev/nvidia-uvm" "$out"
expect "g1 state after the refusal" STOPPED "$(lxc-info -P "$P" -n g1 -sH)"

say "2b. g1 rewritten, then its recorded rules (.applied) given one of another device here"
step gp sync g1
expect "sync g1: exit" 0 "$rc"
other=$(awk '/^Character/{c=1; next} /^$/{c=0} c && $2 !~ /^nvidia/ {print $1; exit}' /proc/devices)
echo "lxc.cgroup2.devices.allow = c $other:0 rwm" >>"$CONF/g1.applied"
rc=0
lxc-start -P "$P" -n g1 -l DEBUG -o /tmp/g1c.log || rc=$?
expect "start refused" yes "$([ "$rc" -ne 0 ] && echo yes || echo no)"
step grep -o 'gpu-hook: error: .*' /tmp/g1c.log
expect_grep "the hook's reason" "opens a device of major $other, which here is none that this start gives" "$out"
sed -i "/c $other:0 rwm/d" "$CONF/g1.applied"

say "3. g3 without the hook: static binds, only c 195:* allowed (the recipe that misses uvm)"
mkct g3
cat >>"$P/g3/config" <<EOC
lxc.cgroup2.devices.allow = c 195:* rwm
lxc.mount.entry = /dev/nvidia0 dev/nvidia0 none bind,optional,create=file 0 0
lxc.mount.entry = /dev/nvidiactl dev/nvidiactl none bind,optional,create=file 0 0
lxc.mount.entry = /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file 0 0
EOC
lxc-start -P "$P" -n g3 -l DEBUG -o /tmp/g3.log || grep ERROR /tmp/g3.log
expect "g3 state" RUNNING "$(lxc-info -P "$P" -n g3 -sH)"
step run_in g3 /bin/cuinit
expect "g3 cuInit (uvm refused)" "1 cuInit 999 CUDA_ERROR_UNKNOWN" "$rc $(grep -o '^cuInit [0-9]* [A-Z_]*' <<<"$out")"
say "gpu-provision probe g3 (not attached by us: the recipe without uvm's rule)"
step gp probe g3
expect "probe g3: exit" 1 "$rc"
expect "probe g3: findings" "error node-cgroup error uvm-blocked warning not-attached" \
	"$(sed -n 's/^\(error\|warning\) \([a-z0-9-]*\):.*/\1 \2/p' <<<"$out" | paste -sd' ')"
say "gpu-provision check g3 (its config: the recipe's optional binds)"
step gp check g3
expect "check g3: exit" 1 "$rc"
expect_grep "check g3: optional-mount, one for the 3 binds" '^  warning optional-mount: g3 binds 3 NVIDIA node' "$out"
expect_grep "check g3: uvm bound without its rule, cuInit 999 foretold" \
	"^  error recipe-rule-missing: g3 binds nvidia-uvm \(c $(major nvidia-uvm):0\), but no .* cuInit fails \(999\)" "$out"
expect_grep "check g3: uvm-blocked" '^  error uvm-blocked: ' "$out"
lxc-stop -P "$P" -n g3 -k

say "detach g1 restores its config"
step gp detach g1
expect "detach g1: exit" 0 "$rc"
expect_count "g1's gpu-hook lines after detach" 0 'gpu-hook' "$(cat "$P/g1/config")"
