# shellcheck shell=bash
# gpu-provision check on real containers: their configs, their probes, the output formats.
# Sourced by run.sh.

check_json() { # check_json ROOT ARGS...: check --json into $WORK/check.json, exit code in crc
	local root=$1
	shift
	crc=0
	gp --root "$root" check "$@" --json >"$WORK/check.json" || crc=$?
}

has_finding() { count_matching "\"id\":\"$1\"" "$WORK/check.json"; }

# The ids of the error findings in check.json (host and containers), sorted, on one line.
error_ids() {
	jq -r '[(.host[], .containers[].findings[]) | select(.severity == "error") | .id] |
		sort | join(" ")' "$WORK/check.json"
}

# Every finding's id in check.json, "host:" or "NAME:" before each, sorted, on one line.
all_ids() {
	jq -r '[(.host[] | "host:" + .id), (.containers[] | .name as $n | .findings[] |
		$n + ":" + .id)] | sort | join(" ")' "$WORK/check.json"
}

# add_gsp_firmware ROOT: the GSP firmware of the fixture's driver, so that the host itself
# raises no error finding and check's exit code is the containers' alone.
add_gsp_firmware() {
	mkdir -p "$1/lib/firmware/nvidia/580.159.04"
	: >"$1/lib/firmware/nvidia/580.159.04/gsp_ga10x.bin"
}

# An attached container whose hook lines an admin took out, or whose rules are yesterday's.
test_check_container_config() {
	make_root h200-580-open "$WORK/chk"
	add_gsp_firmware "$WORK/chk"
	new_container "$P" chk
	gp --root "$WORK/chk" attach chk --gpus all >/dev/null
	check_json "$WORK/chk" chk
	check "all findings" "" "$(all_ids)"
	check "hook present" 0 "$(has_finding hook-missing)"
	check "rules current" 0 "$(has_finding rule-stale)"
	# The busybox template binds the host's /lib and /usr/lib over empty directories of its
	# rootfs: nothing of its own hidden, silent above. A file of its own there is hidden.
	grep -qx "lxc.mount.entry = /usr/lib usr/lib none ro,bind 0 0" "$P/chk/config"
	touch "$P/chk/rootfs/usr/lib/own.so"
	check_json "$WORK/chk" chk
	check "its own library hidden" chk:bind-host-libdir "$(all_ids)"
	rm "$P/chk/rootfs/usr/lib/own.so"
	sed -i 's/^238 nvidia-uvm/509 nvidia-uvm/' "$WORK/chk/proc/devices"
	check_json "$WORK/chk" chk
	check "stale uvm rules" 2 "$(has_finding rule-stale)"
	check "all findings" "chk:rule-stale chk:rule-stale host:host-node-stale host:host-node-stale" \
		"$(all_ids)"
	grep -q 'gpu-provision sync chk' "$WORK/check.json"
	gp --root "$WORK/chk" sync chk >/dev/null
	# The host's own uvm nodes for the new major too, as the hook would make them.
	rm "$WORK/chk/dev/nvidia-uvm" "$WORK/chk/dev/nvidia-uvm-tools"
	mknod -m 666 "$WORK/chk/dev/nvidia-uvm" c 509 0
	mknod -m 666 "$WORK/chk/dev/nvidia-uvm-tools" c 509 1
	check_json "$WORK/chk" chk
	check "after sync" 0 "$(has_finding rule-stale)"
	check "after sync: no error" "" "$(error_ids)"
	check "all findings after sync" "" "$(all_ids)"
	check "after sync: exit" 0 "$crc"
	sed -i '/gpu-hook/d' "$P/chk/config"
	check_json "$WORK/chk" chk
	check "hook missing" 1 "$(has_finding hook-missing)"
	check "the errors" hook-missing "$(error_ids)"
	check "all findings" chk:hook-missing "$(all_ids)"
	check "exit" 1 "$crc"
	# A name that is no container: said, exit 2, not "no findings".
	crc=0
	gp --root "$WORK/chk" check nosuch >"$WORK/out" 2>"$WORK/err" || crc=$?
	check "no such container: exit" 2 "$crc"
	check "no such container: said" 1 "$(count_matching 'check nosuch: no such container' "$WORK/err")"
	# A confdir that cannot be listed: said, the host still reported, exit 3.
	: >"$WORK/notadir"
	crc=0
	"$GP" --root "$WORK/chk" --confdir "$WORK/notadir" --lxcpath "$P" check --all \
		>"$WORK/out" 2>"$WORK/err" || crc=$?
	check "unlistable confdir: exit" 3 "$crc"
	check "unlistable confdir: said" 1 "$(count_matching 'Failed to list the containers with an ini in' "$WORK/err")"
	check "unlistable confdir: host reported" 1 "$(count_matching '^host' "$WORK/out")"
	# A broken ini is a finding with file:line, and the container's other checks still run.
	printf '[gpu]\ndevices = all\nbogus = 1\n' >"$CONF/chk.ini"
	check_json "$WORK/chk" chk
	check "broken ini" "chk:ini-invalid" "$(all_ids)"
	check "broken ini: where" 1 "$(count_matching 'chk.ini:3: unknown key' "$WORK/check.json")"
}

