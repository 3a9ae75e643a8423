# shellcheck shell=bash
# README, guide and SECURITY.md promises (docs/promises.md) that no other file's test held: the
# table itself, attach after a driver update, the ini's mode, v1 device rules, the
# autodev binds on top. Sourced by run.sh.

# Every row of docs/promises.md names tests that exist (tools/check-promises.sh).
test_promises_table() {
	"$GP_TOP/tools/check-promises.sh"
	# The checker fails a row without a test and a test that does not exist.
	sed '0,/^| [0-9]/s/|[^|]*|$/| |/' "$GP_TOP/docs/promises.md" >"$WORK/promises.notest"
	if "$GP_TOP/tools/check-promises.sh" "$WORK/promises.notest" >"$WORK/promises.out" 2>&1; then
		echo "    a row without a test passed"; return 1
	fi
	grep -q 'names no test' "$WORK/promises.out"
	sed '0,/t-host.sh:test_host_json_h200/s//t-host.sh:test_host_json_gone/' \
		"$GP_TOP/docs/promises.md" >"$WORK/promises.gone"
	if "$GP_TOP/tools/check-promises.sh" "$WORK/promises.gone" >"$WORK/promises.out" 2>&1; then
		echo "    a missing test passed"; return 1
	fi
	grep -q 'test_host_json_gone' "$WORK/promises.out"
}

# rules_of CONFIG: the device rules in a config, "KEY VALUE" sorted.
rules_of() { grep 'devices\.' "$1" | sed 's/ = / /' | sort; }

# After a driver update (new dynamic majors in proc/devices), attach NAME without --gpus
# keeps the selection and caps and writes today's majors; the start gets today's nodes.
test_attach_again_after_driver_update() {
	local key
	key=$(gp_cgroup_key)
	make_root h200-580-open "$WORK/upd"
	new_container "$P" upd
	gp --root "$WORK/upd" attach upd --gpus 0 --caps mig-config >/dev/null
	cp "$CONF/upd.ini" "$WORK/upd.ini.before"
	sed -i -e 's/^238 nvidia-uvm$/509 nvidia-uvm/' -e 's/^241 nvidia-caps$/510 nvidia-caps/' \
		"$WORK/upd/proc/devices"
	grep -qx '509 nvidia-uvm' "$WORK/upd/proc/devices"
	grep -qx '510 nvidia-caps' "$WORK/upd/proc/devices"
	gp --root "$WORK/upd" attach upd >"$WORK/upd.out"
	cmp "$WORK/upd.ini.before" "$CONF/upd.ini"
	check "rules" "$(for n in 195:0 195:255 509:0 509:1 510:1; do echo "$key.allow c $n rwm"; done | sort)" \
		"$(rules_of "$P/upd/config")"
	check "no rule of yesterday" 0 "$(count_matching -e ' 238:' -e ' 241:' "$P/upd/config")"
	start upd
	check "nvidia-uvm" "509:0" "$(node_of upd /dev/nvidia-uvm)"
	check "nvidia-uvm-tools" "509:1" "$(node_of upd /dev/nvidia-uvm-tools)"
	check "mig config" "510:1" "$(node_of upd /dev/nvidia-caps/nvidia-cap1)"
	check "nvidia0" "195:0" "$(node_of upd /dev/nvidia0)"
	stop upd
}

# gp_cgroup_key: the device key prefix this host enforces, found the way LXC finds it.
gp_cgroup_key() {
	if awk '$0 ~ / - cgroup / && $NF ~ /(^|,)devices(,|$)/ {f=1} END {exit !f}' /proc/self/mountinfo; then
		echo lxc.cgroup.devices
	else
		echo lxc.cgroup2.devices
	fi
}

