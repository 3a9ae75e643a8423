#!/bin/bash
# The GPU host run of [driver] inject: a container whose rootfs holds no NVIDIA file (the
# host's C library copied in, nothing of the host's /usr bound) gets the host's driver user
# space at start, privileged and unprivileged (whose root cannot remount it read-write). On a GPU host, from the checkout root, after make gpu-tools
# (tests/gpu/e2e-lib.sh says what else): bash tests/gpu/run-inject.sh. The last line is
# "N passed, N failed".
set -uo pipefail
. tests/gpu/e2e-lib.sh

gp() { "$GP" --lxcpath "$P" --confdir "$CONF" "$@"; }
ngpus=$(gpu_table | wc -l)
version=$(sed -n 's/.*Kernel Module *\([0-9.]*\) .*/\1/p' /proc/driver/nvidia/version | head -1)
[ -n "$version" ] || version=$(grep -o '[0-9][0-9][0-9]\.[0-9][0-9]*\.[0-9][0-9]*' /proc/driver/nvidia/version | head -1)

# glibct NAME: mkct's busybox container, but with copies of the C library the probe,
# cuinit and nvidia-smi need (nothing of NVIDIA's) instead of the host's /usr bound.
glibct() {
	local n=$1 lib
	mkct "$n"
	sed -i '/^lxc.mount.entry = /d' "$P/$n/config"
	mkdir -p "$P/$n/rootfs/usr/lib" "$P/$n/rootfs/usr/lib64"
	for lib in $(ldd "$(command -v nvidia-smi)" "$top/build/cuinit" "$top/build/gpu-probe" |
		awk '$3 ~ /^\// {print $3} $1 ~ /^\/.*ld-linux/ {print $1}' | sort -u); do
		case $lib in *nvidia* | *cuda*) continue ;; esac
		mkdir -p "$P/$n/rootfs$(dirname "$lib")"
		cp -L "$lib" "$P/$n/rootfs$lib"
	done
}

say "host: driver $version; the user space gpu-provision host finds"
step "$GP" host
ldconfig -p | grep -E 'libcuda|libnvidia-ml' || true
command -v nvidia-smi

say "i1: a container with no NVIDIA file, attached without injection first"
glibct i1
step gp attach i1 --gpus 0 --no-inject
expect "attach --no-inject: exit" 0 "$rc"
lxc-start -P "$P" -n i1 -l DEBUG -o /tmp/i1.log || grep -vE 'DEBUG|INFO' /tmp/i1.log | tail -20
step run_in i1 /bin/sh -c "find / -xdev \( -name 'libcuda*' -o -name 'libnvidia*' -o -name nvidia-smi \) 2>/dev/null; echo end"
expect "i1 before: no NVIDIA file" "end" "$out"
step run_in i1 /bin/cuinit
expect_grep "i1 before: no libcuda" 'libcuda' "$out"
lxc-stop -P "$P" -n i1 -k

say "i1 with injection: gpu-provision attach i1 --inject (compute, utility)"
step gp attach i1 --inject
expect "attach --inject: exit" 0 "$rc"
cat "$CONF/i1.ini"
t0=$(date +%s%N)
lxc-start -P "$P" -n i1 -l DEBUG -o /tmp/i1.log || grep -vE 'DEBUG|INFO' /tmp/i1.log | tail -20
echo "start with injection took $(ms_since "$t0") ms"
expect "i1 state" RUNNING "$(lxc-info -P "$P" -n i1 -sH)"
cat "/run/gpu-provision/i1.inject"
step run_in i1 /bin/sh -c "find / -xdev \( -name 'libcuda*' -o -name 'libnvidia*' -o -name nvidia-smi \) 2>/dev/null; ls -l /usr/local/nvidia/lib64 /usr/local/nvidia/bin; grep ' /usr/local/nvidia' /proc/self/mountinfo | cut -d' ' -f5,6"
expect_grep "i1: libcuda.so.1 in the injected directory" "libcuda.so.1 -> libcuda.so.$version" "$out"
step run_in i1 /bin/cuinit
expect "i1 cuInit" "0 cuInit 0 CUDA_SUCCESS devices 1" \
	"$rc $(grep -o '^cuInit [0-9]* [A-Z_]*' <<<"$out") $(grep '^devices ' <<<"$out")"
