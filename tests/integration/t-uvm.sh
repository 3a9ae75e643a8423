# shellcheck shell=bash
# The [uvm] policy at container start, and gpu-provision prepare. Sourced by run.sh.

# HMM on (open module, uvm_disable_hmm=N, CONFIG_DEVICE_PRIVATE=y, the 8 x B200 case):
# the policy wants nvidia_uvm reloaded; under --root that is printed, not done, so the
# start is refused, and nothing is left. With disable_hmm = no the same start succeeds.
test_hmm_policy_at_start() {
	make_root b200x8-590-open-hmm "$WORK/hmm"
	new_container "$P" hmm
	gp --root "$WORK/hmm" attach hmm --gpus 2,5
	if start hmm; then echo "    started with HMM on"; return 1; fi
	grep -q "the \[uvm\] policy needs: modprobe -r nvidia_uvm" "$P/hmm.log"
	grep -q "would run: modprobe nvidia_uvm uvm_disable_hmm=1" "$P/hmm.log"
	assert_refused_clean hmm "$WORK/hmm" "nvidia_uvm is still not as the \[uvm\] policy wants"
	printf '[gpu]\ndevices = 2,5\n[uvm]\ndisable_hmm = no\n' >"$CONF/hmm.ini"
	start hmm
	check "nvidia2" "195:2" "$(node_of hmm /dev/nvidia2)"
	check "nvidia5" "195:5" "$(node_of hmm /dev/nvidia5)"
	check "nvidia0 absent" absent "$(node_of hmm /dev/nvidia0)"
	stop hmm
}

# nvidia_uvm in use with HMM on: refused naming what holds it; the host-wide
# on_conflict = warn lets the start go on with a warning.
test_hmm_conflict_in_use() {
	make_root b200x8-590-open-hmm "$WORK/busy"
	sed -i 's/^nvidia_uvm 1830912 0 - /nvidia_uvm 1830912 3 nvidia_peermem, /' "$WORK/busy/proc/modules"
	new_container "$P" busy
	gp --root "$WORK/busy" attach busy --gpus 0
	if start busy; then echo "    started with HMM on and uvm busy"; return 1; fi
	assert_refused_clean busy "$WORK/busy" "use count 3, held by nvidia_peermem"
	grep -q "prepare --persist and reboot" "$P/busy.log"
	printf '[uvm]\non_conflict = warn\n%s\n' "$HOST_DEFAULTS" >"$CONF/gpu-provision.conf"
	start busy
	grep -q "going on as \[uvm\] on_conflict = warn says" "$P/busy.log"
	check "nvidia0" "195:0" "$(node_of busy /dev/nvidia0)"
	stop busy
	echo "$HOST_DEFAULTS" >"$CONF/gpu-provision.conf"
}

# prepare: under --root module actions are printed; --persist writes the option once.
test_prepare_persist() {
	make_root b200x8-590-open-hmm "$WORK/prep"
	rm "$WORK/prep/dev/nvidia-uvm"
	gp --root "$WORK/prep" prepare --persist >"$WORK/prep.out"
	grep -q "would run: modprobe -r nvidia_uvm" "$WORK/prep.out"
	grep -q "persist: /etc/modprobe.d/gpu-provision.conf written" "$WORK/prep.out"
	grep -qx "options nvidia_uvm uvm_disable_hmm=1" "$WORK/prep/etc/modprobe.d/gpu-provision.conf"
	check "node made by prepare" "1ff:0" "$(stat -c '%t:%T' "$WORK/prep/dev/nvidia-uvm")"
	gp --root "$WORK/prep" prepare --persist >"$WORK/prep.out"
	grep -q "already says so" "$WORK/prep.out"
	make_root h200-580-open "$WORK/prep2"
	gp --root "$WORK/prep2" prepare --persist >"$WORK/prep2.out"
	grep -q "HMM needs no disabling" "$WORK/prep2.out"
	check "nothing planned for uvm" 0 "$(grep -c 'run: modprobe' "$WORK/prep2.out")"
	check "no modprobe.d file" absent "$([ -e "$WORK/prep2/etc/modprobe.d/gpu-provision.conf" ] && echo present || echo absent)"
}
