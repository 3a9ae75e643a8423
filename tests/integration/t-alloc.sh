# shellcheck shell=bash
# Portable selections (any:N, model:TEXT:N): resolved at each start among the GPUs no other
# running container holds, under one lock; the plan says which and whose. Sourced by run.sh.

B200=GPU-5eed0000-0000-4000-8000-00000000000 # + the GPU's index, 0-7, in the 8-GPU fixture

# portable_ct NAME ROOT DEVICES: a busybox container attached with a portable selection; the
# fixture's HMM is let be (no_hmm_policy, t-recipes.sh): these tests are not about it.
portable_ct() {
	new_container "$P" "$1"
	gp --root "$2" attach "$1" --gpus "$3" >/dev/null
	no_hmm_policy "$1"
}

# gpu_minors NAME: the minors of the /dev/nvidiaN nodes inside, in order, blank-separated.
gpu_minors() {
	# shellcheck disable=SC2016 # expanded by the shell inside
	in_ct "$P" "$1" 'for n in /dev/nvidia[0-9]*; do [ -c "$n" ] && echo "${n#/dev/nvidia}"; done' |
		sort -n | paste -sd' '
}

# owner_of ROOT NAME: the owner pid its plan records.
owner_of() {
	awk '$1 == "owner" {print $2}' "$1/run/gpu-provision/$2.plan"
}

# monitor_of NAME: the pid of LXC's monitor of the container.
monitor_of() {
	pgrep -f "^\[lxc monitor\] $P $1\$"
}

