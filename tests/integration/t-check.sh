# shellcheck shell=bash
# gpu-provision check on real containers: their configs, their probes, the output formats.
# Sourced by run.sh.

check_json() { # check_json ROOT ARGS...: check --json into $WORK/check.json, exit code in crc
	local root=$1
	shift
	crc=0
	gp --root "$root" check "$@" --json >"$WORK/check.json" || crc=$?
}

has_finding() { grep -c "\"id\":\"$1\"" "$WORK/check.json" || true; }

# An attached container whose hook lines an admin took out, or whose rules are yesterday's.
test_check_container_config() {
	make_root h200-580-open "$WORK/chk"
	new_container "$P" chk
	gp --root "$WORK/chk" attach chk --gpus all >/dev/null
	check_json "$WORK/chk" chk
	check "hook present" 0 "$(has_finding hook-missing)"
	check "rules current" 0 "$(has_finding rule-stale)"
	sed -i 's/^238 nvidia-uvm/509 nvidia-uvm/' "$WORK/chk/proc/devices"
	check_json "$WORK/chk" chk
	check "stale uvm rules" 2 "$(has_finding rule-stale)"
	grep -q 'gpu-provision sync chk' "$WORK/check.json"
	gp --root "$WORK/chk" sync chk >/dev/null
	check_json "$WORK/chk" chk
	check "after sync" 0 "$(has_finding rule-stale)"
	sed -i '/gpu-hook/d' "$P/chk/config"
	check_json "$WORK/chk" chk
	check "hook missing" 1 "$(has_finding hook-missing)"
	check "exit" 1 "$crc"
}

# A running container is probed, and the probe's findings join the config's.
test_check_probes_running() {
	probe_ct crun h200-580-open all 580.159.04 "result 999"
	check_json "$WORK/crun.root" crun
	grep -q '"probe":"failed"' "$WORK/check.json"
	check "uvm-blocked from the probe" 1 "$(has_finding uvm-blocked)"
	set_fake_cuda "$P" crun "device 0000:00:06.0 $H200_UUID"
	check_json "$WORK/crun.root" crun
	grep -q '"probe":"ok"' "$WORK/check.json"
	check "no probe error" 0 "$(has_finding uvm-blocked)"
	stop crun
}

# --all probes in parallel (at most 4 at once): three containers, each cuInit taking 1 s.
test_check_all_parallel() {
	local t0 t1 c
	for c in pa1 pa2 pa3; do
		probe_ct "$c" h200-580-open all 580.159.04 "device 0000:00:06.0 $H200_UUID"
	done
	# One shared root for all three: their inis are in the same confdir.
	for c in pa1 pa2 pa3; do
		printf 'hang\n' >"$P/$c/rootfs/etc/fake-cuda"
		printf '[gpu]\ndevices = all\n[probe]\ntimeout = 1\n' >"$CONF/$c.ini"
	done
	t0=$(date +%s%N)
	check_json "$WORK/pa1.root" --all
	t1=$(date +%s%N)
	check "three probes timed out" 3 "$(grep -c '"probe":"timeout"' "$WORK/check.json")"
	echo "    check --all with 3 probes of 1 s each: $(((t1 - t0) / 1000000)) ms"
	check "in parallel (under 2.5 s)" yes "$([ $(((t1 - t0) / 1000000)) -lt 2500 ] && echo yes || echo no)"
	for c in pa1 pa2 pa3; do stop "$c"; done
}

# The node_exporter textfile format, as Prometheus' own tool reads it.
test_check_prometheus() {
	probe_ct cprom h200-580-open all 580.159.04 "device 0000:00:06.0 $H200_UUID"
	gp --root "$WORK/cprom.root" check cprom --format prometheus >"$WORK/check.prom" || true
	promtool check metrics <"$WORK/check.prom"
	grep -qx 'gpu_provision_probe_status{container="cprom",status="ok"} 1' "$WORK/check.prom"
	grep -q '^gpu_provision_findings{severity="error"} [0-9]' "$WORK/check.prom"
	stop cprom
}

# The docs table is the code's catalogue: regenerate and compare.
test_check_docs_current() {
	gp findings --format markdown | cmp - "$GP_TOP/docs/findings.md"
	check "every id documented" \
		"$(gp findings | awk '{print $1}' | sort | tr '\n' ' ')" \
		"$(grep -o '^| `[a-z0-9-]*`' "$GP_TOP/docs/findings.md" | tr -d '|` ' | sort | tr '\n' ' ')"
}
