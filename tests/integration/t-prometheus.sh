# shellcheck shell=bash
# Monitoring as Prometheus users run it: check --output into node_exporter's textfile
# directory, read back by a real prometheus-node-exporter; the file replaced by a rename;
# the alerting rules under promtool. Sourced by run.sh.

# start_node_exporter DIR: a prometheus-node-exporter on a free loopback port with only the
# textfile collector, reading DIR; sets NE_PID and NE_URL. The caller's EXIT trap stops it.
start_node_exporter() {
	local port
	command -v prometheus-node-exporter >/dev/null ||
		{ echo "prometheus-node-exporter is missing: make deps"; return 1; }
	for _ in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 20000))
		prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
			--collector.disable-defaults --collector.textfile \
			--collector.textfile.directory="$1" >"$WORK/node-exporter.log" 2>&1 &
		NE_PID=$!
		NE_URL=http://127.0.0.1:$port/metrics
		for _ in $(seq 50); do
			curl -sf -o /dev/null "$NE_URL" && return 0
			kill -0 "$NE_PID" 2>/dev/null || break # the port was taken: another one
			sleep 0.1
		done
		stop_node_exporter
	done
	echo "    node_exporter did not start:"
	tail -5 "$WORK/node-exporter.log"
	return 1
}

stop_node_exporter() {
	[ -n "${NE_PID:-}" ] || return 0
	kill "$NE_PID" 2>/dev/null || true
	wait "$NE_PID" 2>/dev/null || true
	NE_PID=
}

# scraped NAME: the lines of gpu_provision_NAME (or any metric NAME) that node_exporter serves.
scraped() { curl -sf "$NE_URL" | grep "^$1{" | sort; }

# A running container probed, check --output into a textfile directory, node_exporter
# serving what it wrote: the findings by subject and the probe status.
test_prometheus_node_exporter() {
	local dir=$WORK/textfile rc=0 want
	NE_PID=
	trap 'stop_node_exporter; stop pnx' EXIT
	probe_ct pnx h200-580-open all 580.159.04 "device 0000:00:06.0 $H200_UUID"
	mkdir -p "$dir"
	# The fixture's host lacks GSP firmware: one error finding, exit 1 as without --output.
	gp --root "$WORK/pnx.root" check pnx --format prometheus --output "$dir/gpu-provision.prom" ||
		rc=$?
	check "exit" 1 "$rc"
	check "files in the directory" gpu-provision.prom "$(ls -A "$dir")"
	check "mode" 644 "$(stat -c %a "$dir/gpu-provision.prom")"
	start_node_exporter "$dir"
	check "scrape error" "node_textfile_scrape_error 0" \
		"$(curl -sf "$NE_URL" | grep '^node_textfile_scrape_error ')"
	scraped node_textfile_mtime_seconds | grep -q "file=\"$dir/gpu-provision.prom\""
	check "host findings" 'gpu_provision_host_findings{severity="error"} 1' \
		"$(scraped gpu_provision_host_findings | grep error)"
	check "container findings" 'gpu_provision_container_findings{container="pnx",severity="error"} 0' \
		"$(scraped gpu_provision_container_findings | grep error)"
	want='gpu_provision_probe_status{container="pnx",status="failed"} 0
gpu_provision_probe_status{container="pnx",status="ok"} 1
gpu_provision_probe_status{container="pnx",status="timeout"} 0'
	check "probe status" "$want" "$(scraped gpu_provision_probe_status)"
	# The next run replaces the file; node_exporter serves the new numbers.
	add_gsp_firmware "$WORK/pnx.root"
	gp --root "$WORK/pnx.root" check pnx --format prometheus --output "$dir/gpu-provision.prom"
	check "host findings after the fix" 'gpu_provision_host_findings{severity="error"} 0' \
		"$(scraped gpu_provision_host_findings | grep error)"
	check "files in the directory after" gpu-provision.prom "$(ls -A "$dir")"
}

