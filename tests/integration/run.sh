#!/bin/bash
# Integration tests: real LXC containers (busybox template) given GPUs from fixture roots.
# Run as root. Each test prints "ok" or "not ok"; the last line counts them.
set -u
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "integration: must run as root (sudo make check)" >&2
	exit 1
fi
command -v lxc-start >/dev/null || { echo "integration: lxc is missing: make deps" >&2; exit 1; }

WORK=$(mktemp -d /tmp/gp-it.XXXXXX)
chmod 755 "$WORK"
P=$WORK/lxc
CONF=$WORK/conf
mkdir -p "$P" "$CONF"
chmod 755 "$P"
passed=0
failed=0
failures=""

cleanup() {
	local c
	for c in $(lxc-ls -P "$P" 2>/dev/null); do
		lxc-stop -P "$P" -n "$c" -k >/dev/null 2>&1
		lxc-destroy -P "$P" -n "$c" >/dev/null 2>&1
	done
	[ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

check() { # check DESCRIPTION EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then return 0; fi
	echo "    $1: expected [$2], got [$3]"
	return 1
}

run_test() {
	local name=$1 rc
	(set -e; "$name") >"$WORK/$name.out" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok - $name"
		passed=$((passed + 1))
	else
		echo "not ok - $name"
		sed 's/^/    /' "$WORK/$name.out" | tail -30
		failed=$((failed + 1))
		failures="$failures $name"
	fi
}

gp() { "$GP" --confdir "$CONF" --lxcpath "$P" "$@"; }

start() { # start NAME: lxc-start with a debug log kept beside the container
	lxc-start -P "$P" -n "$1" -l DEBUG -o "$P/$1.log"
}

stop() { lxc-stop -P "$P" -n "$1" -k >/dev/null 2>&1 || true; }

node_of() { # node_of NAME PATH: "major:minor" of a node inside, or "absent"
	in_ct "$P" "$1" "stat -c '%t:%T' $2 2>/dev/null" | { read -r hex || true
		[ -n "${hex:-}" ] && printf '%d:%d\n' "0x${hex%%:*}" "0x${hex##*:}" || echo absent; }
}

# 1. Exactly the selected GPU, by nvidia-smi index, whose device minor differs.
test_selected_nodes_only() {
	make_root quad-550-proprietary "$WORK/quad"
	new_container "$P" sel
	gp --root "$WORK/quad" attach sel --gpus 1
	start sel
	check "index 1 is minor 2" "195:2" "$(node_of sel /dev/nvidia2)"
	check nvidiactl "195:255" "$(node_of sel /dev/nvidiactl)"
	check nvidia-uvm "509:0" "$(node_of sel /dev/nvidia-uvm)"
	check nvidia-uvm-tools "509:1" "$(node_of sel /dev/nvidia-uvm-tools)"
	for n in 0 1 3; do check "nvidia$n absent" absent "$(node_of sel /dev/nvidia$n)"; done
	# The cgroup lets the selected node through: the open reaches the (absent) driver.
	check "open selected" ENXIO "$(open_result "$P" sel /dev/nvidia2)"
	check "open uvm" ENXIO "$(open_result "$P" sel /dev/nvidia-uvm)"
	# An unselected GPU made by hand (common.conf allows mknod) is stopped by the cgroup.
	in_ct "$P" sel "mknod /dev/nvidia3 c 195 3"
	check "open unselected" EPERM "$(open_result "$P" sel /dev/nvidia3)"
	check "binds are nosuid,noexec" 4 \
		"$(in_ct "$P" sel "grep ' /dev/nvidia' /proc/self/mountinfo" | grep -c 'nosuid,noexec')"
	stop sel
}

# 2. /dev/nvidia-uvm gone from the host (after a reboot): made again, the start succeeds.
test_missing_host_node_recreated() {
	make_root h200-580-open "$WORK/h200"
	rm "$WORK/h200/dev/nvidia-uvm"
	new_container "$P" uvm
	gp --root "$WORK/h200" attach uvm --gpus all
	start uvm
	check "host node made" "c 238:0 666" \
		"$(stat -c '%F' "$WORK/h200/dev/nvidia-uvm" | sed 's/character special file/c/') $(stat -c '%t:%T %a' "$WORK/h200/dev/nvidia-uvm" | awk -F'[: ]' '{printf "%d:%d %s", "0x"$1, "0x"$2, $3}')"
	check "inside" "238:0" "$(node_of uvm /dev/nvidia-uvm)"
	stop uvm
}

# 3. A host node with yesterday's major is replaced with today's.
test_stale_host_node_replaced() {
	make_root h200-580-open "$WORK/stale"
	rm "$WORK/stale/dev/nvidia-uvm"
	mknod -m 0666 "$WORK/stale/dev/nvidia-uvm" c 237 0
	new_container "$P" stale
	gp --root "$WORK/stale" attach stale --gpus 0
	start stale
	check "host node" "ee:0" "$(stat -c '%t:%T' "$WORK/stale/dev/nvidia-uvm")"
	check "inside" "238:0" "$(node_of stale /dev/nvidia-uvm)"
	stop stale
}

# The start was refused and left nothing: not running, no mount, no plan.
assert_refused_clean() { # NAME ROOT LOG-PATTERN
	check "state" STOPPED "$(lxc-info -P "$P" -n "$1" -sH)"
	check "mounts left" 0 "$(host_mounts_under "$2/dev")"
	check "plan left" absent "$([ -e "$2/run/gpu-provision/$1.plan" ] && echo present || echo absent)"
	grep -q -- "$3" "$P/$1.log" || { echo "    log lacks [$3]"; grep gpu-hook "$P/$1.log" | tail -5; return 1; }
}

# 4. A bad ini aborts the start with file:line, and leaves nothing behind.
test_bad_ini_aborts() {
	make_root h200-580-open "$WORK/bad"
	new_container "$P" bad
	gp --root "$WORK/bad" attach bad --gpus all
	printf '[gpu]\ndevices = all\ncolour = red\n' >"$CONF/bad.ini"
	if start bad; then echo "    started with a bad ini"; return 1; fi
	assert_refused_clean bad "$WORK/bad" "bad.ini:3: unknown key \"colour\""
}

# 5. A selected GPU gone from the host aborts the start.
test_gpu_gone_aborts() {
	make_root quad-550-proprietary "$WORK/gone"
	new_container "$P" gone
	gp --root "$WORK/gone" attach gone --gpus GPU-1a2b3c4d-0000-4000-8000-000000000081
	rm -r "$WORK/gone/proc/driver/nvidia/gpus/0000:81:00.0"
	if start gone; then echo "    started without its GPU"; return 1; fi
	assert_refused_clean gone "$WORK/gone" "no GPU has UUID GPU-1a2b3c4d-0000-4000-8000-000000000081"
}

# 6. A config whose device rule for uvm is gone is refused before anything is mounted.
test_missing_rule_refused() {
	make_root h200-580-open "$WORK/rule"
	new_container "$P" rule
	gp --root "$WORK/rule" attach rule --gpus all
	sed -i '/c 238:0 rwm/d' "$P/rule/config"
	if start rule; then echo "    started without uvm's rule"; return 1; fi
	assert_refused_clean rule "$WORK/rule" "c 238:0 rwm\" for /dev/nvidia-uvm"
}

# 7. An unprivileged container (root-owned, idmapped) gets its nodes too.
test_unprivileged() {
	make_root quad-550-proprietary "$WORK/unpriv"
	new_container "$P" unpriv unprivileged
	gp --root "$WORK/unpriv" attach unpriv --gpus 0000:c1:00.0
	start unpriv
	check "uid map" "0 100000 65536" "$(in_ct "$P" unpriv "cat /proc/self/uid_map" | awk '{print $1,$2,$3}')"
	check "nvidia1" "195:1" "$(node_of unpriv /dev/nvidia1)"
	check "nvidia-uvm" "509:0" "$(node_of unpriv /dev/nvidia-uvm)"
	check "nvidia0 absent" absent "$(node_of unpriv /dev/nvidia0)"
	check "open" ENXIO "$(open_result "$P" unpriv /dev/nvidia1)"
	stop unpriv
}

# 8. attach twice changes nothing more; detach restores the config byte for byte.
test_attach_idempotent_detach_restores() {
	make_root h200-580-open "$WORK/idem"
	new_container "$P" idem
	cp "$P/idem/config" "$WORK/idem.before"
	gp --root "$WORK/idem" attach idem --gpus all --caps mig-config
	cp "$P/idem/config" "$WORK/idem.once"
	gp --root "$WORK/idem" attach idem --gpus all --caps mig-config
	cmp "$WORK/idem.once" "$P/idem/config"
	check "caps rule" 1 "$(grep -c 'devices.allow = c 241:1 rwm' "$P/idem/config")"
	# A new selection replaces the old rules instead of adding to them.
	gp --root "$WORK/idem" attach idem --gpus 0
	check "caps rule gone" 0 "$(grep -c '241:1' "$P/idem/config")"
	gp detach idem
	cmp "$WORK/idem.before" "$P/idem/config"
	check "ini gone" absent "$([ -e "$CONF/idem.ini" ] && echo present || echo absent)"
	gp detach idem
	cmp "$WORK/idem.before" "$P/idem/config"
	start idem
	check "no GPU after detach" absent "$(node_of idem /dev/nvidia0)"
	stop idem
}

# 9. A container whose /dev/nvidia0 is a symlink to a host file: refused, file untouched.
test_symlinked_target_refused() {
	make_root h200-580-open "$WORK/link"
	new_container "$P" link
	sed -i 's/^lxc.autodev = 1/lxc.autodev = 0/' "$P/link/config"
	echo secret >"$WORK/victim"
	mkdir -p "$P/link/rootfs/dev"
	ln -s "$WORK/victim" "$P/link/rootfs/dev/nvidia0"
	gp --root "$WORK/link" attach link --gpus 0
	grep -q '^lxc.hook.mount = ' "$P/link/config"
	if start link; then echo "    started through a symlink"; return 1; fi
	check "victim" secret "$(cat "$WORK/victim")"
	check "victim not mounted" 0 "$(host_mounts_under "$WORK/victim")"
	assert_refused_clean link "$WORK/link" "/dev/nvidia0 in the container cannot be a mount target"
}

# 10. MIG caps: config, monitor and a GI/CI's access nodes, made on the host when missing.
test_mig_caps() {
	make_root h200-580-open "$WORK/mig"
	new_container "$P" mig
	gp --root "$WORK/mig" attach mig --gpus 0 --caps mig-config,mig-monitor,gpu0/gi1/ci0
	start mig
	check "config" "241:1" "$(node_of mig /dev/nvidia-caps/nvidia-cap1)"
	check "monitor" "241:2" "$(node_of mig /dev/nvidia-caps/nvidia-cap2)"
	check "gi1 access" "241:12" "$(node_of mig /dev/nvidia-caps/nvidia-cap12)"
	check "gi1/ci0 access" "241:13" "$(node_of mig /dev/nvidia-caps/nvidia-cap13)"
	check "host gi1/ci0 node made" "f1:d 444" "$(stat -c '%t:%T %a' "$WORK/mig/dev/nvidia-caps/nvidia-cap13")"
	check "open ci0 access" ENXIO "$(open_result "$P" mig /dev/nvidia-caps/nvidia-cap13)"
	in_ct "$P" mig "mknod /dev/nvidia-caps/nvidia-cap14 c 241 14"
	check "open another CI" EPERM "$(open_result "$P" mig /dev/nvidia-caps/nvidia-cap14)"
	stop mig
}

# 11. An ini that others could write is refused at start; --dry-run changes nothing.
test_ini_permissions_and_dry_run() {
	make_root h200-580-open "$WORK/perm"
	new_container "$P" perm
	cp "$P/perm/config" "$WORK/perm.before"
	gp --root "$WORK/perm" --dry-run attach perm --gpus all >"$WORK/perm.dry"
	grep -q "would add to $P/perm/config: lxc.hook.pre-start = " "$WORK/perm.dry"
	cmp "$WORK/perm.before" "$P/perm/config"
	check "dry run wrote no ini" absent "$([ -e "$CONF/perm.ini" ] && echo present || echo absent)"
	gp --root "$WORK/perm" attach perm --gpus all
	chmod 0666 "$CONF/perm.ini"
	if start perm; then echo "    started with a world-writable ini"; return 1; fi
	assert_refused_clean perm "$WORK/perm" "perm.ini\" is owned by uid 0 with mode 0666"
	chmod 0644 "$CONF/perm.ini"
	start perm
	check "after chmod" "195:0" "$(node_of perm /dev/nvidia0)"
	stop perm
}

# 12. HMM on (open module, uvm_disable_hmm=N, CONFIG_DEVICE_PRIVATE=y, the 8 x B200 case):
# the policy wants nvidia_uvm reloaded; under --root that is printed, not done, so the
# start is refused, and nothing is left. With disable_hmm = no the same start succeeds.
test_hmm_policy_at_start() {
	make_root b200x8-590-open-hmm "$WORK/hmm"
	new_container "$P" hmm
	gp --root "$WORK/hmm" attach hmm --gpus 2,5
	if start hmm; then echo "    started with HMM on"; return 1; fi
	grep -q "the \[uvm\] policy needs: modprobe -r nvidia_uvm" "$P/hmm.log"
	grep -q "would run: modprobe nvidia_uvm uvm_disable_hmm=1" "$P/hmm.log"
	assert_refused_clean hmm "$WORK/hmm" "nvidia_uvm is still not as the \[uvm\] policy wants"
	printf '[gpu]\ndevices = 2,5\n[uvm]\ndisable_hmm = no\n' >"$CONF/hmm.ini"
	start hmm
	check "nvidia2" "195:2" "$(node_of hmm /dev/nvidia2)"
	check "nvidia5" "195:5" "$(node_of hmm /dev/nvidia5)"
	check "nvidia0 absent" absent "$(node_of hmm /dev/nvidia0)"
	stop hmm
}

# 13. nvidia_uvm in use with HMM on: refused naming what holds it; the host-wide
# on_conflict = warn lets the start go on with a warning.
test_hmm_conflict_in_use() {
	make_root b200x8-590-open-hmm "$WORK/busy"
	sed -i 's/^nvidia_uvm 1830912 0 - /nvidia_uvm 1830912 3 nvidia_peermem, /' "$WORK/busy/proc/modules"
	new_container "$P" busy
	gp --root "$WORK/busy" attach busy --gpus 0
	if start busy; then echo "    started with HMM on and uvm busy"; return 1; fi
	assert_refused_clean busy "$WORK/busy" "use count 3, held by nvidia_peermem"
	grep -q "prepare --persist and reboot" "$P/busy.log"
	printf '[uvm]\non_conflict = warn\n' >"$CONF/gpu-provision.conf"
	start busy
	grep -q "going on as \[uvm\] on_conflict = warn says" "$P/busy.log"
	check "nvidia0" "195:0" "$(node_of busy /dev/nvidia0)"
	stop busy
	rm "$CONF/gpu-provision.conf"
}

# 14. prepare: under --root module actions are printed; --persist writes the option once.
test_prepare_persist() {
	make_root b200x8-590-open-hmm "$WORK/prep"
	rm "$WORK/prep/dev/nvidia-uvm"
	gp --root "$WORK/prep" prepare --persist >"$WORK/prep.out"
	grep -q "would run: modprobe -r nvidia_uvm" "$WORK/prep.out"
	grep -q "persist: /etc/modprobe.d/gpu-provision.conf written" "$WORK/prep.out"
	grep -qx "options nvidia_uvm uvm_disable_hmm=1" "$WORK/prep/etc/modprobe.d/gpu-provision.conf"
	check "node made by prepare" "1ff:0" "$(stat -c '%t:%T' "$WORK/prep/dev/nvidia-uvm")"
	gp --root "$WORK/prep" prepare --persist >"$WORK/prep.out"
	grep -q "already says so" "$WORK/prep.out"
	make_root h200-580-open "$WORK/prep2"
	gp --root "$WORK/prep2" prepare --persist >"$WORK/prep2.out"
	grep -q "HMM needs no disabling" "$WORK/prep2.out"
	check "nothing planned for uvm" 0 "$(grep -c 'run: modprobe' "$WORK/prep2.out")"
	check "no modprobe.d file" absent "$([ -e "$WORK/prep2/etc/modprobe.d/gpu-provision.conf" ] && echo present || echo absent)"
}

# 15. make install lays out the binaries, the hook snippet and a boot unit systemd accepts.
test_install_layout() {
	local d=$WORK/inst unit
	make -s -C "$GP_TOP" install DESTDIR="$d" PREFIX=/usr >/dev/null
	for f in usr/sbin/gpu-provision usr/libexec/gpu-provision/gpu-hook \
		usr/share/gpu-provision/example.ini usr/share/gpu-provision/lxc-gpu.conf; do
		[ -s "$d/$f" ] || { echo "    missing $f"; return 1; }
	done
	grep -qx "lxc.hook.pre-start = /usr/libexec/gpu-provision/gpu-hook --confdir /etc/gpu-provision" \
		"$d/usr/share/gpu-provision/lxc-gpu.conf"
	unit=$d/usr/lib/systemd/system/gpu-provision-prepare.service
	grep -qx "ExecStart=/usr/sbin/gpu-provision --confdir /etc/gpu-provision prepare" "$unit"
	grep -qx "Before=pve-guests.service lxc.service lxc@.service" "$unit"
	sed "s|/usr/sbin/gpu-provision|$GP|" "$unit" >"$WORK/gpu-provision-prepare.service"
	systemd-analyze verify "$WORK/gpu-provision-prepare.service"
}

# 16. Bad usage and bad selectors exit 2 with a message, and change nothing.
test_cli_errors() {
	make_root quad-550-proprietary "$WORK/cli"
	new_container "$P" cli
	cp "$P/cli/config" "$WORK/cli.before"
	set +e
	gp --root "$WORK/cli" attach cli --gpus 7 2>"$WORK/cli.err"; rc=$?
	set -e
	check "exit" 2 "$rc"
	grep -q "no GPU has index 7 (the host has GPUs 0-3" "$WORK/cli.err"
	set +e
	gp attach nosuch --gpus 0 2>"$WORK/cli.err"; rc=$?
	set -e
	check "unknown container exit" 2 "$rc"
	grep -q 'no container "nosuch"' "$WORK/cli.err"
	cmp "$WORK/cli.before" "$P/cli/config"
	check "no ini" absent "$([ -e "$CONF/cli.ini" ] && echo present || echo absent)"
}

for t in $(declare -F | awk '$3 ~ /^test_/ {print $3}'); do
	[ -n "${ONLY:-}" ] && [ "$t" != "$ONLY" ] && continue
	run_test "$t"
done
echo "integration: $passed passed, $failed failed"
[ $failed -eq 0 ] || { echo "failed:$failures"; exit 1; }
