# shellcheck shell=bash
# attach --nesting: LXC's generated AppArmor profile with nesting allowed on a real container,
# Proxmox VE's features: line on the fixture tree the t-pve tests use; detach takes out only
# what attach gave. Sourced by run.sh.

# A real container: the two lines go in, liblxc loads them at start, detach takes them out
# again. allow_nesting has liblxc mount procfs and sysfs at dev/.lxc/{proc,sys} whether the
# kernel has AppArmor or not (liblxc's own mount entries, as it reads the key); only a host
# with AppArmor shows the generated profile the container runs under, and that it lets a
# nested runtime mount proc into its container's rootfs.
test_nesting_lxc_start() {
	local prof='lxc.apparmor.profile = generated' allow='lxc.apparmor.allow_nesting = 1' out l
	make_root h200-580-open "$WORK/nest"
	new_container "$P" nest
	# lxc-create copied Debian's default.conf: its generated profile with allow_nesting is
	# nesting already. Without it the container is one that has none.
	sed -i '/^lxc.apparmor/d' "$P/nest/config"
	cp "$P/nest/config" "$WORK/nest.before"
	out=$(gp --root "$WORK/nest" attach nest --gpus 0 --nesting)
	check "said" 1 "$(grep -c "^set $prof and $allow in $P/nest/config" <<<"$out")"
	for l in "$prof" "$allow"; do
		check "in the config: $l" 1 "$(grep -cx "$l" "$P/nest/config")"
		check "recorded: $l" 1 "$(grep -cx "$l" "$CONF/nest.applied")"
	done
	# attach again (sync does the same) keeps them, once.
	gp --root "$WORK/nest" attach nest >/dev/null
	for l in "$prof" "$allow"; do
		check "kept once: $l" 1 "$(grep -cx "$l" "$P/nest/config")"
	done
	check "profile liblxc loads" generated \
		"$(lxc-info -P "$P" -n nest -c lxc.apparmor.profile | sed 's/.* = //')"
	check "allow_nesting liblxc loads" 1 \
		"$(lxc-info -P "$P" -n nest -c lxc.apparmor.allow_nesting | sed 's/.* = //')"
	start nest
	check "proc at dev/.lxc/proc" 1 "$(in_ct "$P" nest "grep -c '^proc /dev/.lxc/proc proc ' /proc/mounts")"
	check "sys at dev/.lxc/sys" 1 "$(in_ct "$P" nest "grep -c '^sys /dev/.lxc/sys sysfs ' /proc/mounts")"
	if [ -e /sys/kernel/security/apparmor ]; then
		check "AppArmor profile" 1 "$(grep -c 'lxc-nest_' "/proc/$(lxc-info -P "$P" -n nest -pH)/attr/current")"
	fi
	check "GPU given" "195:0" "$(node_of nest /dev/nvidia0)"
	stop nest
	out=$(gp detach nest)
	check "detach said" 1 "$(grep -c "^took $prof and $allow from" <<<"$out")"
	cmp "$WORK/nest.before" "$P/nest/config"
	check "allow_nesting after detach" 0 \
		"$(lxc-info -P "$P" -n nest -c lxc.apparmor.allow_nesting | sed 's/.* = //')"
	start nest
	check "no dev/.lxc/proc after detach" 0 "$(in_ct "$P" nest "grep -c ' /dev/.lxc/proc ' /proc/mounts || true")"
	stop nest
}

# Nesting of the admin's own (Debian's default.conf: the generated profile with
# allow_nesting = 1): nothing added, said, and detach leaves it.
test_nesting_lxc_admins_own() {
	local out
	make_root h200-580-open "$WORK/nown"
	new_container "$P" nown
	grep -qx 'lxc.apparmor.allow_nesting = 1' "$P/nown/config"
	cp "$P/nown/config" "$WORK/nown.before"
	out=$(gp --root "$WORK/nown" attach nown --gpus 0 --nesting)
	check "said" 1 "$(grep -c "^nown already has nesting ($P/nown/config:[0-9]*: lxc.apparmor.allow_nesting = 1" <<<"$out")"
	check "nothing added" 1 "$(grep -cx 'lxc.apparmor.allow_nesting = 1' "$P/nown/config")"
	check "nothing recorded" 0 "$(grep -c '^lxc.apparmor' "$CONF/nown.applied")"
	gp detach nown >/dev/null
	cmp "$WORK/nown.before" "$P/nown/config"
}

# Proxmox VE: nesting=1 joins the admin's features line, the other items kept; detach
# takes out only it; a line with a part that is not name=value is refused, naming it.
test_nesting_pve_features() {
	local conf=$WORK/pvn/etc/pve/lxc/105.conf out rc
	pve_root "$WORK/pvn" test-debian-005.conf 105
	printf 'features: keyctl=1,fuse=1\nunprivileged: 1\n' >>"$conf"
	cp "$conf" "$WORK/pvn.before"
	gp --root "$WORK/pvn" attach 105 --gpus all --nesting >/dev/null
	check "features" 1 "$(grep -cx 'features: keyctl=1,fuse=1,nesting=1' "$conf")"
	check "one features line" 1 "$(grep -c '^features:' "$conf")"
	gp --root "$WORK/pvn" sync 105 >/dev/null
	check "sync keeps it" 1 "$(grep -cx 'features: keyctl=1,fuse=1,nesting=1' "$conf")"
	gp --root "$WORK/pvn" detach 105 >/dev/null
	cmp "$WORK/pvn.before" "$conf"
	# Unprivileged without keyctl=1: a note, and keyctl is not set.
	sed -i 's/^features: .*/features: fuse=1/' "$conf"
	out=$(gp --root "$WORK/pvn" attach 105 --gpus all --nesting)
	check "keyctl note" 1 "$(grep -c '^note: 105 is unprivileged, and Proxmox VE says keyctl=1 is required' <<<"$out")"
	check "keyctl not set" 1 "$(grep -cx 'features: fuse=1,nesting=1' "$conf")"
	gp --root "$WORK/pvn" detach 105 >/dev/null
	check "back" 1 "$(grep -cx 'features: fuse=1' "$conf")"
	sed -i 's/^features: .*/features: fuse,nesting=0/' "$conf"
	cp "$conf" "$WORK/pvn.bad"
	rc=0
	gp --root "$WORK/pvn" attach 105 --gpus all --nesting 2>"$WORK/pvn.err" >/dev/null || rc=$?
	check "exit" 2 "$rc"
	check "said" 1 "$(grep -c "$conf:[0-9]*: \"features: fuse,nesting=0\": each part must be name=value" "$WORK/pvn.err")"
	cmp "$WORK/pvn.bad" "$conf"
}
