# shellcheck shell=bash
# Load: many starts at once, and many starts in a row, leave nothing behind. Sourced by run.sh.

# 20 containers started at the same moment, /dev/nvidia-uvm missing on the host at first.
test_load_twenty_at_once() {
	local i t0 t1 running=0
	make_root h200-580-open "$WORK/l20"
	rm "$WORK/l20/dev/nvidia-uvm"
	for i in $(seq 1 20); do
		new_container "$P" "l$i"
		gp --root "$WORK/l20" attach "l$i" --gpus all >/dev/null
	done
	t0=$(date +%s%N)
	for i in $(seq 1 20); do start "l$i" & done
	wait
	t1=$(date +%s%N)
	for i in $(seq 1 20); do
		[ "$(lxc-info -P "$P" -n "l$i" -sH)" = RUNNING ] && running=$((running + 1))
		check "l$i uvm" "238:0" "$(node_of "l$i" /dev/nvidia-uvm)"
	done
	echo "    20 simultaneous starts: $(((t1 - t0) / 1000000)) ms, $running running"
	check "running" 20 "$running"
	check "host node made once, right" "ee:0 666" "$(stat -c '%t:%T %a' "$WORK/l20/dev/nvidia-uvm")"
	check "no temporary nodes left" "" "$(find "$WORK/l20/dev" -name '*gp-new*')"
	check "20 plans" 20 "$(find "$WORK/l20/run/gpu-provision" -name '*.plan' | wc -l)"
	for i in $(seq 1 20); do stop "l$i"; done
	check "no plan after stop" 0 "$(find "$WORK/l20/run/gpu-provision" -name '*.plan' | wc -l)"
	for i in $(seq 1 20); do lxc-destroy -P "$P" -n "l$i" >/dev/null; done
}

# procs PATTERN: how many processes pgrep -f finds (its exit 1 is the count 0).
procs() {
	local n
	n=$(pgrep -c -f -- "$1") || [ "$n" = 0 ]
	echo "$n"
}

# 200 start/stop cycles of one container: no mount, file or process left.
test_load_two_hundred_cycles() {
	local i t0 t1
	make_root h200-580-open "$WORK/l200"
	new_container "$P" cyc
	gp --root "$WORK/l200" attach cyc --gpus all >/dev/null
	t0=$(date +%s%N)
	for i in $(seq 1 200); do
		lxc-start -P "$P" -n cyc || { echo "    start $i failed"; return 1; }
		lxc-stop -P "$P" -n cyc -k
	done
	t1=$(date +%s%N)
	echo "    200 start/stop cycles: $(((t1 - t0) / 1000000)) ms"
	check "host mounts" 0 "$(host_mounts_under "$WORK/l200")"
	check "files in run" "kconfig" "$(ls "$WORK/l200/run/gpu-provision/")"
	# LXC renames its monitor "[lxc monitor] LXCPATH NAME"; the hooks run as
	# "gpu-hook --root ROOT ... NAME lxc TYPE". Both patterns are seen to match once, on a
	# running container and in its start's hook lines, before they count what is left.
	lxc-start -P "$P" -n cyc
	check "the monitor pattern finds a running one" 1 "$(procs "^\[lxc monitor\] $P cyc\$")"
	grep -q "^lxc.hook.pre-start = .*gpu-hook --root $WORK/l200 " "$P/cyc/config"
	lxc-stop -P "$P" -n cyc -k
	check "gpu-hook processes" 0 "$(procs "gpu-hook --root $WORK/l200 ")"
	check "container monitors" 0 "$(procs "^\[lxc monitor\] $P cyc\$")"
	check "state" STOPPED "$(lxc-info -P "$P" -n cyc -sH)"
	check "nodes unchanged" "$(cat "$WORK/l200/dev-nodes.txt" | wc -l)" "$(find "$WORK/l200/dev" -type c | wc -l)"
}
