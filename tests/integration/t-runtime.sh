# shellcheck shell=bash
# The runtime gpu-provision writes for and judges by: LXC's version from liblxc, the cgroup
# layout (a capture's own under --root), LXC 7's cgroup v2 only. Sourced by run.sh.

# This view's layout as host says it: hybrid where a v1 hierarchy carries devices.
layout_words() {
	if grep -q ' - cgroup [^ ]* [^ ]*devices' /proc/self/mountinfo; then
		echo "hybrid (devices controller on cgroup v1)"
	else
		echo "cgroup v2"
	fi
}

lxc_major() { lxc-start --version | cut -d. -f1; }

test_runtime_host_says_lxc_and_layout() {
	check "text" "runtime:    LXC $(lxc-start --version), $(layout_words), read from /proc/self/mountinfo" \
		"$(gp host | grep '^runtime:')"
	gp host --json >"$WORK/rt.json" || true
	check "json lxc" "$(lxc-start --version)" "$(jq -r .runtime.lxc "$WORK/rt.json")"
	check "json from" host "$(jq -r .runtime.cgroup_from "$WORK/rt.json")"
}

# A Proxmox VE host's capture, pure cgroup v2, checked on whatever this machine boots: its
# lxc.cgroup2 rules are the ones that count, its v1 rules open nothing.
test_runtime_check_by_the_captures_layout() {
	local r=$WORK/rtcap
	make_root h200-580-open "$r"
	cp "$GP_FIXTURES/h200-580-open/proc/self/mountinfo" "$r/proc/self/mountinfo"
	mkdir -p "$r/etc/pve/lxc" "$r/etc/pve/nodes/pve1/lxc" "$r/lib/firmware/nvidia/580.159.04"
	: >"$r/lib/firmware/nvidia/580.159.04/gsp_ga10x.bin"
	printf 'arch: amd64\nlxc.cgroup2.devices.allow: c 195:* rwm\nlxc.cgroup2.devices.allow: c 238:* rwm\n' \
		>"$r/etc/pve/lxc/101.conf"
	printf 'arch: amd64\nlxc.cgroup.devices.allow: c 195:* rwm\nlxc.cgroup.devices.allow: c 238:* rwm\n' \
		>"$r/etc/pve/lxc/102.conf"
	gp --root "$r" host | grep -q '^runtime:    LXC .*, cgroup v2, read from the capture'"'"'s proc/self/mountinfo$'
	gp --root "$r" --pve check --all --json >"$WORK/rtcap.json" || true
	check "101: cgroup2 rules counted" "" \
		"$(jq -r '.containers[] | select(.name == "101") | .findings[] | select(.id | test("cgroup|rule-missing")) | .id' "$WORK/rtcap.json")"
	local v1=cgroup-v1-keys
	[ "$(lxc_major)" -lt 7 ] || v1=cgroup-v1-lxc7 # LXC 7 refuses the key itself
	check "102: v1 rules, not enforced there" "$v1" \
		"$(jq -r '.containers[] | select(.name == "102") | .findings[] | select(.id | test("cgroup")) | .id' "$WORK/rtcap.json")"
	check "no layout assumed" 0 "$(count_matching cgroup-layout-assumed "$WORK/rtcap.json")"
	rm "$r/proc/self/mountinfo"
	gp --root "$r" --pve check --all --json >"$WORK/rtcap.json" || true
	check "said when assumed" 1 "$(count_matching '"id":"cgroup-layout-assumed"' "$WORK/rtcap.json")"
}

# LXC 7 knows no lxc.cgroup.* key: attach writes cgroup2 rules whatever the layout, and where
# the layout is hybrid (a capture of such a host here), attach and create refuse, leaving
# the config as it was.
test_runtime_lxc7_cgroup2_only() {
	local r=$WORK/rt7 before rc=0
	[ "$(lxc_major)" -ge 7 ] || { echo "needs LXC 7 (this is $(lxc-start --version): tools/platform.sh sid v2)"; return 77; }
	make_root h200-580-open "$r"
	new_container "$P" rt7
	gp --root "$r" attach rt7 --gpus all >/dev/null
	check "no v1 key" 0 "$(count_matching '^lxc\.cgroup\.' "$P/rt7/config")"
	check "cgroup2 rules" 1 "$(count_matching '^lxc\.cgroup2\.devices\.allow = c 195:0 rwm$' "$P/rt7/config")"
	gp --root "$r" detach rt7 >/dev/null
	before=$(cat "$P/rt7/config")
	cp "$GP_FIXTURES/quad-550-proprietary/proc/self/mountinfo" "$r/proc/self/mountinfo"
	gp --root "$r" attach rt7 --gpus all 2>"$WORK/rt7.err" || rc=$?
	check "exit" 2 "$rc"
	grep -q "LXC $(lxc-start --version) starts no container here: the cgroup layout is hybrid" "$WORK/rt7.err"
	check "config kept" "$before" "$(cat "$P/rt7/config")"
	rc=0
	gp --root "$r" create rt7b --template busybox --gpus all 2>"$WORK/rt7.err" || rc=$?
	check "create exit" 2 "$rc"
	check "no container made" "" "$(lxc-ls -P "$P" | tr ' ' '\n' | grep -x rt7b || true)"
}

# Before LXC 7 a hybrid host's rules are lxc.cgroup's, which it enforces there.
test_runtime_v1_rules_for_a_hybrid_layout() {
	local r=$WORK/rt6
	[ "$(lxc_major)" -lt 7 ] || { echo "LXC $(lxc-start --version) writes no v1 rule (test_runtime_lxc7_cgroup2_only)"; return 77; }
	make_root h200-580-open "$r"
	cp "$GP_FIXTURES/quad-550-proprietary/proc/self/mountinfo" "$r/proc/self/mountinfo"
	new_container "$P" rt6
	gp --root "$r" attach rt6 --gpus 0 >/dev/null
	check "v1 rules" 1 "$(count_matching '^lxc\.cgroup\.devices\.allow = c 195:0 rwm$' "$P/rt6/config")"
	check "no cgroup2 rule of ours" 0 "$(count_matching '^lxc\.cgroup2\.devices\.allow = c 195:' "$P/rt6/config")"
}

# The probe's build check refuses a program that asks for a symbol newer than glibc 2.28
# (here __libc_start_main@GLIBC_2.34, which ordinary start files ask for since 2.34), and
# passes the probe as built.
test_runtime_probe_build_refuses_newer_glibc() {
	local rc=0
	printf 'int main(void) { return 0; }\n' >"$WORK/newer.c"
	cc -o "$WORK/newer" "$WORK/newer.c"
	"$GP_TOP/tools/check-probe-glibc.sh" "$WORK/newer" 2>"$WORK/newer.err" || rc=$?
	check "exit" 1 "$rc"
	grep -q '__libc_start_main needs GLIBC_2.34, newer than 2.28' "$WORK/newer.err"
	"$GP_TOP/tools/check-probe-glibc.sh" "${GP_BUILD:-$GP_TOP/build}/gpu-probe"
}
