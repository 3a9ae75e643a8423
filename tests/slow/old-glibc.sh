#!/bin/bash
# make check-slow: gpu-probe in a container whose C library is older than the host's
# (Debian 11, glibc 2.31), made with debootstrap once and cached outside the repo.
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
"$GP" --root "$WORK/root" --confdir "$CONF" --lxcpath "$P" attach old --gpus all
# The libcuda double, found through the container's own ldconfig and ld.so.cache.
mkdir -p "$P/old/rootfs/opt/fakecuda"
cp "${GP_BUILD:-$GP_TOP/build}/tests/fakecuda/libcuda.so" "$P/old/rootfs/opt/fakecuda/libcuda.so.580.159.04"
echo /opt/fakecuda >"$P/old/rootfs/etc/ld.so.conf.d/fakecuda.conf"
chroot "$P/old/rootfs" /sbin/ldconfig
echo "device 0000:00:06.0 GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460" >"$P/old/rootfs/etc/fake-cuda"
lxc-start -P "$P" -n old
out=$("$GP" --root "$WORK/root" --confdir "$CONF" --lxcpath "$P" probe old)
printf '%s\n' "$out"
passed=0 failed=0
for want in "probe old: ok" "glibc 2.31;" "cuInit 0 CUDA_SUCCESS, 1 device(s)"; do
	if printf '%s\n' "$out" | grep -qF "$want"; then passed=$((passed + 1)); else
		echo "not found: $want"; failed=$((failed + 1)); fi
done
echo "check-slow: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