step run_in i1 /usr/bin/nvidia-smi -L
expect "i1 nvidia-smi -L: exit" 0 "$rc"
expect_count "i1 nvidia-smi -L: exactly its GPU" 1 '^GPU [0-9]+: ' "$out"
expect_grep "i1 nvidia-smi -L: GPU 0's UUID" "$(gpu_table | awk '$1 == 0 {print $4}')" "$out"
step gp probe i1
expect "probe i1" "0 probe i1: ok" "$rc $(head -1 <<<"$out" | grep -o '^probe i1: [a-z]*')"
expect_grep "probe i1: the injected libcuda at the module's version" \
	"libcuda /usr/local/nvidia/lib64/libcuda.so.$version \(injected, the kernel module's $version\)" "$out"
step gp probe i1 --json
lxc-stop -P "$P" -n i1 -k
step find "$P/i1/rootfs/usr/local" "$P/i1/rootfs/usr/bin" "$P/i1/rootfs/etc" -xdev
say "i1 after stop: nothing staged is left on the host"
expect "i1 staged tree after stop" "0 absent" \
	"$(grep -c ' /run/gpu-provision/i1.driver' /proc/self/mountinfo) $([ -e /run/gpu-provision/i1.driver ] && echo present || echo absent)"

say "i2: unprivileged, injected: the real driver's files, bound locked read-only"
glibct i2
printf '%s\n' "lxc.idmap = u 0 100000 65536" "lxc.idmap = g 0 100000 65536" >>"$P/i2/config"
chown -R 100000:100000 "$P/i2/rootfs"
chmod 755 "$P/i2"
step gp attach i2 --gpus 0 --inject
expect "attach i2 --inject: exit" 0 "$rc"
lxc-start -P "$P" -n i2 -l DEBUG -o /tmp/i2.log || grep -vE 'DEBUG|INFO' /tmp/i2.log | tail -20
expect "i2 state" RUNNING "$(lxc-info -P "$P" -n i2 -sH)"
step grep ' /run/gpu-provision/i2.driver' /proc/self/mountinfo
expect_grep "i2: the driver's directory staged read-only" "ro,nosuid,nodev" "$out"
step run_in i2 /bin/cuinit
expect "i2 cuInit" "0 cuInit 0 CUDA_SUCCESS devices 1" \
	"$rc $(grep -o '^cuInit [0-9]* [A-Z_]*' <<<"$out") $(grep '^devices ' <<<"$out")"
step run_in i2 /bin/sh -c "mount -o remount,bind,rw /usr/local/nvidia/lib64/libcuda.so.$version 2>&1 && echo remounted || echo refused"
expect_grep "i2: remount,rw of the injected libcuda refused" "^refused" "$out"
step gp probe i2
expect "probe i2" "0 probe i2: ok" "$rc $(head -1 <<<"$out" | grep -o '^probe i2: [a-z]*')"
lxc-stop -P "$P" -n i2 -k
expect "i2 staged tree after stop" 0 "$(grep -c ' /run/gpu-provision/i2.driver' /proc/self/mountinfo)"

say "start times, 9 alternating each: i1 with injection, i0 (the same rootfs) without"
glibct i0
gp attach i0 --gpus 0 --no-inject >/dev/null
for k in 1 2 3 4 5 6 7 8 9; do
	for n in i0 i1; do
		t0=$(date +%s%N)
		lxc-start -P "$P" -n $n
		echo "$n $(($(date +%s%N) - t0))" >>/tmp/starts
		expect "$n start $k" RUNNING "$(lxc-info -P "$P" -n $n -sH)"
		lxc-stop -P "$P" -n $n -k
	done
done
for n in i0 i1; do
	echo "$n: median start $(awk -v n=$n '$1 == n {print $2}' /tmp/starts | sort -n | sed -n 5p | awk '{printf "%.1f", $1 / 1e6}') ms of 9"
done
rm -f /tmp/starts
[ "$ngpus" -ge 1 ]
