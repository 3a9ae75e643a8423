#!/bin/bash
# On the GPU host (no LXC, no network needed): the route the CDI spec gives a nested
# container's loader, with the real driver. An image with no NVIDIA file and a loader cache
# of its own that names none (the host's loader, libc and libdl copied, as a plain Debian or
# Ubuntu image has them) gets each of the host's driver libraries bound at its soname in
# /usr/lib/x86_64-linux-gnu, as lib/start/cdi.c mounts them, nvidia-smi at /usr/bin, and
# /dev, /proc, /sys; then cuinit (a CUDA program: libcuda.so.1, cuInit, the devices),
# gpu-probe and nvidia-smi run chrooted in it. Usage: [GP_BIN=DIR] tests/gpu/run-cdi-loader.sh OUTDIR
# (GP_BIN: where cuinit and gpu-probe are, default build/: make gpu-tools)
set -euo pipefail
out=${1:?usage: run-cdi-loader.sh OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
img=$(mktemp -d /tmp/gp-cdi-img.XXXXXX)
lib=/usr/lib/x86_64-linux-gnu
exec > >(tee "$out/cdi-loader.log") 2>&1
mkdir -p "$img$lib" "$img/lib64" "$img/usr/bin" "$img/etc" "$img/dev" "$img/proc" "$img/sys" "$img/tmp"
for f in ld-linux-x86-64.so.2 libc.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libm.so.6; do
	cp -L "$lib/$f" "$img$lib/"
done
ln -s "$lib/ld-linux-x86-64.so.2" "$img/lib64/ld-linux-x86-64.so.2"
ln -s usr/lib "$img/lib"
bin=${GP_BIN:-$top/build}
cp "$bin/cuinit" "$bin/gpu-probe" "$img/usr/bin/"
ldconfig -r "$img"
echo "image cache names an NVIDIA library: $(ldconfig -r "$img" -p 2>/dev/null | grep -c 'nvidia\|cuda' || true)"
# The host's driver libraries, one per soname, as the hook selects them (the module's version).
version=$(grep -o ' [0-9][0-9]*\.[0-9][0-9.]*' /proc/driver/nvidia/version | head -1 | tr -d ' ')
echo "module $version"
ldconfig -p | awk '/x86-64/ && ($1 ~ /^lib(cuda|nvidia)/) {print $1, $NF}' | sort -u -k1,1 >"$out/host-libs.txt"
unshare -m --propagation private bash -s "$img" "$version" "$out" <<'EOS'
set -euo pipefail
img=$1 version=$2 out=$3 lib=/usr/lib/x86_64-linux-gnu n=0
while read -r soname path; do
	real=$(readlink -f "$path")
	case $real in *".so.$version") ;; *) continue ;; esac
	: >"$img$lib/$soname"
	mount --bind -o ro "$real" "$img$lib/$soname"
	n=$((n + 1))
done <"$out/host-libs.txt"
echo "bound $n libraries at their sonames"
: >"$img/usr/bin/nvidia-smi"
mount --bind -o ro "$(command -v nvidia-smi)" "$img/usr/bin/nvidia-smi"
mount --rbind /dev "$img/dev"
mount -t proc proc "$img/proc"
mount --rbind /sys "$img/sys"
echo "--- cuinit"
chroot "$img" /usr/bin/cuinit || echo "cuinit exit $?"
echo "--- gpu-probe"
chroot "$img" /usr/bin/gpu-probe || echo "gpu-probe exit $?"
echo "--- nvidia-smi -L"
chroot "$img" /usr/bin/nvidia-smi -L || echo "nvidia-smi exit $?"
echo "--- times (ms): cuinit in the image, cuinit on the host"
for i in 1 2 3; do
	a=$(date +%s%N); chroot "$img" /usr/bin/cuinit >/dev/null; b=$(date +%s%N)
	"$img/usr/bin/cuinit" >/dev/null; c=$(date +%s%N)
	echo "$(((b - a) / 1000000)) $(((c - b) / 1000000))"
done
EOS
rm -rf "$img"