# --output replaces the file by a rename: a reader that opened the old file still reads it
# whole, the path names a new file with the new result, no temp file stays; a directory
# that does not exist is exit 3 and nothing written.
test_prometheus_output_atomic() {
	local out=$WORK/atomic/gpu-provision.prom old_ino rc=0
	make_root h200-580-open "$WORK/atomic.root"
	mkdir -p "$WORK/atomic"
	gp --root "$WORK/atomic.root" check --format prometheus --output "$out" || [ $? = 1 ]
	cp "$out" "$WORK/atomic.old"
	old_ino=$(stat -c %i "$out")
	exec 3<"$out"
	add_gsp_firmware "$WORK/atomic.root"
	gp --root "$WORK/atomic.root" check --format prometheus --output "$out"
	check "the reader's file, whole" "$(cat "$WORK/atomic.old")" "$(cat <&3)"
	exec 3<&-
	[ "$(stat -c %i "$out")" != "$old_ino" ] || { echo "    the same inode was rewritten"; return 1; }
	promtool check metrics <"$out"
	grep -qx 'gpu_provision_host_findings{severity="error"} 0' "$out"
	grep -qx 'gpu_provision_host_findings{severity="error"} [1-9][0-9]*' "$WORK/atomic.old"
	check "files left" gpu-provision.prom "$(ls -A "$WORK/atomic")"
	# Any format: --json too, the same as on stdout.
	gp --root "$WORK/atomic.root" check --json --output "$WORK/atomic/check.json"
	check "json" "$(gp --root "$WORK/atomic.root" check --json)" "$(cat "$WORK/atomic/check.json")"
	gp --root "$WORK/atomic.root" check --output "$WORK/missing/check.txt" 2>"$WORK/atomic.err" ||
		rc=$?
	check "missing directory: exit" 3 "$rc"
	grep -q "Failed to write \"$WORK/missing/check.txt\"" "$WORK/atomic.err"
	[ ! -e "$WORK/missing" ]
}

# The alerting rules load in Prometheus, and each alert fires and stays quiet as its
# tests (tests/prometheus/*.yml) say.
test_prometheus_rules() {
	promtool check rules "$GP_TOP/conf/gpu-provision.rules.yml"
	promtool test rules "$GP_TOP"/tests/prometheus/*.yml
}

# The timer's service: check's exit 1 (errors found) is a success, its timeout is shorter
# than the timer's period, and it writes where Debian's node_exporter reads.
test_prometheus_units() {
	local svc=$GP_TOP/templates/gpu-provision-check.service.in
	local timer=$GP_TOP/templates/gpu-provision-check.timer.in t p
	check "success exit" "SuccessExitStatus=1" "$(grep '^SuccessExitStatus=' "$svc")"
	t=$(sed -n 's/^TimeoutStartSec=\([0-9]*\)s$/\1/p' "$svc")
	p=$(sed -n 's/^OnUnitActiveSec=\([0-9]*\)min$/\1/p' "$timer")
	if [ -z "$t" ] || [ -z "$p" ] || [ "$t" -ge $((p * 60)) ]; then
		echo "    timeout [$t s] not shorter than the period [$p min]"
		return 1
	fi
	local out args dir help
	out=$(sed -n 's/.*--output \([^ ]*\)$/\1/p' "$svc")
	check "the service's --output" gpu-provision.prom "$(basename "$out")"
	# Where the installed node_exporter reads: the directory its default file's ARGS give,
	# else its own default, as --help prints it ("=\"DIR\"" in 1.5, "=DIR ..." from 1.9).
	args=$(sed -n 's/^ARGS=//p' /etc/default/prometheus-node-exporter | tr -d "\"'")
	dir=$(sed -n 's/.*--collector\.textfile\.directory[= ]\([^ ]*\).*/\1/p' <<<"$args")
	if [ -z "$dir" ]; then
		help=$(prometheus-node-exporter --help 2>&1)
		dir=$(sed -n '/--collector\.textfile\.directory=/{s/.*--collector\.textfile\.directory="\{0,1\}\([^" ]*\).*/\1/p;q;}' <<<"$help")
	fi
	check "written where node_exporter reads" "$dir" "$(dirname "$out")"
}
