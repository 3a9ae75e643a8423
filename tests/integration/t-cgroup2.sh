# shellcheck shell=bash
# The pure cgroup v2 layout, as Proxmox VE 8 and 9 boot: device rules are
# lxc.cgroup2.devices.* keys, enforced by the BPF program LXC attaches to the container's
# cgroup. tools/platform.sh SUITE v2 gives this layout on a hybrid machine. Sourced by run.sh.

# Whether /sys/fs/cgroup is one cgroup2 mount (pure v2) rather than v1 hierarchies.
cgroup_is_v2() { [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; }

# A privileged container given GPU 1 of a four-GPU host opens its own GPU's node, nvidiactl
# and uvm (the open reaches the driver, absent here: ENXIO), and another GPU's node, made
# in its rootfs by the host before the start, gives EPERM: the BPF program refuses it.
test_v2_bpf_isolation() {
	local pid cg
	cgroup_is_v2 || {
		echo "needs the pure cgroup v2 layout (tools/platform.sh SUITE v2); here /sys/fs/cgroup is a $(stat -f -c %T /sys/fs/cgroup) of cgroup v1 hierarchies"
		return 77
	}
	make_root quad-550-proprietary "$WORK/c2"
	new_container "$P" c2
	mknod -m 0666 "$P/c2/rootfs/nvidia0" c 195 0
	mknod -m 0666 "$P/c2/rootfs/nvidia3" c 195 3
	gp --root "$WORK/c2" attach c2 --gpus 1 >/dev/null
	check "cgroup2 rules" "$(printf 'lxc.cgroup2.devices.allow = c %s rwm\n' 195:2 195:255 509:0 509:1 | sort)" \
		"$(grep -E '^lxc\.cgroup2\.devices\.allow = c (195|509):' "$P/c2/config" | sort)"
	check "no v1 rules of ours" 0 "$(count_matching -E '^lxc\.cgroup\.devices\.(allow|deny) = c (195|509):' "$P/c2/config")"
	start c2
	pid=$(lxc-info -P "$P" -n c2 -pH)
	cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
	if [ -z "$cg" ] || [ ! -d "/sys/fs/cgroup$cg" ]; then
		echo "    the container's cgroup [$cg] is not in the cgroup2 tree"
		return 1
	fi
	check "no v1 devices files" absent "$([ -e "/sys/fs/cgroup$cg/devices.list" ] && echo present || echo absent)"
	check "own GPU's node" ENXIO "$(open_result "$P" c2 /dev/nvidia2)"
	check "nvidiactl" ENXIO "$(open_result "$P" c2 /dev/nvidiactl)"
	check "nvidia-uvm" ENXIO "$(open_result "$P" c2 /dev/nvidia-uvm)"
	check "a node common.conf allows" ok "$(open_result "$P" c2 /dev/null)"
	check "GPU 0's node" EPERM "$(open_result "$P" c2 /nvidia0)"
	check "GPU 3's node" EPERM "$(open_result "$P" c2 /nvidia3)"
	stop c2
}
