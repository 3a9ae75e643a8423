# shellcheck shell=bash
# Config edits against other writers: the owners' locks (Proxmox's flock, liblxc's OFD
# lock), a file changed under an edit, faults between attach's three writes, and the
# gpu-hook attach is willing to write into a config. Sourced by run.sh (pve_root is in
# t-pve.sh).

PCT=$GP_TOP/tests/fakes/pct
LOCK_EDIT=${GP_BUILD:-$GP_TOP/build}/tests/helpers/lxc-lock-edit
RENAME_FAULT=${GP_BUILD:-$GP_TOP/build}/tests/faults/rename-fault.so

# gp_faulty ENV... -- ARGS: gp with the rename() test double preloaded and ENV set.
gp_faulty() {
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" LD_PRELOAD="$RENAME_FAULT" ASAN_OPTIONS=verify_asan_link_order=0 \
		"$GP" --confdir "$CONF" --lxcpath "$P" "$@"
}

wait_for() { # wait_for FILE: up to 10 s
	local _
	for _ in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.1; done
	echo "    $1 never appeared"
	return 1
}

# A pct set running while attach runs: attach waits for pct's lock, and both edits stay.
test_pve_concurrent_pct_set() {
	pve_root "$WORK/pcs" test-debian-005.conf 105
	export GP_FAKE_PVE_ROOT=$WORK/pcs
	GP_FAKE_PCT_READY=$WORK/pcs.ready GP_FAKE_PCT_HOLD=2 "$PCT" set 105 --cores 4 &
	wait_for "$WORK/pcs.ready"
	gp --root "$WORK/pcs" attach 105 --gpus all >/dev/null
	wait $!
	unset GP_FAKE_PVE_ROOT
	grep -qx 'cores: 4' "$WORK/pcs/etc/pve/lxc/105.conf"
	grep -q '^lxc.hook.pre-start: .*gpu-hook' "$WORK/pcs/etc/pve/lxc/105.conf"
	gp --root "$WORK/pcs" detach 105 >/dev/null
	check "pct's line after detach" 1 "$(grep -c '^cores: 4$' "$WORK/pcs/etc/pve/lxc/105.conf")"
}

# "lock:" is read under the lock: a vzdump that sets it while attach waits wins.
test_pve_lock_line_checked_under_lock() {
	pve_root "$WORK/pll" test-debian-005.conf 106
	export GP_FAKE_PVE_ROOT=$WORK/pll
	GP_FAKE_PCT_READY=$WORK/pll.ready GP_FAKE_PCT_HOLD=2 "$PCT" set 106 --lock backup &
	wait_for "$WORK/pll.ready"
	set +e
	gp --root "$WORK/pll" attach 106 --gpus all 2>"$WORK/pll.err"
	rc=$?
	set -e
	wait $!
	unset GP_FAKE_PVE_ROOT
	check "exit" 3 "$rc"
	grep -q 'container 106 is locked (lock: backup)' "$WORK/pll.err"
	grep -qx 'lock: backup' "$WORK/pll/etc/pve/lxc/106.conf"
	check "no GPU lines" 0 "$(grep -c 'gpu-hook' "$WORK/pll/etc/pve/lxc/106.conf")"
}

# Proxmox's lock held past its 10 s: attach gives up with a message, the file intact.
test_pve_lock_timeout() {
	local lock=$WORK/plt/run/lock/lxc/pve-config-107.lock
	pve_root "$WORK/plt" test-debian-005.conf 107
	cp "$WORK/plt/etc/pve/lxc/107.conf" "$WORK/plt.before"
	mkdir -p "$(dirname "$lock")"
	flock "$lock" sleep 13 &
	holder=$!
	sleep 0.3
	set +e
	SECONDS=0
	gp --root "$WORK/plt" attach 107 --gpus all 2>"$WORK/plt.err"
	rc=$?
	took=$SECONDS
	set -e
	kill "$holder" 2>/dev/null || true
	wait "$holder" 2>/dev/null || true
	check "exit" 3 "$rc"
	if [ "$took" -lt 9 ] || [ "$took" -gt 12 ]; then echo "    gave up after $took s"; return 1; fi
	grep -q "container 107's config is locked by another operation (pct, the API) for more than 10 s" "$WORK/plt.err"
	cmp "$WORK/plt.before" "$WORK/plt/etc/pve/lxc/107.conf"
	check "no ini left" absent "$([ -e "$CONF/107.ini" ] || [ -e "$WORK/plt/etc/pve/gpu-provision/107.ini" ] && echo present || echo absent)"
}

# A writer that takes no lock changes the file between attach's read and its rename:
# attach refuses and leaves that writer's file.
test_pve_changed_under_edit() {
	pve_root "$WORK/pcu" test-debian-005.conf 108
	mkdir -p "$WORK/pcu.sync"
	gp_faulty GP_FAULT_PAUSE_SUFFIX=.conf.gpu-provision.bak GP_FAULT_PAUSE_DIR="$WORK/pcu.sync" \
		-- --root "$WORK/pcu" attach 108 --gpus all >/dev/null 2>"$WORK/pcu.err" &
	pid=$!
	wait_for "$WORK/pcu.sync/paused"
	cp "$WORK/pcu/etc/pve/lxc/108.conf" "$WORK/pcu.tmp"
	echo 'cores: 8' >>"$WORK/pcu.tmp"
	mv "$WORK/pcu.tmp" "$WORK/pcu/etc/pve/lxc/108.conf"
	cp "$WORK/pcu/etc/pve/lxc/108.conf" "$WORK/pcu.other"
	touch "$WORK/pcu.sync/go"
	set +e
	wait $pid
	rc=$?
	set -e
	check "exit" 3 "$rc"
	grep -q '108.conf" changed while gpu-provision edited it' "$WORK/pcu.err"
	cmp "$WORK/pcu.other" "$WORK/pcu/etc/pve/lxc/108.conf"
}

