# shellcheck shell=bash
# gpu-provision probe: a real container, a real attach, a real deadline; libcuda is the
# test double of tests/fakecuda, whose behaviour each test sets. Sourced by run.sh.

# Every probe here runs with --root over a fixture, so each expected set holds
# fixture-host (info); the rest is what the case itself should raise.

H200_UUID=GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460

# probe_ct NAME FIXTURE GPUS LIBVERSION FAKE-LINES...: attached, double installed, started.
probe_ct() {
	local name=$1 fixture=$2 gpus=$3 version=$4
	shift 4
	make_root "$fixture" "$WORK/$name.root"
	new_container "$P" "$name"
	gp --root "$WORK/$name.root" attach "$name" --gpus "$gpus" >/dev/null
	[ "$version" = none ] || add_fake_cuda "$P" "$name" "$version"
	set_fake_cuda "$P" "$name" "$@"
	start "$name"
}

# probe_expect NAME STATUS [FINDING-ID...]: probe --json says STATUS and raises exactly
# these IDs, no other (compared as sorted sets; an ID raised twice is listed twice); the
# exit code is 0 for ok, 1 otherwise.
probe_expect() {
	local name=$1 status=$2 rc=0 want got
	shift 2
	gp --root "$WORK/$name.root" probe "$name" --json --timeout "${PROBE_TIMEOUT:-10}" \
		>"$WORK/$name.json" || rc=$?
	jq -e '.findings | type == "array"' "$WORK/$name.json" >/dev/null ||
		{ echo "    no findings list in:"; cat "$WORK/$name.json"; return 1; }
	check "status" "$status" "$(jq -r .status "$WORK/$name.json")"
	check "exit code" "$([ "$status" = ok ] && echo 0 || echo 1)" "$rc"
	want=$(printf '%s\n' "$@" | sed '/^$/d' | sort | paste -sd' ')
	got=$(jq -r '.findings[].id' "$WORK/$name.json" | sort | paste -sd' ')
	check "finding ids" "$want" "$got" || { cat "$WORK/$name.json"; return 1; }
}

test_probe_ok() {
	probe_ct pok h200-580-open all 580.159.04 "device 0000:00:06.0 $H200_UUID"
	touch "$WORK/pok.mark"
	probe_expect pok ok fixture-host
	grep -q "\"uuid\":\"$H200_UUID\"" "$WORK/pok.json"
	grep -q '"rdev":"238:0"' "$WORK/pok.json"
	grep -q '"libcuda_version":"580.159.04"' "$WORK/pok.json"
	# The probe came in as a sealed memfd: no executable was written into the rootfs.
	check "new executables in the rootfs" "" \
		"$(find "$P/pok/rootfs" -newer "$WORK/pok.mark" -type f -perm -u+x)"
	out=$(gp --root "$WORK/pok.root" probe pok)
	grep -q "^probe pok: ok in" <<<"$out"
	stop pok
}

# An unprivileged container: the attach crosses into its user namespace (the runner's
# child is not dumpable until the probe is executed) and the probe still reports.
test_probe_unprivileged() {
	make_root h200-580-open "$WORK/pun.root"
	new_container "$P" pun unprivileged
	gp --root "$WORK/pun.root" attach pun --gpus all >/dev/null
	add_fake_cuda "$P" pun 580.159.04
	set_fake_cuda "$P" pun "device 0000:00:06.0 $H200_UUID"
	start pun
	probe_expect pun ok fixture-host
	grep -q "\"uuid\":\"$H200_UUID\"" "$WORK/pun.json"
	check "uid map" "0 100000 65536" "$(in_ct "$P" pun "cat /proc/self/uid_map" | awk '{print $1,$2,$3}')"
	stop pun
}

# cuInit 3 with HMM on (the B200 case; the start is let through with disable_hmm = no).
test_probe_cuinit_3_hmm() {
	make_root b200x8-590-open-hmm "$WORK/phmm.root"
	new_container "$P" phmm
	gp --root "$WORK/phmm.root" attach phmm --gpus 0 >/dev/null
	printf '[gpu]\ndevices = 0\n[uvm]\ndisable_hmm = no\n' >"$CONF/phmm.ini"
	add_fake_cuda "$P" phmm 590.48.01
	set_fake_cuda "$P" phmm "result 3"
	start phmm
	probe_expect phmm failed fixture-host cuinit-hmm
	grep -q 'uvm_disable_hmm=1' "$WORK/phmm.json"
	grep -q 'open-gpu-kernel-modules/issues/797' "$WORK/phmm.json"
	grep -q 'CONFIG_DEVICE_PRIVATE=y' "$WORK/phmm.json"
	stop phmm
}

