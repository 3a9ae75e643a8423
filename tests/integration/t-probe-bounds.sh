# shellcheck shell=bash
# The probe's bounds, seen from inside real containers whose libcuda.so.1 is a test
# double: the 128 KiB output cap, the sealed memfd, a cuInit in state D, at most 4 probes
# at once in check --all. Sourced by run.sh.

PB_UUID=GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460

# pb_ct NAME LIB TIMEOUT [ROOT]: an attached, started container (of the H200 fixture, or
# the given root) whose libcuda.so.1 is LIB (a path under the build's tests/), with a
# probe deadline of TIMEOUT s; the double reports the H200.
pb_ct() {
	local name=$1 so=${GP_BUILD:-$GP_TOP/build}/tests/$2 timeout=$3 root=${4:-} rootfs=$P/$1/rootfs
	[ -f "$so" ] || { echo "    $so is missing: make tests-helpers"; return 1; }
	if [ -z "$root" ]; then
		root=$WORK/$name.root
		make_root h200-580-open "$root"
	fi
	new_container "$P" "$name"
	gp --root "$root" attach "$name" --gpus all >/dev/null
	printf '[gpu]\ndevices = all\n[probe]\ntimeout = %d\n' "$timeout" >"$CONF/$name.ini"
	mkdir -p "$rootfs/opt/fakecuda"
	cp "$so" "$rootfs/opt/fakecuda/libcuda.so.580.159.04"
	echo /opt/fakecuda >"$rootfs/etc/ld.so.conf"
	ldconfig -r "$rootfs"
	set_fake_cuda "$P" "$name" "device 0000:00:06.0 $PB_UUID"
	start "$name"
}

pb_log() { # the container's hostile log; none yet is empty
	[ ! -e "$P/$1/rootfs/tmp/hostile.log" ] || cat "$P/$1/rootfs/tmp/hostile.log"
}

# pb_ids FILE: the finding ids of a probe --json, sorted, on one line.
pb_ids() { jq -r '[.findings[].id] | sort | join(" ")' "$1"; }

# pb_procs NAME: "STATE COMM" of each process in the container's pid namespace but its init.
pb_procs() {
	local init ns p
	init=$(lxc-info -P "$P" -n "$1" -pH)
	ns=$(readlink "/proc/$init/ns/pid")
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" != "$init" ] || continue
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$ns" ] || continue
		awk '/^State:/ {s=$2} /^Name:/ {n=$2} END {if (s) print s, n}' "$p/status" 2>/dev/null
	done
}

# A libcuda that writes 64 MiB of junk lines: the probe is killed once it passes 128 KiB,
# long before its deadline (status failed, not timeout), and the report is refused.
test_probe_output_cap() {
	local rc=0
	pb_ct pbflood hostile/flood.so 60
	gp --root "$WORK/pbflood.root" probe pbflood --json >"$WORK/pbflood.json" || rc=$?
	echo "    hostile log: $(pb_log pbflood | tail -3 | tr '\n' ';')"
	check "exit" 1 "$rc"
	check "status" failed "$(jq -r .status "$WORK/pbflood.json")"
	# The cut report is named as such, and nothing it said is taken for a diagnosis.
	check "findings" "fixture-host probe-output" "$(pb_ids "$WORK/pbflood.json")"
	# That finding is raised only when more than 128 KiB came: the flood got past the cap.
	grep -q 'wrote more than 128 KiB' <<<"$(jq -r '.findings[] | select(.id == "probe-output") | .summary' "$WORK/pbflood.json")"
	grep -qx 'flood start' <<<"$(pb_log pbflood)"
	check "the flood never finished" 0 "$(pb_log pbflood | count_matching '^flood done')"
	check "killed: no EPIPE, no end" 0 "$(pb_log pbflood | count_matching '^flood write')"
	check "no probe process left (by its name, memfd:gpu-probe)" 0 "$(pb_procs pbflood | count_matching ' memfd:gpu-probe$')"
	stop pbflood
}