# A liblxc writer (the helper takes liblxc's own lock: lxc-info waits for it) edits the
# config while attach edits it: attach holds the same lock, so both edits stay.
test_lxc_concurrent_locked_writer() {
	make_root h200-580-open "$WORK/lcw"
	new_container "$P" lcw
	"$LOCK_EDIT" "$P" lcw "lxc.environment = GP_FIRST=1" 3 "$WORK/lcw.ready" &
	wait_for "$WORK/lcw.ready"
	set +e
	timeout 1 lxc-info -P "$P" -n lcw >/dev/null 2>&1
	rc=$?
	set -e
	check "lxc-info waits for the helper's lock" 124 "$rc"
	wait $!
	mkdir -p "$WORK/lcw.sync"
	gp_faulty GP_FAULT_PAUSE_SUFFIX=/config.gpu-provision.bak GP_FAULT_PAUSE_DIR="$WORK/lcw.sync" \
		-- --root "$WORK/lcw" attach lcw --gpus all >/dev/null &
	pid=$!
	wait_for "$WORK/lcw.sync/paused"
	"$LOCK_EDIT" "$P" lcw "lxc.environment = GP_SECOND=1" 2 "$WORK/lcw.ready2" &
	helper=$!
	sleep 1
	touch "$WORK/lcw.sync/go"
	wait $pid
	wait $helper
	grep -qx 'lxc.environment = GP_FIRST=1' "$P/lcw/config"
	grep -qx 'lxc.environment = GP_SECOND=1' "$P/lcw/config"
	grep -q '^lxc.hook.pre-start = .*gpu-hook' "$P/lcw/config"
}

# A rename() that fails between attach's writes (.applied before, ini, config, .applied
# after), over an earlier attach: each time the container still starts, and detach
# takes out every line either attach put in.
test_fault_between_attach_writes() {
	local fault
	make_root quad-550-proprietary "$WORK/fbw"
	new_container "$P" fbw
	cp "$P/fbw/config" "$WORK/fbw.before"
	for fault in .applied:1 .applied:2 .ini:1 /config:1; do
		gp --root "$WORK/fbw" attach fbw --gpus 0 >/dev/null
		set +e
		gp_faulty GP_FAULT_RENAME_SUFFIX="${fault%:*}" GP_FAULT_RENAME_NTH="${fault#*:}" \
			-- --root "$WORK/fbw" attach fbw --gpus 1,2 >/dev/null 2>"$WORK/fbw.err"
		rc=$?
		set -e
		check "$fault: exit" 3 "$rc"
		grep -q 'Input/output error' "$WORK/fbw.err"
		start fbw || { echo "    $fault: no start"; return 1; }
		stop fbw
		gp detach fbw >/dev/null
		cmp "$WORK/fbw.before" "$P/fbw/config" || { echo "    after $fault"; return 1; }
	done
}

# attach writes only a gpu-hook that root alone can change, file and directories.
test_hook_must_be_root_only() {
	local bin d
	bin=$(dirname "$GP")
	d=$(mktemp -d /var/lib/gp-test-hook.XXXXXX)
	# shellcheck disable=SC2064 # $d now: the test runs in its own subshell, $d is local
	trap "rm -rf '$d'" EXIT
	chmod 0755 "$d"
	mkdir "$d/open" "$d/user" "$d/ok"
	chmod 0777 "$d/open"
	chown 65534:65534 "$d/user"
	for sub in open user ok; do
		cp "$bin/gpu-provision" "$bin/gpu-hook" "$bin/gpu-probe" "$d/$sub/"
	done
	make_root h200-580-open "$WORK/hmr"
	new_container "$P" hmr
	cp "$P/hmr/config" "$WORK/hmr.before"
	for sub in open user; do
		set +e
		"$d/$sub/gpu-provision" --confdir "$CONF" --lxcpath "$P" --root "$WORK/hmr" \
			attach hmr --gpus all 2>"$WORK/hmr.err"
		rc=$?
		set -e
		check "$sub: exit" 2 "$rc"
		grep -q "$d/$sub\" is owned by uid .* run \"make install\"" "$WORK/hmr.err"
		cmp "$WORK/hmr.before" "$P/hmr/config"
		check "$sub: no ini" absent "$([ -e "$CONF/hmr.ini" ] && echo present || echo absent)"
	done
	"$d/ok/gpu-provision" --confdir "$CONF" --lxcpath "$P" --root "$WORK/hmr" \
		attach hmr --gpus all >/dev/null
	grep -q "^lxc.hook.pre-start = $d/ok/gpu-hook " "$P/hmr/config"
	gp detach hmr >/dev/null
}

test_sync_name_validated() {
	local name
	for name in ../etc x/y .hidden "a b"; do
		set +e
		gp sync "$name" 2>"$WORK/snv.err"
		rc=$?
		set -e
		check "sync \"$name\": exit" 2 "$rc"
		grep -q "is not a container name gpu-provision accepts" "$WORK/snv.err"
	done
}
