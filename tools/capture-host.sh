#!/bin/sh
# A capture of this host's driver-facing files, laid out as a root for --root DIR: what
# gpu-provision reads of the driver, the modules, the GPUs' PCI functions, the kernel, the
# cgroup layout (proc/self/mountinfo) and the release (etc/os-release), with the device
# nodes listed in dev-nodes.txt (git holds no nodes: tests make them) and, for people, what
# nvidia-smi, the loader's cache and LXC said. Nothing is changed on the host; run it as
# root to read every file.
# Usage: tools/capture-host.sh DIR   (DIR must not exist)
set -eu
out=${1:?usage: tools/capture-host.sh DIR}
[ ! -e "$out" ] || { echo "capture-host: $out exists: name a new directory" >&2; exit 2; }
mkdir -p "$out"

# copy FILE...: each readable file under $out at its own path (proc's files read whole).
copy() {
	for f in "$@"; do
		if [ ! -f "$f" ] || [ ! -r "$f" ]; then continue; fi
		mkdir -p "$out$(dirname "$f")"
		cat "$f" >"$out$f" 2>/dev/null || rm -f "$out$f"
	done
}

# link NAME PATH: where the link PATH points, as PATH's NAME.link (git keeps no link out).
link() {
	[ -L "$2" ] || return 0
	mkdir -p "$out$(dirname "$2")"
	readlink "$2" >"$out$(dirname "$2")/$1.link"
}

copy /proc/devices /proc/modules /proc/cmdline /proc/sys/kernel/osrelease /proc/config.gz
copy /proc/self/mountinfo "/boot/config-$(uname -r)" /etc/os-release
find /proc/driver/nvidia /proc/driver/nvidia-caps -type f 2>/dev/null | while read -r f; do
	copy "$f"
done
for m in /sys/module/nvidia /sys/module/nvidia_uvm /sys/module/nvidia_modeset \
	/sys/module/nvidia_drm; do
	[ -d "$m" ] || continue
	copy "$m/initstate" "$m/version" "$m/taint" "$m/refcnt"
	for p in "$m"/parameters/*; do copy "$p"; done
done
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor" 2>/dev/null)" = 0x10de ] || continue
	for f in vendor device class subsystem_vendor subsystem_device numa_node \
		current_link_speed current_link_width; do
		copy "$d/$f"
	done
	link driver "$d/driver"
	link iommu_group "$d/iommu_group"
done

# The nodes: "PATH TYPE MAJOR MINOR MODE UID GID", majors and minors in decimal.
for n in /dev/nvidia* /dev/nvidia-caps/* /dev/nvidia-caps-imex-channels/*; do
	[ -c "$n" ] || continue
	# shellcheck disable=SC2046 # stat's five words
	set -- $(stat -c '%t %T %a %u %g' "$n")
	printf '%s c %d %d %04o %s %s\n' "${n#/}" "0x$1" "0x$2" "0$3" "$4" "$5"
done >"$out/dev-nodes.txt"

# Evidence for people, not read by gpu-provision.
cat /etc/os-release >"$out/os-release.txt" 2>/dev/null || true
uname -a >"$out/uname.txt"
if command -v nvidia-smi >/dev/null; then nvidia-smi -q >"$out/nvidia-smi-q.txt" 2>&1 || true; fi
{ ldconfig -p 2>/dev/null | grep -i nvidia || true; } >"$out/ldconfig-nvidia.txt"
if command -v lxc-start >/dev/null; then lxc-start --version >"$out/lxc-version.txt" 2>&1 || true; fi
echo "capture-host: $out ($(wc -l <"$out/dev-nodes.txt") nodes; cgroup layout in proc/self/mountinfo)"