# A running container is probed, and the probe's findings join the config's.
test_check_probes_running() {
	probe_ct crun h200-580-open all 580.159.04 "result 999"
	check_json "$WORK/crun.root" crun
	grep -q '"probe":"failed"' "$WORK/check.json"
	check "all findings" "crun:fixture-host crun:uvm-blocked host:gsp-firmware-missing" "$(all_ids)"
	check "uvm-blocked from the probe" 1 "$(has_finding uvm-blocked)"
	set_fake_cuda "$P" crun "device 0000:00:06.0 $H200_UUID"
	check_json "$WORK/crun.root" crun
	grep -q '"probe":"ok"' "$WORK/check.json"
	check "all findings" "crun:fixture-host host:gsp-firmware-missing" "$(all_ids)"
	check "no probe error" 0 "$(has_finding uvm-blocked)"
	stop crun
}

# most_at_once STOPFILE NAME...: the most of the containers NAME... whose probe ran at the
# same moment, sampled every 20 ms until STOPFILE exists. A probe runs as check's child
# "gpu-provision ... probe NAME" (its attach helper may show as a second such process).
most_at_once() {
	local stop=$1 max=0 n
	shift
	while [ ! -e "$stop" ]; do
		n=$(ps -eo args | awk -v p="--lxcpath $P " -v names=" $* " '
			index($0, p) && $(NF - 1) == "probe" && index(names, " " $NF " ") { at[$NF] = 1 }
			END { print length(at) }')
		[ "$n" -le "$max" ] || max=$n
		sleep 0.02
	done
	echo "$max"
}

# --all probes in parallel (at most 4 at once): three containers whose cuInit hangs past
# their 1 s deadline. That they ran at once is seen, not timed: check's probe children
# ("gpu-provision ... probe paN"), seen on the host while check runs, were all
# three alive together. (Sequential probes never show more than one, however loaded the
# machine; parallel ones are each alive for at least their 1 s deadline.) The wall time
# is printed only; check --all against one probe is a ratio in make bench.
test_check_all_parallel() {
	local t0 t1 c
	# Stopped whatever happens: a hanging container left running is probed by every later
	# check --all in this lxcpath.
	trap 'for c in pa1 pa2 pa3; do stop "$c"; done' EXIT
	for c in pa1 pa2 pa3; do
		probe_ct "$c" h200-580-open all 580.159.04 "device 0000:00:06.0 $H200_UUID"
	done
	# One shared root for all three: their inis are in the same confdir.
	for c in pa1 pa2 pa3; do
		printf 'hang\n' >"$P/$c/rootfs/etc/fake-cuda"
		printf '[gpu]\ndevices = all\n[probe]\ntimeout = 1\n' >"$CONF/$c.ini"
	done
	rm -f "$WORK/pa.done"
	most_at_once "$WORK/pa.done" pa1 pa2 pa3 >"$WORK/pa.max" &
	t0=$(date +%s%N)
	check_json "$WORK/pa1.root" --all
	t1=$(date +%s%N)
	touch "$WORK/pa.done"
	wait $!
	echo "    check --all with 3 probes of 1 s each: $(((t1 - t0) / 1000000)) ms"
	check "exit" 1 "$crc"
	check "three probes timed out" "pa1 timeout pa2 timeout pa3 timeout" \
		"$(jq -r '[.containers[] | select(.name | test("^pa[123]$")) | .name, .probe] |
			join(" ")' "$WORK/check.json")"
	check "probes running at once" 3 "$(cat "$WORK/pa.max")"
}

# The node_exporter textfile format, as Prometheus' own tool reads it.
test_check_prometheus() {
	local rc=0
	probe_ct cprom h200-580-open all 580.159.04 "device 0000:00:06.0 $H200_UUID"
	# The fixture's host lacks GSP firmware: one error finding, exit 1.
	gp --root "$WORK/cprom.root" check cprom --format prometheus >"$WORK/check.prom" || rc=$?
	check "exit" 1 "$rc"
	promtool check metrics <"$WORK/check.prom"
	check "probe status" "ok 1 failed 0 timeout 0" "$(metric_values probe_status status)"
	check "findings" "error 1 warning 0 info $(metric_info_want)" "$(metric_values findings severity)"
	# With the firmware there, no error: the metric says 0 and check exits 0.
	add_gsp_firmware "$WORK/cprom.root"
	gp --root "$WORK/cprom.root" check cprom --format prometheus >"$WORK/check.prom"
	check "findings with the firmware" "error 0" "$(metric_values findings severity | cut -d' ' -f1-2)"
	stop cprom
}

# metric_values NAME LABEL: "LABEL-VALUE VALUE ..." of gpu_provision_NAME in check.prom.
metric_values() {
	sed -n "s/^gpu_provision_$1{.*$2=\"\([a-z]*\)\"} \([0-9]*\)\$/\1 \2/p" "$WORK/check.prom" |
		paste -sd' '
}

# The info findings check --json counts for the same host and container.
metric_info_want() {
	gp --root "$WORK/cprom.root" check cprom --json >"$WORK/cprom.json" || [ $? = 1 ]
	jq '[(.host[], .containers[].findings[]) | select(.severity == "info")] | length' \
		"$WORK/cprom.json"
}

# The docs table is the code's catalogue: regenerate and compare.
test_check_docs_current() {
	local ids
	gp findings --format markdown | cmp - "$GP_TOP/docs/findings.md"
	ids=$(gp findings)
	check "every id documented" \
		"$(awk '{print $1}' <<<"$ids" | sort | tr '\n' ' ')" \
		"$(grep -o '^| `[a-z0-9-]*`' "$GP_TOP/docs/findings.md" | tr -d '|` ' | sort | tr '\n' ' ')"
}

# What NVIDIA's container toolkit and Docker left in an unprivileged container, planted in its
# rootfs as an admin's install leaves them: check names each, from the files alone, and once
# they are set right says none of them.
test_check_toolkit_route() {
	local rfs=$P/tkr/rootfs before
	make_root h200-580-open "$WORK/tkr"
	add_gsp_firmware "$WORK/tkr"
	new_container "$P" tkr unprivileged
	gp --root "$WORK/tkr" attach tkr --gpus all --inject >/dev/null
	check_json "$WORK/tkr" tkr
	before=$(all_ids)
	mkdir -p "$rfs/etc/nvidia-container-runtime" "$rfs/etc/docker" "$rfs/etc/cdi" \
		"$rfs/var/lib/dpkg"
	printf '[nvidia-container-cli]\nload-kmods = true\nno-cgroups = false\n' \
		>"$rfs/etc/nvidia-container-runtime/config.toml"
	printf '{"default-runtime": "nvidia", "runtimes": {"nvidia": {"path": "%s"}}}\n' \
		nvidia-container-runtime >"$rfs/etc/docker/daemon.json"
	printf 'Package: docker.io\nStatus: install ok installed\nVersion: %s\n\n' \
		26.1.5+dfsg1-9+b9 >>"$rfs/var/lib/dpkg/status"
	printf '%s\n' 'cdiVersion: 0.5.0' 'kind: nvidia.com/gpu' 'devices:' '- name: all' \
		'  containerEdits:' '    deviceNodes:' '    - path: /dev/nvidia0' 'containerEdits:' \
		'  hooks:' '  - hookName: createContainer' '    path: /usr/bin/nvidia-cdi-hook' \
		>"$rfs/etc/cdi/nvidia.yaml"
	check_json "$WORK/tkr" tkr
	check "toolkit findings" \
		"cdi-spec-conflict cdi-spec-stale docker-cdi-off docker-default-runtime-missing toolkit-cgroups" \
		"$(jq -r '[.containers[].findings[].id | select(test("^(toolkit|docker|cdi)-"))] |
			sort | join(" ")' "$WORK/check.json")"
	check "exit" 1 "$crc"
	check "no-cgroups at its line" 1 \
		"$(count_matching 'config.toml:3: no-cgroups = false' "$WORK/check.json")"
	check "the hook named" 1 \
		"$(count_matching '1 of its 1 files are not in the container (/usr/bin/nvidia-cdi-hook)' \
			"$WORK/check.json")"
	# Set right: no-cgroups on, CDI on, no nvidia runtime, NVIDIA's spec gone.
	sed -i 's/no-cgroups = false/no-cgroups = true/' "$rfs/etc/nvidia-container-runtime/config.toml"
	echo '{"features": {"cdi": true}}' >"$rfs/etc/docker/daemon.json"
	rm "$rfs/etc/cdi/nvidia.yaml"
	check_json "$WORK/tkr" tkr
	check "set right: the findings of before" "$before" "$(all_ids)"
}
