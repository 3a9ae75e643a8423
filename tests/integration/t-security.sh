# shellcheck shell=bash
# Hostile container files and configuration that others could write. Sourced by run.sh.

# A container whose /dev/nvidia0 is a symlink to a host file: refused, file untouched.
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

# An ini that others could write is refused at start; --dry-run changes nothing.
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
