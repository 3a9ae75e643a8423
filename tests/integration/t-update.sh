# shellcheck shell=bash
# The day after a driver update: the stand-in driver under a --root replaced while a real
# container runs (t-inject.sh's inject_ct), as a package does it, and what check, list, the
# textfile and sync --restart make of it. Sourced by run.sh.

# update_ids NAME: check's findings of a driver update for the container, sorted.
update_ids() {
	gp --root "$WORK/$1.root" check "$1" --json >"$WORK/$1.json" || true
	jq -e '.containers | length == 1' "$WORK/$1.json" >/dev/null || { echo "check $1 said no container"; return; }
	jq -r '[.containers[].findings[].id | select(. == "driver-replaced" or . == "driver-version-stale" or . == "reboot-pending")] | sort | join(" ")' "$WORK/$1.json"
}

# restart_gauge NAME: the textfile's gpu_provision_restart_needed of the container.
restart_gauge() {
	gp --root "$WORK/$1.root" check "$1" --format prometheus 2>/dev/null |
		sed -n "s/^gpu_provision_restart_needed{container=\"$1\"} //p"
}

list_restart() { gp --root "$WORK/$1.root" list --json | jq -r ".[] | select(.name == \"$1\") | .restart"; }

init_of() { lxc-info -P "$P" -n "$1" -pH; }

# The same version's files anew (dpkg writes a new file and renames it over the old): the
# container runs the removed one until sync --restart gives it the new one.
test_update_files_replaced() {
	local r=$WORK/ur.root lib pid
	inject_ct ur
	start ur
	check "before: nothing to say" "" "$(update_ids ur)"
	check "before: gauge" 0 "$(restart_gauge ur)"
	check "before: list" no "$(list_restart ur)"
	lib=$r/usr/lib/x86_64-linux-gnu
	cp "$lib/libcuda.so.$US" "$lib/.libcuda.new"
	mv "$lib/.libcuda.new" "$lib/libcuda.so.$US"
	# Another container of the host, started on the new file: nothing to restart.
	new_container "$P" ur2
	gp --root "$r" attach ur2 --gpus 0 --inject >/dev/null
	start ur2
	check "replaced" driver-replaced "$(update_ids ur)"
	check "its summary" "ur runs 1 injected driver file(s) the host has since replaced at $US: it works on them until it restarts, and its next start gets the host's" \
		"$(jq -r '.containers[].findings[] | select(.id == "driver-replaced") | .summary' "$WORK/ur.json")"
	jq -r '.containers[].findings[] | select(.id == "driver-replaced") | .evidence' "$WORK/ur.json" |
		grep -qF "1 of its 3 binds at /usr/local/nvidia are of files removed on the host (libcuda.so.$US//deleted)"
	check "gauge" 1 "$(restart_gauge ur)"
	check "list --json" restart "$(list_restart ur)"
	gp --root "$r" list | grep '^ur ' | grep -qF "; restart: the host replaced its driver files"
	pid=$(init_of ur)
	check "dry run" "ur: would restart: the host replaced 1 of its driver files" \
		"$(gp --root "$r" sync ur --restart --dry-run | grep '^ur: would restart')"
	check "dry run: the same init" "$pid" "$(init_of ur)"
	gp --root "$r" sync ur --restart --timeout 2 | grep -qxF "ur: restarted on driver $US"
	check "a new init" yes "$([ "$(init_of ur)" != "$pid" ] && echo yes)"
	check "after" "" "$(update_ids ur)"
	check "after: gauge" 0 "$(restart_gauge ur)"
	in_ct "$P" ur nvidia-smi | grep -qF "nvmlInit_v2 0"
	pid=$(init_of ur2)
	check "the other: already right, not restarted" "ur2: already right" \
		"$(gp --root "$r" sync ur2 --restart --timeout 2)"
	check "the other: the same init" "$pid" "$(init_of ur2)"
	stop ur
	stop ur2
}

# A module of another version loaded since, its files installed: CUDA fails until the
# restart; a newer driver's files with the old module still loaded: reboot first, and
# sync --restart leaves the container running.
test_update_module_and_reboot() {
	local r=$WORK/um.root new=580.200.00 pid out rc=0
	inject_ct um
	start um
	add_host_userspace "$r" "$new"
	sed -i "s/$US/$new/" "$r/proc/driver/nvidia/version"
	check "module reloaded" driver-version-stale "$(update_ids um)"
	check "its summary" "um runs driver $US's libraries, but the loaded module is $new: CUDA fails (driver and library versions differ) until it restarts" \
		"$(jq -r '.containers[].findings[] | select(.id == "driver-version-stale") | .summary' "$WORK/um.json")"
	check "list" restart "$(list_restart um)"
	gp --root "$r" sync um --restart --timeout 2 | grep -qxF "um: restarted on driver $new"
	check "after the restart" "" "$(update_ids um)"
	in_ct "$P" um "ls /usr/local/nvidia/lib64" | grep -qxF "libcuda.so.$new"
	# apt upgrade: the next driver's files, the module of $new until the host reboots.
	add_host_userspace "$r" 590.48.01
	check "reboot pending" reboot-pending "$(update_ids um)"
	check "no capability finding besides" "" \
		"$(jq -r '[.containers[].findings[].id | select(. == "inject-capability-missing")] | join(" ")' "$WORK/um.json")"
	check "gauge" 2 "$(restart_gauge um)"
	check "list --json" reboot-first "$(list_restart um)"
	gp --root "$r" list | grep '^um ' | grep -qF "; reboot the host first: its driver files were replaced"
	pid=$(init_of um)
	out=$(gp --root "$r" sync um --restart --timeout 2) || rc=$?
	check "sync --restart refuses: failed (3)" 3 "$rc"
	check "its reason" "um: not restarted: it runs driver $new, the host's files are 590.48.01's and the module $new's; its start is refused until the host reboots" \
		"$(echo "$out" | grep '^um: not restarted')"
	check "still running, the same init" "$pid" "$(init_of um)"
	stop um
}
