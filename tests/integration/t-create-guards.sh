# shellcheck shell=bash
# gpu-provision create: the idmap of --unprivileged from <root>/etc/subuid and subgid or
# the default, and a rootfs image whose probe is ambiguous. Sourced by run.sh.

cg_base_conf() {
	printf '%s\n' "lxc.net.0.type = empty" "lxc.include = /usr/share/lxc/config/common.conf" \
		>"$WORK/cg-base.conf"
}

# root's first range in <root>/etc/subuid and subgid, not the host's: another range
# there (root's second line ignored, another user's before it ignored).
test_create_subuid_from_root() {
	make_root h200-580-open "$WORK/cgs.root"
	mkdir -p "$WORK/cgs.root/etc"
	printf 'alice:100000:65536\nroot:300000:65536\nroot:500000:65536\n' >"$WORK/cgs.root/etc/subuid"
	printf 'root:400000:65536\n' >"$WORK/cgs.root/etc/subgid"
	cg_base_conf
	gp --root "$WORK/cgs.root" create cgs --template busybox --config "$WORK/cg-base.conf" \
		--unprivileged --gpus all >"$WORK/cgs.out"
	check "idmaps" "lxc.idmap = u 0 300000 65536
lxc.idmap = g 0 400000 65536" "$(grep '^lxc.idmap' "$P/cgs/config")"
	# The template ran in that user namespace: the rootfs belongs to the mapped root.
	check "rootfs owner" "300000:400000" "$(stat -c %u:%g "$P/cgs/rootfs/bin/busybox")"
}

# No etc/subuid or etc/subgid under the root: 100000:65536 for both.
test_create_subuid_default() {
	make_root h200-580-open "$WORK/cgd.root"
	rm -f "$WORK/cgd.root/etc/subuid" "$WORK/cgd.root/etc/subgid"
	cg_base_conf
	ensure_subids
	gp --root "$WORK/cgd.root" create cgd --template busybox --config "$WORK/cg-base.conf" \
		--unprivileged --gpus all >"$WORK/cgd.out"
	check "idmaps" "lxc.idmap = u 0 100000 65536
lxc.idmap = g 0 100000 65536" "$(grep '^lxc.idmap' "$P/cgd/config")"
	chmod 755 "$P/cgd"
	start cgd
	check "uid map inside" "0 100000 65536" "$(in_ct "$P" cgd "cat /proc/self/uid_map" | awk '{print $1,$2,$3}')"
	check "gid map inside" "0 100000 65536" "$(in_ct "$P" cgd "cat /proc/self/gid_map" | awk '{print $1,$2,$3}')"
	stop cgd
}

# An image with two signatures (ext4, and a bfs boot block in the 1 KiB ext4 leaves
# free: blkid -p calls it ambivalent) is refused, with --force too, and left untouched.
test_create_rootfs_ambiguous() {
	local img=$WORK/amb.img sum rc
	make_root h200-580-open "$WORK/cga.root"
	cg_base_conf
	truncate -s 16M "$img"
	mkfs.ext4 -q -F "$img"
	truncate -s 1M "$WORK/bfs.img"
	mkfs.bfs "$WORK/bfs.img" >/dev/null 2>&1
	dd if="$WORK/bfs.img" of="$img" bs=512 count=1 conv=notrunc status=none
	# Both signatures are there (blkid -p's exit for that changed: 8 up to util-linux 2.38,
	# 2 with nothing printed in 2.41; wipefs lists them in both).
	check "signatures" "bfs ext4" "$(wipefs -p "$img" | awk -F, '!/^#/ {print $NF}' | sort | tr '\n' ' ' | sed 's/ $//')"
	sum=$(md5sum <"$img")
	for force in "" --force; do
		rc=0
		gp --root "$WORK/cga.root" create cga --template busybox --config "$WORK/cg-base.conf" \
			--rootfs-dev "$img" $force --gpus all 2>"$WORK/cga.err" || rc=$?
		check "exit ${force:-without --force}" 2 "$rc"
		grep -q 'carries several signatures (an ambiguous probe): refusing to format it' "$WORK/cga.err"
		check "image untouched" "$sum" "$(md5sum <"$img")"
		check "no container" absent "$([ -e "$P/cga" ] && echo present || echo absent)"
	done
}
