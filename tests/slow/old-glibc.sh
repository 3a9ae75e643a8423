#!/bin/bash
# make check-slow: a debootstrapped Debian 11 container (glibc 2.31, older than the host's),
# made once and cached outside the repo, with no NVIDIA file of its own: the driver's user
# space (test doubles made under a --root) is injected at start; gpu-probe and nvidia-smi
# run from it, also after the container's own ldconfig, and after stop only what the
# README lists is left.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "check-slow: run as root" >&2; exit 1; }
CACHE=${GP_CACHE:-/var/cache/gpu-provision}/bullseye
if [ ! -x "$CACHE/bin/sleep" ]; then
	command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
	rm -rf "$CACHE.tmp"
	mkdir -p "$(dirname "$CACHE")"
	echo "check-slow: debootstrap --variant=minbase bullseye (once, cached in $CACHE)"
	debootstrap --variant=minbase bullseye "$CACHE.tmp" http://deb.debian.org/debian >/dev/null
	mv "$CACHE.tmp" "$CACHE"
fi
use_trusted_install || exit 1 # attach writes only a gpu-hook root alone can change
WORK=$(mktemp -d /tmp/gp-slow.XXXXXX)
chmod 755 "$WORK"
P=$WORK/lxc CONF=$WORK/conf
mkdir -p "$P/old" "$CONF"
trap 'lxc-stop -P "$P" -n old -k >/dev/null 2>&1 || true; rm -rf "$WORK" ${GP_INSTALLED:+"$GP_INSTALLED"}' EXIT

cp -a "$CACHE" "$P/old/rootfs"
cat >"$P/old/config" <<EOC
lxc.uts.name = old
lxc.rootfs.path = dir:$P/old/rootfs
lxc.net.0.type = empty
lxc.include = /usr/share/lxc/config/common.conf
lxc.apparmor.profile = unconfined
lxc.autodev = 1
lxc.init.cmd = /bin/sleep infinity
EOC
make_root h200-580-open "$WORK/root"
add_host_userspace "$WORK/root" 580.159.04
gp() { "$GP" --root "$WORK/root" --confdir "$CONF" --lxcpath "$P" "$@"; }
gp attach old --gpus all --inject
echo "device 0000:00:06.0 GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460" >"$P/old/rootfs/etc/fake-cuda"
listing() { (cd "$P/old/rootfs" && find . -xdev ! -path './var/*' ! -path './tmp/*' ! -path './run/*' -printf '%p %y %l\n' | sort); }
before=$(listing)
passed=0 failed=0
expect() { # expect DESCRIPTION WANT TEXT: TEXT has the line WANT (fixed string)
	if printf '%s\n' "$3" | grep -qF -- "$2"; then passed=$((passed + 1)); else
		echo "not ok: $1: no [$2] in:"; printf '%s\n' "$3"; failed=$((failed + 1)); fi
}
expect "no NVIDIA file before" "none" "$(find "$P/old/rootfs" -xdev \( -name 'libcuda*' -o -name 'libnvidia*' -o -name nvidia-smi \) | grep . || echo none)"
lxc-start -P "$P" -n old
in_old() { lxc-attach -P "$P" -n old --clear-env -- /bin/sh -c "$*"; }
smi="nvidia-smi (test double): libnvidia-ml.so.1 is /usr/local/nvidia/lib64/libnvidia-ml.so.1 (/usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04), nvmlInit_v2 0, 1 GPU"
out=$(gp probe old)
printf '%s\n' "$out"
expect "probe" "probe old: ok" "$out"
expect "glibc" "glibc 2.31;" "$out"
expect "cuInit" "cuInit 0 CUDA_SUCCESS, 1 device(s)" "$out"
expect "the injected libcuda" "libcuda /usr/local/nvidia/lib64/libcuda.so.580.159.04 (injected, the kernel module's 580.159.04)" "$out"
expect "nvidia-smi on PATH" "$smi" "$(in_old nvidia-smi)"
expect "the container's loader cache" "libcuda.so.1 (libc6,x86-64) => /usr/local/nvidia/lib64/libcuda.so.1" "$(in_old ldconfig -p)"
# A package install runs the container's own ldconfig: the injected files are still found.
in_old ldconfig
expect "after the container's ldconfig: cache" "libnvidia-ml.so.1 (libc6,x86-64) => /usr/local/nvidia/lib64/libnvidia-ml.so.1" "$(in_old ldconfig -p)"
expect "after the container's ldconfig: nvidia-smi" "$smi" "$(in_old nvidia-smi)"
expect "after the container's ldconfig: probe" "probe old: ok" "$(gp probe old)"
lxc-stop -P "$P" -n old -k
expect "left after stop" "./etc/ld.so.conf.d/gpu-provision.conf f 
./usr/bin/nvidia-smi l /usr/local/nvidia/bin/nvidia-smi
./usr/local/nvidia d " "$(comm -13 <(echo "$before") <(listing))"
expect "nothing taken" "none" "$(comm -23 <(echo "$before") <(listing) | grep . || echo none)"
expect "the directory empty" "none" "$(find "$P/old/rootfs/usr/local/nvidia" -mindepth 1 | grep . || echo none)"
echo "check-slow: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
