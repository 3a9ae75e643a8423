# shellcheck shell=bash
# Faults: an unreadable ini, a config that cannot be written, two attaches at once.
# (Module loads that fail, nvidia_uvm in use, a GPU gone, a stale node, probes that crash
# or hang are in t-uvm, t-start and t-probe and the unit tests.) Sourced by run.sh.

test_fault_ini_unreadable() {
	make_root h200-580-open "$WORK/fini"
	new_container "$P" fini
	gp --root "$WORK/fini" attach fini --gpus all >/dev/null
	rm "$CONF/fini.ini"
	mkdir "$CONF/fini.ini"
	if start fini; then echo "    started"; return 1; fi
	assert_refused_clean fini "$WORK/fini" 'fini.ini" is not a regular file'
	rmdir "$CONF/fini.ini"
}

# The container's directory full (a small tmpfs), then read-only: attach fails, the old
# config is byte-identical, and the ini is as it was.
test_fault_config_write() {
	make_root h200-580-open "$WORK/fcw"
	new_container "$P" fcw
	cp "$P/fcw/config" "$WORK/fcw.before"
	mkdir -p "$WORK/fcw.keep"
	cp -a "$P/fcw/." "$WORK/fcw.keep/"
	mount -t tmpfs -o size=64k tmpfs "$P/fcw"
	cp "$WORK/fcw.keep/config" "$P/fcw/config"
	mkdir "$P/fcw/rootfs"
	# Fill it: dd stops at ENOSPC, which is its expected failure here.
	if dd if=/dev/zero of="$P/fcw/fill" bs=4k 2>/dev/null; then
		echo "    the 64k tmpfs did not fill"
		return 1
	fi
	set +e
	gp --root "$WORK/fcw" attach fcw --gpus all 2>"$WORK/fcw.err"
	rc=$?
	set -e
	check "disk full: exit" 3 "$rc"
	grep -q 'No space left on device; the old file is unchanged' "$WORK/fcw.err"
	cmp "$WORK/fcw.before" "$P/fcw/config"
	check "no ini left" absent "$([ -e "$CONF/fcw.ini" ] && echo present || echo absent)"
	rm "$P/fcw/fill"
	mount -o remount,ro "$P/fcw"
	set +e
	gp --root "$WORK/fcw" attach fcw --gpus all 2>"$WORK/fcw.err"
	rc=$?
	set -e
	check "read-only: exit" 3 "$rc"
	grep -q 'Read-only file system' "$WORK/fcw.err"
	cmp "$WORK/fcw.before" "$P/fcw/config"
	umount "$P/fcw"
}

# Two attaches at once on one container: one waits for the other; the config ends with
# exactly one selection's lines, the one the ini names.
test_fault_concurrent_attach() {
	local a b rc_a=0 rc_b=0
	make_root quad-550-proprietary "$WORK/fca"
	new_container "$P" fca
	gp --root "$WORK/fca" attach fca --gpus 0 >/dev/null 2>"$WORK/fca.a.err" &
	a=$!
	gp --root "$WORK/fca" attach fca --gpus 1,2,3 >/dev/null 2>"$WORK/fca.b.err" &
	b=$!
	wait "$a" || rc_a=$?
	wait "$b" || rc_b=$?
	# Each waits for the other's lock and then succeeds: neither is refused or fails.
	check "both attaches' exit codes" "0 0" "$rc_a $rc_b" || { cat "$WORK"/fca.[ab].err; return 1; }
	check "one pre-start hook" 1 "$(grep -c '^lxc.hook.pre-start' "$P/fca/config")"
	sel=$(sed -n 's/^devices = //p' "$CONF/fca.ini")
	rules=$(grep -c 'devices.allow = c 195:[0-3] rwm' "$P/fca/config")
	case $sel in
	0) check "rules of the ini's selection" 1 "$rules" ;;
	1,2,3) check "rules of the ini's selection" 3 "$rules" ;;
	*) echo "    ini selection [$sel]"; return 1 ;;
	esac
}