test_probe_cuinit_3_without_hmm() {
	probe_ct p3 h200-580-open all 580.159.04 "result 3"
	probe_expect p3 failed fixture-host cuinit-not-initialized
	stop p3
}

# cuInit that never returns: the deadline ends it (the finding names the 2 s given and the
# state the process was in) and the parent names the hang; nothing of the probe is left.
test_probe_hang() {
	local ps
	probe_ct phang h200-580-open all 580.159.04 hang
	PROBE_TIMEOUT=2 probe_expect phang timeout fixture-host cuinit-hang
	grep -q '^no answer within 2 s; the process was in state S' \
		<<<"$(jq -r '.findings[] | select(.id == "cuinit-hang") | .evidence' "$WORK/phang.json")"
	grep -q 'nokaslr' "$WORK/phang.json"
	ps=$(in_ct "$P" phang 'ps')
	check "no probe left running" 0 "$(count_matching '[g]pu-probe' <<<"$ps")"
	stop phang
}

# uvm refused by the device cgroup at run time: 999 and EPERM, with the attach fix.
test_probe_uvm_blocked() {
	probe_ct puvm h200-580-open all 580.159.04 "result 999"
	lxc-cgroup -P "$P" -n puvm devices.deny "c 238:0 rwm"
	probe_expect puvm failed fixture-host uvm-blocked node-cgroup
	grep -q 'open = EPERM (device cgroup)' "$WORK/puvm.json"
	grep -q 'gpu-provision attach puvm' "$WORK/puvm.json"
	stop puvm
}

test_probe_error_codes() {
	local code id
	probe_ct pcode h200-580-open all 580.159.04 "result 0"
	for code in 100:no-device 802:fabric-manager 803:driver-mismatch 804:forward-compat 46:cuinit-failed; do
		id=${code#*:}
		set_fake_cuda "$P" pcode "result ${code%%:*}"
		probe_expect pcode failed fixture-host "$id"
	done
	stop pcode
}

# libcuda.so.550.54.14 against a 580.159.04 kernel module.
test_probe_version_mismatch() {
	probe_ct pver h200-580-open all 550.54.14 "device 0000:00:06.0 $H200_UUID"
	probe_expect pver failed fixture-host driver-mismatch
	grep -q 'libcuda 550.54.14 in pver, kernel module 580.159.04 on the host' "$WORK/pver.json"
	stop pver
}

test_probe_no_libcuda() {
	probe_ct pnolib h200-580-open all none
	probe_expect pnolib failed fixture-host libcuda-missing
	grep -q 'NVIDIA-Linux-x86_64-580.159.04.run --no-kernel-module' "$WORK/pnolib.json"
	stop pnolib
}

test_probe_crash() {
	probe_ct pcrash h200-580-open all 580.159.04 crash
	probe_expect pcrash failed fixture-host probe-crashed
	grep -q 'signal 11' "$WORK/pcrash.json"
	stop pcrash
}

# The CUDA toolkit's own stub libcuda answers 34 to everything.
test_probe_toolkit_stub() {
	local stub=/usr/local/cuda/lib64/stubs/libcuda.so
	[ -e "$stub" ] || stub=$(ls /usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so 2>/dev/null || true)
	[ -e "$stub" ] || { echo "no CUDA toolkit stub under /usr/local/cuda"; return 77; }
	probe_ct pstub h200-580-open all none
	mkdir -p "$P/pstub/rootfs/opt/fakecuda"
	cp "$stub" "$P/pstub/rootfs/opt/fakecuda/libcuda.so.1"
	echo /opt/fakecuda >"$P/pstub/rootfs/etc/ld.so.conf"
	ldconfig -r "$P/pstub/rootfs"
	probe_expect pstub failed fixture-host stub-libcuda
	stop pstub
}

# Index 1 of the 4-GPU host: visible alone is ok; one more is a leak; none is a loss.
test_probe_gpu_sets() {
	local mine=GPU-1a2b3c4d-0000-4000-8000-000000000041 other=GPU-1a2b3c4d-0000-4000-8000-000000000081
	probe_ct pset quad-550-proprietary 1 550.54.14 "device 0000:41:00.0 $mine"
	probe_expect pset ok fixture-host
	set_fake_cuda "$P" pset "device 0000:41:00.0 $mine" "device 0000:81:00.0 $other"
	probe_expect pset failed fixture-host gpu-extra
	grep -q "pset sees $other" "$WORK/pset.json"
	set_fake_cuda "$P" pset "result 0"
	probe_expect pset failed fixture-host gpu-missing
	stop pset
}

# gpu-probe asks no glibc symbol newer than 2.28 (containers as old as Debian 10, RHEL 8).
test_probe_glibc_symbols() {
	local newest
	newest=$(objdump -T "${GP_BUILD:-$GP_TOP/build}/gpu-probe" | grep -o 'GLIBC_[0-9.]*' |
		sed 's/GLIBC_//' | sort -V | tail -1)
	echo "newest symbol version: GLIBC_$newest"
	check "at most 2.28" "2.28" "$(printf '%s\n2.28\n' "$newest" | sort -V | tail -1)"
	# dlopen lived in libdl.so.2 before glibc 2.34: it must be loaded there too.
	grep -q 'NEEDED.*\[libdl.so.2\]' <<<"$(readelf -d "${GP_BUILD:-$GP_TOP/build}/gpu-probe")"
	# Every driver library (libcuda, NVML, NVDEC, NVENC, Vulkan) is dlopen'ed, none linked.
	check "linked libraries" "libc.so.6 libdl.so.2" "$(readelf -d "${GP_BUILD:-$GP_TOP/build}/gpu-probe" |
		sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | paste -sd' ')"
	check "no __libc_start_main" 0 "$(objdump -T "${GP_BUILD:-$GP_TOP/build}/gpu-probe" | count_matching __libc_start_main)"
}

