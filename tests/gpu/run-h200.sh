#!/bin/bash
# The GPU host run: real driver, real libcuda, real cgroup v2 enforcement, no --root.
# Prepare here: ../shared/gpu-e2e/fetch-debs.sh; make gpu-tools. Then on the GPU host, from
# the checkout root (with .gpu-e2e and build carried): bash tests/gpu/run-h200.sh
# 1. a container attached with gpu-provision sees nvidia0, nvidiactl, nvidia-uvm with the
#    host's majors, and cuInit() == 0 with one device inside;
# 2. the same container with uvm's cgroup rule removed is refused by the hook at pre-start;
# 3. without the hook's check (static binds, uvm not allowed) cuInit fails (999 was seen).
set -uo pipefail
. tests/gpu/e2e-lib.sh

say "host: $(uname -r); lxc $(lxc-start --version)"
"$GP" host
grep -E 'nvidia' /proc/devices
ls -l /dev/nvidia* 2>&1

say "uvm and HMM on the real host: libkmod state, NVML, verdict"
t0=$(date +%s%N)
"$GP" host --json | tr -d '\n ' | grep -o '"uvm":{[^}]*}' ; echo
"$GP" host | sed -n '/^modules:/,/^nodes:/p'
echo "host took $(( ($(date +%s%N) - t0) / 1000000 )) ms"
say "gpu-provision prepare --dry-run, then prepare --modules-only (real)"
"$GP" --confdir "$CONF" prepare --dry-run; echo "rc=$?"
"$GP" --confdir "$CONF" prepare --modules-only; echo "rc=$?"
grep -H . /sys/module/nvidia_uvm/parameters/uvm_disable_hmm

say "bare cuInit on the host, 5 runs"
for i in 1 2 3 4 5; do "$top/build/cuinit" | grep -E "libcuda|cuInit"; done; grep " /usr" /proc/self/mountinfo | cut -d" " -f4,5

say "1. container g1: gpu-provision attach g1 --gpus all"
mkct g1
"$GP" --lxcpath "$P" --confdir "$CONF" attach g1 --gpus all
grep -E 'gpu-hook|devices.allow = c (195|[0-9]+):' "$P/g1/config" | grep -v '\*'
lxc-start -P "$P" -n g1 -l DEBUG -o /tmp/g1.log || { grep -E 'ERROR|gpu-hook' /tmp/g1.log; }
echo "state: $(lxc-info -P "$P" -n g1 -sH)"
run_in g1 /bin/sh -c 'ls /usr/local/nvidia/lib64/libcuda.so.1; ls -l /dev/nvidia*; grep " /dev/nvidia" /proc/self/mountinfo | cut -d" " -f5,6'
say "cuinit inside g1, 5 runs"
for i in 1 2 3 4 5; do run_in g1 /bin/cuinit; echo "rc=$?"; done 2>&1 | grep -E 'libcuda|cuInit|devices|device 0|rc='
say "gpu-provision probe g1 (the real probe: memfd, liblxc attach, real libcuda), 5 runs"
for i in 1 2 3 4 5; do "$GP" --lxcpath "$P" --confdir "$CONF" probe g1 | head -4; echo "rc=${PIPESTATUS[0]}"; done
"$GP" --lxcpath "$P" --confdir "$CONF" probe g1 --json | tr -d '\n ' | grep -o '"status":"[a-z]*"\|"cuinit":{[^}]*}\|"devices":\[[^]]*\]'; echo
say "gpu-provision check --all (host, g1's config, g1 probed), then as Prometheus metrics"
"$GP" --lxcpath "$P" --confdir "$CONF" check --all; echo "rc=$?"
"$GP" --lxcpath "$P" --confdir "$CONF" check --all --format prometheus | grep -v '^#'
say "g1 with uvm's device rule taken away at run time (lxc-cgroup), then probed"
lxc-cgroup -P "$P" -n g1 devices.deny "c $(awk '$2=="nvidia-uvm"{print $1}' /proc/devices):0 rwm"; echo "lxc-cgroup rc=$?"
"$GP" --lxcpath "$P" --confdir "$CONF" probe g1; echo "rc=$?"
lxc-stop -P "$P" -n g1 -k

say "2. g1 with uvm's rule removed: the hook refuses the start"
uvm=$(awk '$2=="nvidia-uvm"{print $1}' /proc/devices)
sed -i "/devices.allow = c $uvm:0 rwm/d" "$P/g1/config"
if lxc-start -P "$P" -n g1 -l DEBUG -o /tmp/g1b.log; then echo "UNEXPECTED: started"; else echo "start refused"; fi
grep -o 'gpu-hook: error: .*' /tmp/g1b.log | sort -u
echo "state: $(lxc-info -P "$P" -n g1 -sH)"

say "3. g3 without the hook: static binds, only c 195:* allowed (the recipe that misses uvm)"
mkct g3
cat >>"$P/g3/config" <<EOC
lxc.cgroup2.devices.allow = c 195:* rwm
lxc.mount.entry = /dev/nvidia0 dev/nvidia0 none bind,optional,create=file 0 0
lxc.mount.entry = /dev/nvidiactl dev/nvidiactl none bind,optional,create=file 0 0
lxc.mount.entry = /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file 0 0
EOC
lxc-start -P "$P" -n g3 -l DEBUG -o /tmp/g3.log || grep ERROR /tmp/g3.log
run_in g3 /bin/cuinit; echo "rc=$?"
say "gpu-provision probe g3 (not attached by us: the recipe without uvm's rule)"
"$GP" --lxcpath "$P" --confdir "$CONF" probe g3; echo "rc=$?"
say "gpu-provision check g3 (its config: the recipe's optional binds)"
"$GP" --lxcpath "$P" --confdir "$CONF" check g3 | sed -n '/^container g3/,$p'; echo "rc=$?"
lxc-stop -P "$P" -n g3 -k

say "detach g1 restores its config"
"$GP" --lxcpath "$P" --confdir "$CONF" detach g1
grep -c gpu-hook "$P/g1/config"
