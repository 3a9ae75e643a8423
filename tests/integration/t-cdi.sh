# shellcheck shell=bash
# The CDI spec and the /dev/char links a start gives the container's own Podman or Docker
# ([driver] cdi): real busybox containers, the driver's user space of test doubles under a
# --root (t-inject.sh's inject_ct). Sourced by run.sh.

# spec_of NAME: the spec as the container reads it through its /etc/cdi.
spec_of() {
	in_ct "$P" "$1" 'cat /etc/cdi/gpu-provision.json'
}

test_cdi_spec_at_start() {
	local spec
	inject_ct cs
	start cs
	check "the link" /usr/local/nvidia/cdi/gpu-provision.json "$(in_ct "$P" cs 'readlink /etc/cdi/gpu-provision.json')"
	spec=$(spec_of cs)
	check "kind" "nvidia.com/gpu 0.5.0" "$(jq -r '"\(.kind) \(.cdiVersion)"' <<<"$spec")"
	check "devices" "0 $H200_UUID all" "$(jq -r '[.devices[].name] | join(" ")' <<<"$spec")"
	check "GPU 0's node" "/dev/nvidia0 c 195 0" \
		"$(jq -r '.devices[0].containerEdits.deviceNodes[] | "\(.path) \(.type) \(.major) \(.minor)"' <<<"$spec")"
	check "every device's nodes" "/dev/nvidiactl /dev/nvidia-uvm /dev/nvidia-uvm-tools" \
		"$(jq -r '[.containerEdits.deviceNodes[].path] | join(" ")' <<<"$spec")"
	# Each node as the container has it; each mount's source there, read-only.
	for n in $(jq -r '.containerEdits.deviceNodes[], .devices[2].containerEdits.deviceNodes[] | "\(.path)=\(.major):\(.minor)"' <<<"$spec"); do
		check "${n%%=*} in the container" "${n#*=}" "$(in_ct "$P" cs "stat -c '%t %T' ${n%%=*}" | while read -r a b; do printf '%d:%d' "0x$a" "0x$b"; done)"
	done
	for m in $(jq -r '.containerEdits.mounts[].hostPath' <<<"$spec" | sort -u); do
		check "$m in the container" file "$(in_ct "$P" cs "[ -f $m ] && echo file")"
	done
	check "mount options" "ro,nosuid,nodev,bind" "$(jq -r '[.containerEdits.mounts[].options | join(",")] | unique | join(" ")' <<<"$spec")"
	check "libnvidia-ml where a loader finds it" "/usr/local/nvidia/lib64/libnvidia-ml.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 /usr/lib64/libnvidia-ml.so.1" \
		"$(jq -r '[.containerEdits.mounts[] | select(.hostPath | endswith("libnvidia-ml.so.'"$US"'")) | .containerPath] | join(" ")' <<<"$spec")"
	check "nvidia-smi" /usr/bin/nvidia-smi "$(jq -r '.containerEdits.mounts[] | select(.hostPath | endswith("/nvidia-smi")) | .containerPath' <<<"$spec")"
	check "the spec read-only" "Read-only file system" \
		"$(in_ct "$P" cs 'echo x 2>&1 >>/usr/local/nvidia/cdi/gpu-provision.json || true' | grep -o 'Read-only file system')"
	stop cs
	check "the host's copy after stop" absent "$([ -e "$WORK/cs.root/run/gpu-provision/cs.cdi" ] && echo present || echo absent)"
	check "the spec after stop" "absent" "$([ -e "$P/cs/rootfs/usr/local/nvidia/cdi" ] && echo present || echo absent)"
}

# What udev makes on a host, for runc and systemd: /dev/char/MAJOR:MINOR of every node.
test_cdi_dev_char_links() {
	inject_ct cc unprivileged
	start cc
	check "links" "195:0 -> ../nvidia0 195:255 -> ../nvidiactl 238:0 -> ../nvidia-uvm 238:1 -> ../nvidia-uvm-tools" \
		"$(in_ct "$P" cc 'cd /dev/char && for l in *; do echo "$l -> $(readlink $l)"; done' | sort | paste -sd' ')"
	check "each a node" "c c c c" "$(in_ct "$P" cc 'for l in /dev/char/*; do [ -c $l ] && echo c; done' | paste -sd' ')"
	stop cc
}

# cdi = no: the driver's user space, and no spec.
test_cdi_off() {
	inject_ct co
	printf '[driver]\ncdi = no\n' >>"$CONF/co.ini"
	start co
	in_ct "$P" co nvidia-smi | grep -qF "nvmlInit_v2 0"
	check "the link" "none" "$(in_ct "$P" co '[ -e /etc/cdi/gpu-provision.json ] || [ -L /etc/cdi/gpu-provision.json ] && echo there || echo none')"
	check "the host's copy" absent "$([ -e "$WORK/co.root/run/gpu-provision/co.cdi" ] && echo present || echo absent)"
	stop co
}

# A spec of the container's own of that name is kept, and said; ours is still in the tree.
test_cdi_keeps_the_containers_own() {
	inject_ct ck
	mkdir -p "$P/ck/rootfs/etc/cdi"
	echo '{"mine": 1}' >"$P/ck/rootfs/etc/cdi/gpu-provision.json"
	start ck
	check "its own" '{"mine": 1}' "$(spec_of ck)"
	grep -qF "the container has its own /etc/cdi/gpu-provision.json, which is kept" "$P/ck.log"
	check "ours" "nvidia.com/gpu" "$(in_ct "$P" ck 'cat /usr/local/nvidia/cdi/gpu-provision.json' | jq -r .kind)"
	stop ck
}

# /etc/cdi a link out of the rootfs: kept and said, nothing made through it; the start goes
# on with the rest injected and the spec in the tree.
test_cdi_hostile_etc_cdi() {
	inject_ct ch
	ln -s /etc "$P/ch/rootfs/etc/cdi"
	start ch
	grep -qF "/etc/cdi in the container is not a plain directory of its rootfs" "$P/ch.log" ||
		{ echo "    log lacks the warning"; return 1; }
	check "the host's /etc" absent "$([ -e /etc/gpu-provision.json ] && echo present || echo absent)"
	check "its link kept" /etc "$(readlink "$P/ch/rootfs/etc/cdi")"
	check "the spec in the tree" "nvidia.com/gpu" "$(in_ct "$P" ch 'cat /usr/local/nvidia/cdi/gpu-provision.json' | jq -r .kind)"
	check "nvidia-smi injected" "/usr/local/nvidia/bin/nvidia-smi" "$(in_ct "$P" ch 'readlink /usr/bin/nvidia-smi')"
	stop ch
}

# host says what an injecting start's spec would name: each GPU by index and UUID, and all.
test_cdi_host_shows_the_devices() {
	local out
	out=$(gp --root "$GP_FIXTURES/quad-550-proprietary" host)
	check "the GPU of index 3" "  nvidia.com/gpu=3  nvidia.com/gpu=GPU-1a2b3c4d-0000-4000-8000-0000000000c1" \
		"$(grep -F 'nvidia.com/gpu=3' <<<"$out")"
	check "all" "  nvidia.com/gpu=all" "$(grep -F 'nvidia.com/gpu=all' <<<"$out")"
	check "json" "nvidia.com/gpu /etc/cdi/gpu-provision.json 9 all" \
		"$(gp --root "$GP_FIXTURES/quad-550-proprietary" host --json | jq -r '.cdi | "\(.kind) \(.file) \(.devices | length) \(.devices[-1])"')"
}
