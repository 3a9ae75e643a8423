#!/bin/bash
# make demo: a throwaway busybox container given GPUs and the driver's user space, started,
# looked into, probed, removed.
# Uses this host's driver when one is loaded; otherwise the bundled capture of a real
# H200 host, with its device nodes made in a scratch root.
set -euo pipefail
. "$(dirname "$0")/../tests/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "demo: run as root (sudo make demo)" >&2; exit 1; }
use_trusted_install || exit 1 # attach writes only a gpu-hook root alone can change
WORK=$(mktemp -d /tmp/gp-demo.XXXXXX)
chmod 755 "$WORK"
P=$WORK/lxc CONF=$WORK/conf NAME=gp-demo
mkdir -p "$P" "$CONF"
trap 'lxc-stop -P "$P" -n $NAME -k >/dev/null 2>&1 || true
      lxc-destroy -P "$P" -n $NAME >/dev/null 2>&1 || true; rm -rf "$WORK" ${GP_INSTALLED:+"$GP_INSTALLED"}' EXIT

if [ -r /proc/driver/nvidia/version ]; then
	ROOT_OPT=()
	echo "== this host's NVIDIA driver is loaded: using its GPUs"
else
	make_root h200-580-open "$WORK/root"
	ROOT_OPT=(--root "$WORK/root")
	echo "== no NVIDIA driver on this host: using the bundled capture of a real H200 host"
	echo "   (tests/fixtures/h200-580-open), its device nodes made in $WORK/root/dev;"
	echo "   the nodes reach no driver here, so opening them gives ENXIO instead of a GPU."
	add_host_userspace "$WORK/root" 580.159.04
	echo "   Its driver user space is made of test doubles (tests/fakecuda, tests/fakedriver):"
	echo "   libcuda.so.580.159.04, libnvidia-ml.so.580.159.04 and an nvidia-smi that loads it."
fi
gp() { "$GP" "${ROOT_OPT[@]}" --confdir "$CONF" --lxcpath "$P" "$@"; }

echo; echo "== gpu-provision host"
gp host
echo; echo "== creating busybox container $NAME (includes LXC's common.conf: all devices denied)"
new_container "$P" $NAME
echo; echo "== gpu-provision attach $NAME --gpus all"
gp attach $NAME --gpus all
echo "   lines added to $P/$NAME/config:"
sed -n '/gpu-hook\|devices.allow = c \(195\|2[0-9][0-9]\|5[0-9][0-9]\)/p' "$P/$NAME/config" | sed 's/^/     /'
echo; echo "== lxc-start $NAME"
lxc-start -P "$P" -n $NAME -l INFO -o "$P/$NAME.log"
echo "   state: $(lxc-info -P "$P" -n $NAME -sH)"
echo; echo "== inside the container: ls -l /dev/nvidia*"
in_ct "$P" $NAME 'ls -l /dev/nvidia*' | sed 's/^/   /'
echo; echo "== inside: how the binds are mounted"
in_ct "$P" $NAME "grep ' /dev/nvidia' /proc/self/mountinfo | cut -d' ' -f5,6" | sed 's/^/   /'
echo; echo "== inside: open(O_RDWR) of each node (EPERM would be the cgroup)"
for n in $(in_ct "$P" $NAME 'ls /dev/nvidia* 2>/dev/null' | grep -v ':$'); do
	printf '   %-24s %s\n' "$n" "$(open_result "$P" $NAME "$n")"
done
echo; echo "== inside: the driver's user space, injected at start (the rootfs had none)"
in_ct "$P" $NAME 'ls -l /usr/local/nvidia/lib64 /usr/bin/nvidia-smi' | sed 's/^/   /'
if [ ${#ROOT_OPT[@]} -eq 0 ]; then
	in_ct "$P" $NAME 'nvidia-smi -L' | sed 's/^/   /'
else
	in_ct "$P" $NAME 'nvidia-smi' | sed 's/^/   /'
	# The double's cuInit answers as the captured H200 would (tests/fakecuda/libcuda.c).
	echo "device 0000:00:06.0 GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460" >"$P/$NAME/rootfs/etc/fake-cuda"
fi
echo; echo "== gpu-provision probe $NAME (inside: the container's loader, the injected libcuda)"
gp probe $NAME | sed 's/^/   /' || true
echo; echo "== inside: a GPU node made by hand that was not given (195:7) is refused by the cgroup"
in_ct "$P" $NAME 'mknod /dev/nvidia7 c 195 7'
printf '   %-24s %s\n' /dev/nvidia7 "$(open_result "$P" $NAME /dev/nvidia7)"
echo; echo "== stopping and removing $NAME"
lxc-stop -P "$P" -n $NAME -k
gp detach $NAME
echo "demo: done"
