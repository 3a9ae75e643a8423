# Shared by the GPU host runs (run-h200.sh, run-multi.sh): source from the checkout root.
# Installs the carried LXC runtime, makes sure containers find libcuda through the bound
# ld.so.cache, and gives mkct (a busybox container with the host's /usr) and run_in.
set -uo pipefail
top=$(pwd)
GP=$top/build/gpu-provision
# attach writes only a gpu-hook that no one but root can change: where the checkout is not
# such a place, the binaries go to a root-owned directory first (tests/lib.sh).
. "$top/tests/lib.sh"
use_trusted_install || exit 1
P=/var/lib/gpu-e2e-lxc
CONF=/tmp/gpu-e2e-conf
say() { printf '\n== %s\n' "$*"; }

bash .gpu-e2e/host-setup.sh >/tmp/host-setup.log 2>&1 || { cat /tmp/host-setup.log; exit 1; }
rm -rf "$P" "$CONF"; mkdir -p "$P" "$CONF"
# The containers find libcuda through the host's ld.so.cache (bound in); make sure the
# cache lists the directory this host loads it from, not only LD_LIBRARY_PATH.
if ! ldconfig -p | grep -q 'libcuda.so.1 '; then
	for d in ${LD_LIBRARY_PATH//:/ } /usr/local/nvidia/lib64; do
		[ -e "$d/libcuda.so.1" ] && { echo "$d" >/etc/ld.so.conf.d/gpu-e2e-nvidia.conf; break; }
	done
	ldconfig
fi
ldconfig -p | grep 'libcuda.so.1 ' 

mkct() { # mkct NAME: a busybox root with the host's /usr bound read-only
	local n=$1
	mkdir -p "$P/$n"
	gpu-e2e-rootfs "$P/$n/rootfs"
	cp "$top/build/cuinit" "$P/$n/rootfs/bin/cuinit"
	cat >"$P/$n/config" <<EOC
lxc.uts.name = $n
lxc.rootfs.path = dir:$P/$n/rootfs
lxc.net.0.type = empty
lxc.include = /usr/share/lxc/config/common.conf
lxc.apparmor.profile = unconfined
lxc.autodev = 1
lxc.init.cmd = /bin/sleep 100000
lxc.mount.entry = /usr usr none ro,rbind 0 0
lxc.mount.entry = /etc/ld.so.cache etc/ld.so.cache none ro,bind,create=file 0 0
EOC
}
run_in() { lxc-attach -P "$P" -n "$1" --clear-env -- "${@:2}"; }

