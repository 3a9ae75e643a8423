# shellcheck shell=bash
# Proxmox VE configs under a root with etc/pve/lxc; pct is a test double. Sourced by run.sh.

pve_root() { # pve_root DIR CORPUS-FILE ID: a fixture host with one Proxmox container config
	make_root h200-580-open "$1"
	mkdir -p "$1/etc/pve/lxc"
	cp "$GP_FIXTURES/pve-lxc-conf/$2" "$1/etc/pve/lxc/$3.conf"
}

test_pve_attach_detach_round_trip() {
	pve_root "$WORK/pve" test-debian-005.conf 101
	cp "$WORK/pve/etc/pve/lxc/101.conf" "$WORK/pve.before"
	gp --root "$WORK/pve" attach 101 --gpus all
	grep -q '^lxc.hook.autodev: .*gpu-hook --root' "$WORK/pve/etc/pve/lxc/101.conf"
	grep -q "^lxc.cgroup2\\?.devices.allow: c 238:0 rwm" "$WORK/pve/etc/pve/lxc/101.conf"
	cmp "$WORK/pve.before" "$WORK/pve/etc/pve/lxc/101.conf.gpu-provision.bak"
	gp --root "$WORK/pve" attach 101 --gpus all --mode devn 2>"$WORK/pve.err"
	grep -q '^dev0: /dev/nvidiactl,mode=0666' "$WORK/pve/etc/pve/lxc/101.conf"
	check "hook lines gone" 0 "$(grep -c 'gpu-hook' "$WORK/pve/etc/pve/lxc/101.conf")"
	grep -q 'enable the boot unit' "$WORK/pve.err"
	gp --root "$WORK/pve" detach 101
	cmp "$WORK/pve.before" "$WORK/pve/etc/pve/lxc/101.conf"
}

# Snapshots and pending changes stay byte-identical; the admin's devN keep their numbers.
test_pve_sections_and_admin_lines() {
	pve_root "$WORK/pves" rollback-104.conf 102
	sed -i '/^lock:/d' "$WORK/pves/etc/pve/lxc/102.conf"
	sed -i '0,/^$/s//dev0: \/dev\/dri\/card0,gid=44\nlxc.cgroup2.devices.allow: c 226:* rwm\n\n[pve:pending]\nmemory: 4096\n/' \
		"$WORK/pves/etc/pve/lxc/102.conf"
	tail=$(sed -n '/^\[/,$p' "$WORK/pves/etc/pve/lxc/102.conf")
	gp --root "$WORK/pves" attach 102 --gpus 0 --mode devn 2>/dev/null
	check "other sections" "$tail" "$(sed -n '/^\[/,$p' "$WORK/pves/etc/pve/lxc/102.conf")"
	grep -q '^dev0: /dev/dri/card0,gid=44' "$WORK/pves/etc/pve/lxc/102.conf"
	grep -q '^dev1: /dev/nvidiactl' "$WORK/pves/etc/pve/lxc/102.conf"
	grep -q 'c 226:\* rwm' "$WORK/pves/etc/pve/lxc/102.conf"
	gp --root "$WORK/pves" detach 102
	check "admin's devN kept" 1 "$(grep -c '^dev' "$WORK/pves/etc/pve/lxc/102.conf")"
}

test_pve_locked_refused() {
	pve_root "$WORK/pvel" commit-101.conf 103
	cp "$WORK/pvel/etc/pve/lxc/103.conf" "$WORK/pvel.before"
	set +e
	gp --root "$WORK/pvel" attach 103 --gpus all 2>"$WORK/pvel.err"
	rc=$?
	set -e
	check "exit" 3 "$rc"
	grep -q 'container 103 is locked (lock: snapshot)' "$WORK/pvel.err"
	cmp "$WORK/pvel.before" "$WORK/pvel/etc/pve/lxc/103.conf"
}

# Its own confdir: sync --all and list go over every ini there, and the suite's shared
# one holds LXC containers that are no Proxmox IDs (sync --all exits 3 for them).
test_pve_sync_after_driver_update() {
	local out
	gpsy() { "$GP" --confdir "$WORK/pvsy.conf" --lxcpath "$P" --root "$WORK/pvsy" "$@"; }
	mkdir -p "$WORK/pvsy.conf"
	pve_root "$WORK/pvsy" test-alpine-001.conf 104
	gpsy attach 104 --gpus all >/dev/null
	out=$(gpsy sync --all)
	check "sync, nothing changed" "104: already right" "$out"
	sed -i 's/^238 nvidia-uvm/511 nvidia-uvm/' "$WORK/pvsy/proc/devices"
	out=$(gpsy sync --all)
	check "sync after the update" "104: updated, 2 line(s) out, 2 in (applies at the next start)" "$out"
	grep -q 'c 511:1 rwm' "$WORK/pvsy/etc/pve/lxc/104.conf"
	check "old major gone" 0 "$(count_matching 'c 238:' "$WORK/pvsy/etc/pve/lxc/104.conf")"
	out=$(gpsy list)
	grep -q '^104 .* all .* pve-hook' <<<"$out" || { echo "    list: [$out]"; return 1; }
	out=$(gpsy list --json)
	check "list --json: mode" pve-hook "$(jq -r '.[] | select(.name == "104") | .mode' <<<"$out")" ||
		{ echo "    list --json: [$out]"; return 1; }
}

# fake_pct_path ROOT: a folder with a pct that is the double for ROOT. gpu-provision runs
# pct with PATH as its only variable, so the double's root is written into the wrapper.
fake_pct_path() {
	mkdir -p "$1/bin"
	printf '#!/bin/sh\nGP_FAKE_PVE_ROOT=%s exec %s/tests/fakes/pct "$@"\n' "$1" "$GP_TOP" >"$1/bin/pct"
	chmod 755 "$1/bin/pct"
	echo "$1/bin"
}

test_pve_create_with_pct() {
	local bin
	make_root h200-580-open "$WORK/pvc"
	mkdir -p "$WORK/pvc/etc/pve/lxc"
	bin=$(fake_pct_path "$WORK/pvc")
	PATH=$bin:$PATH gp --root "$WORK/pvc" create 200 \
		--ostemplate local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst --gpus all --dry-run \
		-- --storage local-lvm --unprivileged 1 >"$WORK/pvc.dry"
	grep -qx 'would run: pct create 200 local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst --storage local-lvm --unprivileged 1' "$WORK/pvc.dry"
	grep -q 'would add to .*/etc/pve/lxc/200.conf: lxc.hook.pre-start: ' "$WORK/pvc.dry"
	check "dry run ran no pct" absent "$([ -e "$WORK/pvc/pct.log" ] && echo present || echo absent)"
	PATH=$bin:$PATH gp --root "$WORK/pvc" create 200 \
		--ostemplate local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst --gpus all \
		-- --storage local-lvm
	grep -qx 'create 200 local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst --storage local-lvm' "$WORK/pvc/pct.log"
	grep -q '^lxc.hook.pre-start: ' "$WORK/pvc/etc/pve/lxc/200.conf"
	# A selection that matches nothing after pct create: the container is destroyed again.
	set +e
	PATH=$bin:$PATH gp --root "$WORK/pvc" create 201 \
		--ostemplate local:vztmpl/x.tar.zst --gpus 3 2>/dev/null
	rc=$?
	set -e
	check "exit (bad selection)" 2 "$rc"
	grep -qx 'destroy 201' "$WORK/pvc/pct.log"
	check "201 gone" absent "$([ -e "$WORK/pvc/etc/pve/lxc/201.conf" ] && echo present || echo absent)"
}