# Ten containers with any:1 started at once on 8 GPUs: 8 run, each on a GPU of its own, 2
# are refused naming who holds what; stopping one lets a refused one take the GPU it freed.
test_alloc_ten_at_once() {
	local i root=$WORK/a10 running="" refused="" minors="" m freed name
	make_root b200x8-590-open-hmm "$root"
	for i in $(seq 0 9); do portable_ct "a10-$i" "$root" any:1; done
	for i in $(seq 0 9); do start "a10-$i" & done
	wait
	for i in $(seq 0 9); do
		if [ "$(lxc-info -P "$P" -n "a10-$i" -sH)" = RUNNING ]; then
			running="$running a10-$i"
		else
			refused="$refused a10-$i"
		fi
	done
	check "running" 8 "$(wc -w <<<"$running")"
	for name in $running; do
		m=$(gpu_minors "$name")
		check "$name has one GPU" 1 "$(wc -w <<<"$m")"
		line=$(grep '^gpu ' "$root/run/gpu-provision/$name.plan")
		check "$name's plan says it" "gpu $m $B200$m" "$(cut -d' ' -f1-3 <<<"$line")"
		check "$name's plan names its PCI address" "$m" "$(awk -F: '/^Device Minor/ { gsub(/[ \t]/, "", $2); print $2 }' \
			"$root/proc/driver/nvidia/gpus/$(cut -d' ' -f4 <<<"$line")/information")"
		check "$name's plan is its monitor's" "$(monitor_of "$name")" "$(owner_of "$root" "$name")"
		minors="$minors $m"
	done
	check "eight GPUs, each once" "0 1 2 3 4 5 6 7" "$(tr ' ' '\n' <<<"$minors" | sed '/^$/d' | sort -n | paste -sd' ')"
	for name in $refused; do
		assert_refused_clean "$name" "$root" \
			"$CONF/$name.ini:$(grep -n '^devices' "$CONF/$name.ini" | cut -d: -f1): this host cannot give $name devices = any:1: 1 free GPU wanted, none is free; this host has 8 GPUs: 0 NVIDIA B200 (held by a10-"
		check "$name's refusal names each holder" 8 \
			"$(grep -m1 'cannot give' "$P/$name.log" | grep -o '(held by a10-[0-9])' | wc -l)"
	done
	check "no lock file once all are done" absent \
		"$([ -e "$root/run/gpu-provision/alloc.lock" ] && echo present || echo absent)"
	# One stops: a refused one starts and gets the GPU it freed.
	name=${running# }
	name=${name%% *}
	freed=$(gpu_minors "$name")
	stop "$name"
	check "plan gone at stop" absent \
		"$([ -e "$root/run/gpu-provision/$name.plan" ] && echo present || echo absent)"
	name=${refused# }
	name=${name%% *}
	start "$name"
	check "$name got the freed GPU" "$freed" "$(gpu_minors "$name")"
	for i in $(seq 0 9); do stop "a10-$i"; done
	check "no plan after stop" 0 "$(find "$root/run/gpu-provision" -name '*.plan' | wc -l)"
}

# A privileged container with a portable selection is warned: its rules allow every GPU it
# may get. The rules attach wrote are those of every such GPU.
test_alloc_privileged_warned() {
	local root=$WORK/apw
	make_root b200x8-590-open-hmm "$root"
	portable_ct apw "$root" model:B200:1
	check "rules for every B200" 8 "$(count_matching 'devices.allow = c 195:[0-7] rwm' "$P/apw/config")"
	start apw
	check "first B200" 0 "$(gpu_minors apw)"
	grep -q "apw is privileged and devices = model:B200:1 takes whichever GPUs are free, so its device rules allow every GPU it may get" "$P/apw.log"
	check "open its GPU" ENXIO "$(open_result "$P" apw /dev/nvidia0)"
	stop apw
}

# A plan whose owner is gone holds nothing; one without owner (version 1, an older hook)
# holds what its nodes name.
test_alloc_stale_plan_ignored() {
	local root=$WORK/ast dead i
	make_root b200x8-590-open-hmm "$root"
	portable_ct ast "$root" any:1
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	mkdir -p "$root/run/gpu-provision"
	{
		printf 'gpu-provision-plan 2\nowner %s 12345\n' "$dead"
		for i in $(seq 0 7); do echo "gpu $i $B200$i"; done
		echo "node nvidiactl 195 255 0666 0 0"
	} >"$root/run/gpu-provision/crashed.plan"
	# The right pid, another start time: the pid went to another process since.
	{
		printf 'gpu-provision-plan 2\nowner %s 1\n' "$$"
		for i in $(seq 0 7); do echo "gpu $i $B200$i"; done
	} >"$root/run/gpu-provision/reused.plan"
	printf 'gpu-provision-plan 1\nnode nvidiactl 195 255 0666 0 0\nnode nvidia0 195 0 0666 0 0\n' \
		>"$root/run/gpu-provision/older.plan"
	start ast
	check "GPU 0 is the old plan's, the rest free" 1 "$(gpu_minors ast)"
	stop ast
	check "others' stale plans left as they were" 3 "$(find "$root/run/gpu-provision" -name '*.plan' | wc -l)"
}

# model:TEXT:N: a B200 on the B200 host; an H100 refused at attach and, written by hand, at
# start, naming what the host has and who holds it.
test_alloc_model() {
	local root=$WORK/amd out rc=0
	make_root b200x8-590-open-hmm "$root"
	portable_ct amb "$root" model:B200:1
	start amb
	check "a B200" 0 "$(gpu_minors amb)"
	new_container "$P" amh
	out=$(gp --root "$root" attach amh --gpus model:H100:1 2>&1) || rc=$?
	check "attach refused" 2 "$rc"
	grep -q 'model:H100:1 wants 1 GPU whose model contains "H100"; the host has 0' <<<"$out"
	rc=0
	out=$(gp --root "$root" attach amh --gpus any:1 --caps mig-config 2>&1) || rc=$?
	check "caps refused" 2 "$rc"
	grep -q 'caps = mig-config needs fixed GPUs' <<<"$out"
	gp --root "$root" attach amh --gpus any:1 >/dev/null
	no_hmm_policy amh
	sed -i 's/^devices = .*/devices = model:H100:1/' "$CONF/amh.ini"
	if start amh; then echo "    started without an H100"; return 1; fi
	assert_refused_clean amh "$root" \
		"this host cannot give amh devices = model:H100:1: model:H100:1 wants 1 GPU whose model contains \"H100\"; the host has 0 (see gpu-provision host); this host has 8 GPUs: 0 NVIDIA B200 (held by amb), 1 NVIDIA B200 (free),"
	stop amb
}

# any:2 beside a container holding GPU 0: it gets 1 and 2, and probe, check and list say so
# from its plan, not from the selection resolved again.
test_alloc_probe_and_list() {
	local root=$WORK/apl.root
	make_root b200x8-590-open-hmm "$root"
	portable_ct aplz "$root" any:1
	start aplz
	portable_ct apl "$root" any:2
	add_fake_cuda "$P" apl 590.48.01
	set_fake_cuda "$P" apl "device 0000:2a:00.0 ${B200}1" "device 0000:3a:00.0 ${B200}2"
	start apl
	check "its GPUs" "1 2" "$(gpu_minors apl)"
	cp "$root/run/gpu-provision/apl.plan" "$WORK/apl.plan"
	probe_expect apl ok fixture-host
	check "probe's gpus" "1 ${B200}1,2 ${B200}2" \
		"$(jq -r '[.gpus[] | "\(.index) \(.uuid)"] | join(",")' "$WORK/apl.json")"
	check "probe's nodes" "/dev/nvidia1 /dev/nvidia2" \
		"$(jq -r '[.nodes[].path | select(test("nvidia[0-9]"))] | join(" ")' "$WORK/apl.json")"
	gp --root "$root" probe apl >"$WORK/apl.txt"
	grep -qx "  devices = any:2: the start got GPU 1 ${B200}1, GPU 2 ${B200}2" "$WORK/apl.txt"
	# check's own exit is the fixture host's HMM finding; its probe of apl is what counts.
	gp --root "$root" check apl --json >"$WORK/apl.check.json" || true
	check "check's probe" ok "$(jq -r '.containers[] | select(.name == "apl") | .probe' "$WORK/apl.check.json")"
	check "list" "apl any:2 (1,2) lxc-hook RUNNING ok, 0 min ago" \
		"$(gp --root "$root" list | grep '^apl ' | tr -s ' ')"
	check "list of aplz" "aplz any:1 (0) lxc-hook RUNNING never probed" \
		"$(gp --root "$root" list | grep '^aplz ' | tr -s ' ')"
	check "list --json" "any:2 (1,2)" \
		"$(gp --root "$root" list --json | jq -r '.[] | select(.name == "apl") | .gpus')"
	stop apl
	check "stopped: the selection alone" "apl any:2 lxc-hook STOPPED ok, 0 min ago" \
		"$(gp --root "$root" list | grep '^apl ' | tr -s ' ')"
	# A fixed selection of the GPU aplz took alone starts, warned naming the holder.
	new_container "$P" aplf
	gp --root "$root" attach aplf --gpus 0 >/dev/null
	no_hmm_policy aplf
	start aplf
	grep -q "which is held by aplz, whose devices = any:1 expects it alone" "$P/aplf.log"
	stop aplf
	# Without its plan, which GPUs aplz got is not known: the probe refuses, judging none.
	rm "$root/run/gpu-provision/aplz.plan"
	set +e
	gp --root "$root" probe aplz --json >"$WORK/aplz.json" 2>"$WORK/aplz.err"
	rc=$?
	set -e
	check "probe without a plan: exit" 3 "$rc"
	grep -q 'no plan "' "$WORK/aplz.err"
	grep -q 'restart aplz' "$WORK/aplz.err"
	stop aplz
}