# The ini is root's with mode 0644 whatever the umask, and an ini of another mode is set right.
test_ini_mode_and_owner() {
	make_root h200-580-open "$WORK/inim"
	new_container "$P" inim
	(umask 077 && gp --root "$WORK/inim" attach inim --gpus all >/dev/null)
	check "under umask 077" "644 0:0 regular file" "$(stat -c '%a %u:%g %F' "$CONF/inim.ini")"
	gp detach inim >/dev/null
	(umask 000 && gp --root "$WORK/inim" attach inim --gpus all >/dev/null)
	check "under umask 000" "644 0:0 regular file" "$(stat -c '%a %u:%g %F' "$CONF/inim.ini")"
	chmod 0600 "$CONF/inim.ini"
	gp --root "$WORK/inim" attach inim --gpus 0 >/dev/null
	check "again over a 0600 ini" "644 0:0" "$(stat -c '%a %u:%g' "$CONF/inim.ini")"
}

# Where the host's devices controller is a v1 hierarchy (this Debian machine), the rules
# are lxc.cgroup.devices.* keys, the container's v1 devices cgroup holds them, and a node
# not given cannot be opened.
test_v1_rules_on_v1_host() {
	local pid cg
	[ "$(gp_cgroup_key)" = lxc.cgroup.devices ] ||
		{ echo "needs the hybrid cgroup layout (a v1 devices hierarchy); this one is pure cgroup v2"; return 77; }
	make_root quad-550-proprietary "$WORK/v1"
	new_container "$P" v1
	gp --root "$WORK/v1" attach v1 --gpus 1 >/dev/null
	check "v1 rules" "$(printf 'lxc.cgroup.devices.allow c %s rwm\n' 195:2 195:255 509:0 509:1 | sort)" \
		"$(rules_of "$P/v1/config" | grep '^lxc.cgroup.devices.allow c 195:\|^lxc.cgroup.devices.allow c 509:')"
	check "no cgroup2 keys of ours" 0 "$(count_matching '^lxc.cgroup2.devices' "$P/v1/config")"
	start v1
	pid=$(lxc-info -P "$P" -n v1 -pH)
	cg=$(awk -F: '$2 == "devices" {print $3}' "/proc/$pid/cgroup")
	for r in "c 195:2 rwm" "c 195:255 rwm" "c 509:0 rwm" "c 509:1 rwm"; do
		grep -qx "$r" "/sys/fs/cgroup/devices$cg/devices.list" ||
			{ echo "    $r not in devices$cg/devices.list"; return 1; }
	done
	check "open given" ENXIO "$(open_result "$P" v1 /dev/nvidia2)"
	in_ct "$P" v1 "mknod /dev/nvidia0 c 195 0"
	check "open not given" EPERM "$(open_result "$P" v1 /dev/nvidia0)"
	stop v1
}

# The mounts of the container's init at PATH, "ID PARENT ROOT" each.
mounts_at() { # mounts_at PID PATH
	awk -v p="$2" '$5 == p {print $1, $2, $4}' "/proc/$1/mountinfo"
}

# With a mount entry and a mount hook of the admin's beside it (as lxcfs's), each GPU node
# is, after the start, exactly one mount in the container: the bind of the host node, with
# nothing on top of it or below it.
test_autodev_binds_on_top() {
	local pid path m
	make_root h200-580-open "$WORK/top"
	new_container "$P" top
	printf '#!/bin/sh\ntouch "$LXC_ROOTFS_MOUNT/dev/gp-mark" && mount --bind /etc/hostname "$LXC_ROOTFS_MOUNT/dev/gp-mark"\n' \
		>"$P/top/mark-hook.sh"
	chmod 755 "$P/top/mark-hook.sh"
	printf '%s\n' "lxc.mount.entry = tmpfs dev/gp-tmp tmpfs rw,nosuid,nodev,create=dir 0 0" \
		"lxc.hook.mount = $P/top/mark-hook.sh" >>"$P/top/config"
	gp --root "$WORK/top" attach top --gpus all --caps mig-config >/dev/null
	start top
	pid=$(lxc-info -P "$P" -n top -pH)
	check "the admin's mount hook ran" 1 "$(mounts_at "$pid" /dev/gp-mark | wc -l)"
	check "the admin's mount entry" 1 "$(mounts_at "$pid" /dev/gp-tmp | wc -l)"
	for path in /dev/nvidia0 /dev/nvidiactl /dev/nvidia-uvm /dev/nvidia-uvm-tools \
		/dev/nvidia-caps/nvidia-cap1; do
		m=$(mounts_at "$pid" "$path")
		echo "    $path: $m"
		check "$path: one mount" 1 "$(echo "$m" | grep -c .)"
		# Its root is the host node's path (relative to that node's filesystem).
		check "$path: the host node's bind" yes "$(echo "$m" | awk -v s="/top$path" \
			'{print substr($3, length($3) - length(s) + 1) == s ? "yes" : "no"}')"
		check "$path: nothing mounted on it" 0 \
			"$(awk -v id="$(echo "$m" | awk '{print $1}')" '$2 == id' "/proc/$pid/mountinfo" | wc -l)"
		check "$path: nothing below it" 0 \
			"$(awk -v p="$path/" 'index($5, p) == 1' "/proc/$pid/mountinfo" | wc -l)"
	done
	check "inside" "195:0" "$(node_of top /dev/nvidia0)"
	stop top
}

