# shellcheck shell=bash
# attach, detach, the command line and make install. Sourced by run.sh.

# attach twice changes nothing more; detach restores the config byte for byte.
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

# make install lays out the binaries, the hook snippet and a boot unit systemd accepts.
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

# Bad usage and bad selectors exit 2 with a message, and change nothing.
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

# Eight GPU UUIDs make a devices line longer than the ini's reader takes: refused before
# anything is written, with what to do, not left for the hook to refuse at the next start.
test_selection_too_long_for_the_ini() {
	local uuids
	make_root b200x8-590-open-hmm "$WORK/long"
	new_container "$P" long
	cp "$P/long/config" "$WORK/long.before"
	uuids=$(sed -n 's/^GPU UUID:[[:space:]]*//p' "$WORK"/long/proc/driver/nvidia/gpus/*/information |
		paste -sd, -)
	rc=0
	gp --root "$WORK/long" attach long --gpus "$uuids" 2>"$WORK/long.err" || rc=$?
	check "exit" 2 "$rc"
	check "said" 1 "$(count_matching 'would not read back (.*line longer than 198.*by index or PCI address' "$WORK/long.err")"
	cmp "$WORK/long.before" "$P/long/config"
	check "no ini" absent "$([ -e "$CONF/long.ini" ] && echo present || echo absent)"
	gp --root "$WORK/long" attach long --gpus all >/dev/null
}