test_probe_stopped_container() {
	make_root h200-580-open "$WORK/pstop.root"
	new_container "$P" pstop
	gp --root "$WORK/pstop.root" attach pstop --gpus all >/dev/null
	set +e
	gp --root "$WORK/pstop.root" probe pstop 2>"$WORK/pstop.err"
	rc=$?
	set -e
	check "exit" 3 "$rc"
	grep -q 'is not running: start it' "$WORK/pstop.err"
}

# The Proxmox hookscript, installed, run as Proxmox runs it at post-start.
test_probe_pve_hookscript() {
	local d=$WORK/hsinst out
	probe_ct phs h200-580-open all 580.159.04 "device 0000:00:06.0 $H200_UUID"
	make -s -C "$GP_TOP" install DESTDIR="$d" PREFIX=/usr >/dev/null
	# Point the installed copy at this build, this confdir and the fixture root.
	sed -e "s|\"/usr/sbin/gpu-provision\"|\"$GP\" --root $WORK/phs.root|" \
		-e "s|/etc/gpu-provision|$CONF|g" "$d/usr/share/gpu-provision/pve-hookscript.sh" \
		>"$WORK/hookscript.sh"
	sh -n "$WORK/hookscript.sh"
	check "pre-start says nothing" "" "$(GP_LXCPATH=$P sh "$WORK/hookscript.sh" phs pre-start)"
	out=$(GP_LXCPATH=$P sh "$WORK/hookscript.sh" phs post-start)
	check "post-start verdict" "probe phs: ok" "${out% in *}"
	set_fake_cuda "$P" phs "result 999"
	out=$(GP_LXCPATH=$P sh "$WORK/hookscript.sh" phs post-start)
	check "failed verdict, start not failed" "probe phs: failed" "${out% in *}"
	stop phs
}

# A probe whose process ends in the middle without a signal: its report is incomplete.
test_probe_cut_short() {
	probe_ct pcut h200-580-open all 580.159.04 exit
	probe_expect pcut failed fixture-host probe-output
	grep -q 'exit code 3' "$WORK/pcut.json"
	stop pcut
}

# A container nobody attached: probed all the same, and said so.
test_probe_not_attached() {
	probe_ct pna h200-580-open all 580.159.04 "device 0000:00:06.0 $H200_UUID"
	probe_expect pna ok fixture-host
	rm "$CONF/pna.ini"
	probe_expect pna ok fixture-host not-attached
	stop pna
}