# A library that the container's /etc/ld.so.preload names is loaded by container
# processes only (the probe), never by a host process of ours: attach, the hooks of a
# start, probe, check and stop run, and it logs only inside (its log is /tmp/hostile.log
# wherever it is loaded).
test_no_container_code_on_host() {
	local so=${GP_BUILD:-$GP_TOP/build}/tests/hostile/seals.so rootfs=$P/nohost/rootfs crc
	[ ! -e /tmp/hostile.log ] || { echo "    the host's /tmp/hostile.log exists already"; return 1; }
	make_root h200-580-open "$WORK/nohost"
	new_container "$P" nohost
	mkdir -p "$rootfs/opt/evil"
	cp "$so" "$rootfs/opt/evil/preload.so"
	echo /opt/evil/preload.so >"$rootfs/etc/ld.so.preload"
	add_fake_cuda "$P" nohost 580.159.04
	set_fake_cuda "$P" nohost "device 0000:00:06.0 GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460"
	gp --root "$WORK/nohost" attach nohost --gpus all >/dev/null
	start nohost
	gp --root "$WORK/nohost" probe nohost >/dev/null
	crc=0
	gp --root "$WORK/nohost" check nohost >/dev/null || crc=$?
	check "check ran (0 or 1: the fixture's own findings)" yes "$([ "$crc" -le 1 ] && echo yes || echo no)"
	stop nohost
	check "loaded inside (by the probe)" yes \
		"$(grep -q '^exe /memfd:gpu-probe' "$rootfs/tmp/hostile.log" && echo yes || echo no)"
	check "loaded by no host process" absent "$([ -e /tmp/hostile.log ] && echo present || echo absent)"
}

# Proxmox devn mode is kept in the ini: attach NAME and sync after a driver update keep
# devN entries (with today's nodes) and add no hook line. (pve_root is t-pve.sh's.)
test_pve_devn_mode_kept() {
	pve_root "$WORK/pvdk" test-debian-005.conf 105
	gp --root "$WORK/pvdk" attach 105 --gpus all --mode devn 2>/dev/null >/dev/null
	grep -qx 'mode = devn' "$WORK/pvdk/etc/pve/gpu-provision/105.ini"
	gp --root "$WORK/pvdk" attach 105 2>/dev/null >/dev/null
	sed -i 's/^238 nvidia-uvm/511 nvidia-uvm/' "$WORK/pvdk/proc/devices"
	gp --root "$WORK/pvdk" sync 105 2>/dev/null >/dev/null
	grep -qx 'mode = devn' "$WORK/pvdk/etc/pve/gpu-provision/105.ini"
	check "hook lines" 0 "$(grep -c 'gpu-hook' "$WORK/pvdk/etc/pve/lxc/105.conf")"
	grep -q '^dev[0-9]*: /dev/nvidia-uvm,' "$WORK/pvdk/etc/pve/lxc/105.conf"
	grep -q '^dev[0-9]*: /dev/nvidia0,' "$WORK/pvdk/etc/pve/lxc/105.conf"
	out=$(gp --root "$WORK/pvdk" list)
	grep -q '^105 .* pve-devn ' <<<"$out"
}