# Code inside the probe (its libcuda) finds its own executable a memfd sealed against
# write, grow, shrink and new seals, and cannot change it.
test_probe_binary_sealed() {
	pb_ct pbseal hostile/seals.so 20
	gp --root "$WORK/pbseal.root" probe pbseal --json >"$WORK/pbseal.json"
	echo "    hostile log: $(pb_log pbseal | tr '\n' ';')"
	check "exe" "exe /memfd:gpu-probe (deleted)" "$(pb_log pbseal | grep '^exe ')"
	check "seals" "seals write grow shrink seal" "$(pb_log pbseal | grep '^seals')"
	check "a new seal" "add-seal EPERM" "$(pb_log pbseal | grep '^add-seal')"
	check "no write through an rw open" 0 "$(pb_log pbseal | count_matching -e '^write ok' -e '^truncate ok')"
	check "status" ok "$(jq -r .status "$WORK/pbseal.json")"
	stop pbseal
}

# cuInit in state D (a vfork parent waiting on a child that never execs: TASK_KILLABLE,
# "D" in /proc): seen as D from the host while the probe runs, reported as D, and
# killed at the deadline.
test_probe_state_d() {
	local rc=0 seen i
	pb_ct pbd fakecuda/dstate.so 4
	set_fake_cuda "$P" pbd hang
	gp --root "$WORK/pbd.root" probe pbd --json >"$WORK/pbd.json" &
	for i in $(seq 1 30); do
		seen=$(pb_procs pbd | awk '$1 == "D" {print "yes: " $2; exit}')
		[ -z "$seen" ] || break
		sleep 0.1
	done
	wait $! || rc=$?
	echo "    seen from the host: ${seen:-no process in state D}"
	check "the probe in state D, seen from the host" "yes: memfd:gpu-probe" "$seen"
	check "exit" 1 "$rc"
	check "status" timeout "$(jq -r .status "$WORK/pbd.json")"
	check "findings" "cuinit-hang fixture-host" "$(pb_ids "$WORK/pbd.json")"
	jq -r '.findings[] | select(.id == "cuinit-hang") | .evidence' "$WORK/pbd.json" |
		grep -q 'in state D (stuck in the kernel)'
	check "no probe process left (by its name, memfd:gpu-probe)" 0 "$(pb_procs pbd | count_matching ' memfd:gpu-probe$')"
	stop pbd
}

# check --all over 6 running containers whose probes each stay 2 s in libcuda: from the
# start and end times they log, at most 4 ran at once, and more than one did.
test_check_at_most_four_probes() {
	local c cts="pbc1 pbc2 pbc3 pbc4 pbc5 pbc6" most rc
	make_root h200-580-open "$WORK/pbc.root"
	for c in $cts; do
		pb_ct "$c" hostile/stamp.so 30 "$WORK/pbc.root"
		rm -f "$P/$c/rootfs/tmp/hostile.log"
	done
	# Exit 1: the fixture host has errors of its own (GSP firmware); the probes are judged below.
	rc=0
	gp --root "$WORK/pbc.root" check --all --json >"$WORK/pbc.json" || rc=$?
	check "check's exit" 1 "$rc"
	for c in $cts; do
		check "$c probed" ok "$(jq -r --arg c "$c" '.containers[] | select(.name == $c) | .probe' "$WORK/pbc.json")"
		check "$c logged a start and an end" "end start" "$(pb_log "$c" | awk '{print $1}' | sort | tr '\n' ' ' | sed 's/ $//')"
	done
	# An end sorts before a start at the same microsecond: touching is not overlapping.
	most=$(for c in $cts; do pb_log "$c"; done |
		awk '{print $2, ($1 == "start") ? 1 : 0}' | sort -k1,1n -k2,2n |
		awk '{n += $2 ? 1 : -1; if (n > m) m = n} END {print m}')
	echo "    most probes at once: $most"
	check "at most 4 at once" yes "$([ "$most" -le 4 ] && echo yes || echo no)"
	check "in parallel" yes "$([ "$most" -ge 2 ] && echo yes || echo no)"
	for c in $cts; do stop "$c"; done
}
