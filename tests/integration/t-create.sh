# shellcheck shell=bash
# gpu-provision create: plain LXC through liblxc, and its rootfs device guard. Sourced by run.sh.

base_conf() { # a base config as an admin's default.conf would be, without a network here
	printf '%s\n' "lxc.net.0.type = empty" "lxc.include = /usr/share/lxc/config/common.conf" >"$WORK/base.conf"
}

test_create_with_gpus() {
	make_root quad-550-proprietary "$WORK/cr"
	base_conf
	gp --root "$WORK/cr" create crt --template busybox --config "$WORK/base.conf" --gpus 2
	start crt
	check "index 2 is minor 0" "195:0" "$(node_of crt /dev/nvidia0)"
	check "nvidia2 absent" absent "$(node_of crt /dev/nvidia2)"
	grep -q 'lxc.hook.autodev = ' "$P/crt/config"
	stop crt
}

test_create_unprivileged() {
	make_root h200-580-open "$WORK/cru"
	base_conf
	ensure_subids
	gp --root "$WORK/cru" create cru --template busybox --config "$WORK/base.conf" \
		--unprivileged --gpus all
	grep -qx "lxc.idmap = u 0 100000 65536" "$P/cru/config"
	chmod 755 "$P/cru"
	start cru
	check "uid map" "0 100000 65536" "$(in_ct "$P" cru "cat /proc/self/uid_map" | awk '{print $1,$2,$3}')"
	check "nvidia0" "195:0" "$(node_of cru /dev/nvidia0)"
	stop cru
}

# A selection that matches nothing: the container is not left half-made.
test_create_failure_leaves_nothing() {
	make_root h200-580-open "$WORK/crf"
	base_conf
	set +e
	gp --root "$WORK/crf" create crf --template busybox --config "$WORK/base.conf" --gpus 5 2>"$WORK/crf.err"
	rc=$?
	set -e
	check "exit (bad selection)" 2 "$rc"
	grep -q "no GPU has index 5" "$WORK/crf.err"
	check "container gone" absent "$([ -e "$P/crf" ] && echo present || echo absent)"
	check "no ini" absent "$([ -e "$CONF/crf.ini" ] && echo present || echo absent)"
}

# --rootfs-dev: an empty image is formatted and used; one with a filesystem is refused
# unless --force, and then it is not touched.
test_create_rootfs_dev() {
	make_root h200-580-open "$WORK/crd"
	base_conf
	truncate -s 48M "$WORK/empty.img"
	gp --root "$WORK/crd" create crd --template busybox --config "$WORK/base.conf" \
		--rootfs-dev "$WORK/empty.img" --gpus all
	grep -qx "lxc.rootfs.path = loop:$WORK/empty.img" "$P/crd/config"
	# Nothing of ours stays mounted there: LXC mounts the image itself at each start.
	check "mounts left at the rootfs" 0 "$(host_mounts_under "$P/crd/rootfs")"
	start crd
	check "rootfs from the image" yes "$(in_ct "$P" crd 'test -x /bin/busybox && echo yes')"
	check "nvidia0" "195:0" "$(node_of crd /dev/nvidia0)"
	stop crd
	truncate -s 16M "$WORK/data.img"
	mkfs.ext4 -q -F -L precious "$WORK/data.img"
	sum_before=$(md5sum <"$WORK/data.img")
	set +e
	gp --root "$WORK/crd" create crd2 --template busybox --config "$WORK/base.conf" \
		--rootfs-dev "$WORK/data.img" 2>"$WORK/crd2.err"
	rc=$?
	set -e
	check "refused" 2 "$rc"
	grep -q 'holds ext4 filesystem: refusing to format it' "$WORK/crd2.err"
	check "image untouched" "$sum_before" "$(md5sum <"$WORK/data.img")"
	check "no container" absent "$([ -e "$P/crd2/config" ] && echo present || echo absent)"
	gp --root "$WORK/crd" create crd3 --template busybox --config "$WORK/base.conf" \
		--rootfs-dev "$WORK/data.img" --force 2>"$WORK/crd3.err"
	grep -q 'overwriting it, as --force says' "$WORK/crd3.err"
	# blkid exits 2 when the image has no such tag.
	label=$(blkid -o value -s LABEL "$WORK/data.img") || rc=$?
	check "label gone" "exit 2, label []" "exit $rc, label [$label]"
}
