#!/bin/bash
# The GPU host run of recipe containers: a container given the GPU by a recipe's lines (a
# wildcard on 195, an uvm major of another driver, optional binds) is diagnosed, refused
# by attach, adopted, and then runs CUDA. On a GPU host, from the checkout root, after make
# gpu-tools (tests/gpu/e2e-lib.sh says what else): bash tests/gpu/run-recipes.sh. The last
# line is "N passed, N failed".
set -uo pipefail
. tests/gpu/e2e-lib.sh

gp() { "$GP" --lxcpath "$P" --confdir "$CONF" "$@"; }
ngpus=$(gpu_table | wc -l)
minor0=$(gpu_table | awk '$1 == 0 {print $2}')
uvm=$(major nvidia-uvm)
# A dynamic major no device has on this host: uvm's on another driver or boot.
stale=$(for m in $(seq 234 254); do awk -v m="$m" '$1 == m {f=1} END {exit f}' /proc/devices && { echo "$m"; break; }; done)

say "host: $ngpus GPU(s), GPU 0 is minor $minor0, nvidia-uvm $uvm, a free dynamic major $stale"
mkct r1
cp "$P/r1/config" /tmp/r1.base
cat >>"$P/r1/config" <<EOC
lxc.cgroup2.devices.allow = c 195:* rwm
lxc.cgroup2.devices.allow = c $stale:* rwm
lxc.mount.entry = /dev/nvidia$minor0 dev/nvidia$minor0 none bind,optional,create=file
lxc.mount.entry = /dev/nvidiactl dev/nvidiactl none bind,optional,create=file
lxc.mount.entry = /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file
lxc.mount.entry = /dev/nvidia-uvm-tools dev/nvidia-uvm-tools none bind,optional,create=file
EOC
cp "$P/r1/config" /tmp/r1.recipe
cat "$P/r1/config"

say "r1 as the recipe left it: check, then a start"
step gp check r1
expect_grep "check: the stale major, with today's" "rule-stale: r1 allows major $stale.*" "$out"
expect_grep "check: today's uvm major named" "today nvidia is 195, nvidia-uvm $uvm" "$out"
expect_grep "check: uvm bound without its rule" "recipe-rule-missing: r1 binds .*nvidia-uvm \(c $uvm:0\).*cuInit fails \(999\)" "$out"
expect_grep "check: file:line of the uvm bind" "$P/r1/config:[0-9]+: lxc.mount.entry = /dev/nvidia-uvm dev/nvidia-uvm" "$out"
if [ "$ngpus" -gt 1 ]; then
	expect_grep "check: the wildcard opens the other GPUs" "rule-opens-gpus: r1 can open $((ngpus - 1)) GPU" "$out"
fi
lxc-start -P "$P" -n r1 -l DEBUG -o /tmp/r1.log || grep -vE 'DEBUG|INFO' /tmp/r1.log | tail -20
step run_in r1 /bin/cuinit
expect "recipe: cuInit" "cuInit 999 CUDA_ERROR_UNKNOWN" "$(grep -o '^cuInit [0-9]* [A-Z_]*' <<<"$out")"
lxc-stop -P "$P" -n r1 -k

say "attach on the recipe's config: refused, each line named"
step gp attach r1 --gpus 0
expect "attach: exit" 2 "$rc"
expect_count "attach: lines named" 6 "$P/r1/config:[0-9]+: lxc" "$out"
expect "attach: config untouched" same "$(cmp -s /tmp/r1.recipe "$P/r1/config" && echo same)"

say "adopt --dry-run, then adopt"
step gp adopt r1 --dry-run
expect_grep "dry run: GPU 0 from the binds" "^adopt r1: GPUs 0 \(the GPUs its lines gave\)" "$out"
expect_count "dry run: the recipe's lines out" 6 '^-lxc' "$out"
expect "dry run: config untouched" same "$(cmp -s /tmp/r1.recipe "$P/r1/config" && echo same)"
step gp adopt r1
expect "adopt: exit" 0 "$rc"
cat "$P/r1/config" "$CONF/r1.ini"
step gp check r1
expect_count "check after adopt: no recipe finding" 0 'rule-stale|recipe-|rule-opens' "$out"
t0=$(date +%s%N)
lxc-start -P "$P" -n r1 -l DEBUG -o /tmp/r1.log || grep -vE 'DEBUG|INFO' /tmp/r1.log | tail -20
echo "start took $(ms_since "$t0") ms"
expect "r1 state" RUNNING "$(lxc-info -P "$P" -n r1 -sH)"
step run_in r1 /bin/cuinit
expect "adopted: cuInit" "0 cuInit 0 CUDA_SUCCESS devices 1" \
	"$rc $(grep -o '^cuInit [0-9]* [A-Z_]*' <<<"$out") $(grep '^devices ' <<<"$out")"
step gp probe r1
expect "probe r1" "0 probe r1: ok" "$rc $(head -1 <<<"$out" | grep -o '^probe r1: [a-z]*')"
while read -r index minor _; do
	[ "$index" = 0 ] && continue
	run_in r1 /bin/sh -c "mknod /dev/nvidia$minor c 195 $minor"
	step run_in r1 /bin/sh -c "exec 3<>/dev/nvidia$minor"
	expect_grep "GPU $index (minor $minor), made by hand: the cgroup refuses it" "Operation not permitted" "$out"
done < <(gpu_table)
lxc-stop -P "$P" -n r1 -k

say "detach: the config as it was, without the recipe's lines"
step gp detach r1
expect "detach: config" same "$(cmp -s /tmp/r1.base "$P/r1/config" && echo same)"
[ "$ngpus" -ge 1 ]
