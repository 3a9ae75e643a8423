# shellcheck shell=bash
# gpu-provision probe --deep: a real container, a real attach and deadline; libcuda,
# libnvidia-ml, libnvcuvid, libnvidia-encode and libvulkan are the test doubles of
# tests/fakecuda and tests/fakedriver, told by the container's /etc/fake-cuda what to do, so
# every status (ok, absent, unsupported, failed) and every failure class is reached through
# the probe as it runs in containers. Sourced by run.sh.

DEEP_UUID=GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460

# deep_ct NAME [--without LIB]... -- FAKE-LINES...: attached (the h200 fixture), the doubles
# installed, started.
deep_ct() {
	local name=$1 without=()
	shift
	while [ "$1" != -- ]; do
		without+=("$1" "$2")
		shift 2
	done
	shift
	make_root h200-580-open "$WORK/$name.root"
	new_container "$P" "$name"
	gp --root "$WORK/$name.root" attach "$name" --gpus all >/dev/null
	add_fake_deep "$P" "$name" 580.159.04 "${without[@]}"
	set_fake_cuda "$P" "$name" "device 0000:00:06.0 $DEEP_UUID" "$@"
	start "$name"
}

# deep_probe NAME [ARGS...]: probe --deep --json into $WORK/NAME.json; its exit code in $rc.
deep_probe() {
	local name=$1
	shift
	rc=0
	gp --root "$WORK/$name.root" probe "$name" --json "$@" >"$WORK/$name.json" || rc=$?
}

# verdicts NAME: "capability status step name" per line, from $WORK/NAME.json.
verdicts() {
	jq -r '.capabilities[] | "\(.capability) \(.status) \(.step) \(.name)"' "$WORK/$1.json"
}

# ids NAME: the finding ids of $WORK/NAME.json, sorted, on one line.
ids() {
	jq -r '.findings[].id' "$WORK/$1.json" | sort | paste -sd' '
}

test_deep_all_ok() {
	deep_ct dok -- "nvenc open 0"
	touch "$WORK/dok.mark"
	deep_probe dok --deep
	check "exit" 0 "$rc"
	check "status" ok "$(jq -r .status "$WORK/dok.json")"
	check "verdicts" "compute ok kernel-result equal
nvml ok uuid NVML_SUCCESS
nvdec-h264 ok h264 CUDA_SUCCESS
nvdec-hevc ok hevc CUDA_SUCCESS
nvdec-av1 ok av1 CUDA_SUCCESS
nvenc ok codecs NV_ENC_SUCCESS
vulkan ok device VK_SUCCESS" "$(verdicts dok)"
	check "the codecs NVENC listed" "h264,hevc,av1" \
		"$(jq -r '.capabilities[] | select(.capability == "nvenc") | .detail' "$WORK/dok.json")"
	check "every verdict on the one GPU" "$DEEP_UUID" "$(jq -r '[.capabilities[].gpu] | unique | join(" ")' "$WORK/dok.json")"
	check "findings" fixture-host "$(ids dok)"
	# Nothing was written into the container: the probe came in as a sealed memfd.
	check "new programs in the rootfs" "" "$(find "$P/dok/rootfs" -newer "$WORK/dok.mark" -type f -perm -u+x)"
	check "compute's steps" "device context current alloc htod dtoh compare module function launch sync kernel-dtoh kernel-result" \
		"$(jq -r '.capabilities[] | select(.capability == "compute") | [.steps[].step] | join(" ")' "$WORK/dok.json")"
	out=$(gp --root "$WORK/dok.root" probe dok --deep)
	grep -qE '^    compute +ok +[0-9.]+ ms' <<<"$out"
	grep -qE '^      steps: device [0-9.]+, context [0-9.]+, .*, kernel-result [0-9.]+ ms$' <<<"$out"
	grep -q "^  GPU 0 (0000:00:06.0 $DEEP_UUID):" <<<"$out"
	grep -qE '^dok .* ok, 0 min ago; deep: all ok$' <<<"$(gp --root "$WORK/dok.root" list)"
	# A plain probe after it asks nothing of the libraries and says no deep verdict.
	deep_probe dok
	check "plain: no capabilities" null "$(jq -c .capabilities "$WORK/dok.json")"
	grep -qE '^dok .* ok, 0 min ago$' <<<"$(gp --root "$WORK/dok.root" list)"
	stop dok
}

# Libraries the container lacks are absent, an engine the GPU lacks unsupported: neither
# fails the probe; the first is said with its fix, the second said as not a fault.
test_deep_absent_and_unsupported() {
	deep_ct dab --without libnvcuvid --without libvulkan -- "nvenc open 2"
	deep_probe dab --deep
	check "exit" 0 "$rc"
	check "verdicts" "compute ok kernel-result equal
nvml ok uuid NVML_SUCCESS
nvdec-h264 absent library -
nvdec-hevc absent library -
nvdec-av1 absent library -
nvenc unsupported open NV_ENC_ERR_UNSUPPORTED_DEVICE
vulkan absent library -" "$(verdicts dab)"
	check "findings" "fixture-host nvdec-missing video-engine-absent" "$(ids dab)"
	check "nvdec-missing: information, the container does not inject video" info \
		"$(jq -r '.findings[] | select(.id == "nvdec-missing") | .severity' "$WORK/dab.json")"
	grep -q 'libnvcuvid.so.1' <<<"$(jq -r '.findings[] | select(.id == "nvdec-missing") | .summary + .evidence + .fix' "$WORK/dab.json")"
	check "nothing injected" false "$(jq '[.capabilities[].injected] | any' "$WORK/dab.json")"
	# A library it was never given is no failing capability: no gauge, no alert.
	out=$(gp --root "$WORK/dab.root" check dab --deep --format prometheus) || true
	check "gauges: compute and NVML" "compute 1
nvml 1" "$(sed -n 's/^gpu_provision_capability{.*capability="\([a-z0-9-]*\)"} \([01]\)$/\1 \2/p' <<<"$out")"
	# NVML and NVENC missing too: each said, neither an error.
	stop dab
	add_fake_deep "$P" dab 580.159.04 --without libnvcuvid --without libvulkan \
		--without libnvidia-ml --without libnvidia-encode
	start dab
	deep_probe dab --deep
	check "exit (nothing missing was given)" 0 "$rc"
	check "absent" "nvml nvdec-h264 nvdec-hevc nvdec-av1 nvenc vulkan" \
		"$(jq -r '[.capabilities[] | select(.status == "absent") | .capability] | join(" ")' "$WORK/dab.json")"
	check "findings (all missing)" "fixture-host nvdec-missing nvenc-missing nvml-missing" "$(ids dab)"
	check "severities" "info info info" \
		"$(jq -r '[.findings[] | select(.id | endswith("-missing")) | .severity] | join(" ")' "$WORK/dab.json")"
	# An AV1 decoder the GPU lacks, alone.
	stop dab
	set_fake_cuda "$P" dab "device 0000:00:06.0 $DEEP_UUID" "nvdec av1 0 0"
	add_fake_deep "$P" dab 580.159.04 --without libvulkan
	start dab
	deep_probe dab --deep
	check "av1 not on this GPU" "nvdec-av1 unsupported av1 CUDA_SUCCESS" "$(verdicts dab | grep ^nvdec-av1)"
	check "findings (av1)" "fixture-host video-engine-absent" "$(ids dab)"
	stop dab
}

# cuInit fails: no device to prove, no capability reported; list shows the failed probe.
test_deep_cuinit_failed() {
	deep_ct dcf -- "result 999"
	deep_probe dcf --deep
	check "exit" 1 "$rc"
	check "capabilities" 0 "$(jq '.capabilities | length' "$WORK/dcf.json")"
	grep -qE '^dcf .*failed, 0 min ago$' <<<"$(gp --root "$WORK/dcf.root" list)"
	stop dcf
}

# A container whose libcuda names one UUID for two devices: the report is refused, and
# check's metrics hold no capability twice.
test_deep_one_uuid_twice() {
	deep_ct dtw -- "device 0000:00:07.0 $DEEP_UUID"
	deep_probe dtw --deep
	check "exit" 1 "$rc"
	check "findings" "fixture-host gpu-extra probe-output" "$(ids dtw)"
	out=$(gp --root "$WORK/dtw.root" check dtw --deep --format prometheus) || true
	check "repeated series" "" "$(grep '^gpu_provision_capability{' <<<"$out" | sed 's/ [01]$//' | sort | uniq -d)"
	stop dtw
}

# A failure in each library at once: each is its own finding, and the probe fails. The
# Vulkan loader says on stderr which ICD it could not load, as the real one does: the
# report stays whole.
test_deep_failures() {
	deep_ct dfl -- "fail module 218" "nvml init 18" "nvdec hevc 100 0" "nvenc open 15" \
		"vulkan instance -9" "vulkan loader-message"
	deep_probe dfl --deep
	check "exit" 1 "$rc"
	check "status" failed "$(jq -r .status "$WORK/dfl.json")"
	check "verdicts" "compute failed module CUDA_ERROR_INVALID_PTX
nvml failed init NVML_ERROR_LIB_RM_VERSION_MISMATCH
nvdec-h264 ok h264 CUDA_SUCCESS
nvdec-hevc failed hevc CUDA_ERROR_NO_DEVICE
nvdec-av1 ok av1 CUDA_SUCCESS
nvenc failed open NV_ENC_ERR_INVALID_VERSION
vulkan failed instance VK_ERROR_INCOMPATIBLE_DRIVER" "$(verdicts dfl)"
	check "findings" "fixture-host nvdec-failed nvenc-failed nvml-failed ptx-jit-failed vulkan-failed" \
		"$(ids dfl)"
	grep -q 'libnvidia-ptxjitcompiler' <<<"$(jq -r '.findings[] | select(.id == "ptx-jit-failed") | .summary + .evidence + .fix' "$WORK/dfl.json")"
	stop dfl
}

# Memory that does not hold what was written, a kernel that did nothing, a GPU NVML and
# Vulkan do not list: wrong answers, not error codes, and each is caught.
test_deep_wrong_results() {
	deep_ct dwr -- corrupt
	deep_probe dwr --deep
	check "exit (corrupt)" 1 "$rc"
	check "compare" "compute failed compare mismatch" "$(verdicts dwr | grep ^compute)"
	check "findings (corrupt)" "compute-wrong-result fixture-host" "$(ids dwr)"
	stop dwr
	set_fake_cuda "$P" dwr "device 0000:00:06.0 $DEEP_UUID" idle-kernel "nvml other-uuids" \
		"vulkan other-uuids" "fail alloc 2"
	start dwr
	deep_probe dwr --deep
	check "verdicts (alloc)" "compute failed alloc CUDA_ERROR_OUT_OF_MEMORY" "$(verdicts dwr | grep ^compute)"
	check "NVML lists other GPUs" "nvml failed uuid -" "$(verdicts dwr | grep ^nvml)"
	check "findings (alloc)" "compute-failed fixture-host nvml-gpu-not-listed vulkan-failed" "$(ids dwr)"
	stop dwr
	set_fake_cuda "$P" dwr "device 0000:00:06.0 $DEEP_UUID" idle-kernel
	start dwr
	deep_probe dwr --deep
	check "kernel-result" "compute failed kernel-result mismatch" "$(verdicts dwr | grep ^compute)"
	check "findings (idle kernel)" "compute-wrong-result fixture-host" "$(ids dwr)"
	stop dwr
}

# A launch that never returns: the deadline holds, the report names the part that hung and
# what it never reached.
test_deep_hang() {
	local t0 ms
	deep_ct dhg -- "hang-in launch"
	t0=$(date +%s%N)
	deep_probe dhg --deep --timeout 2
	ms=$((($(date +%s%N) - t0) / 1000000))
	check "exit" 1 "$rc"
	check "status" timeout "$(jq -r .status "$WORK/dhg.json")"
	[ "$ms" -lt 4000 ] || { echo "    probe --deep took $ms ms past a 2 s deadline"; return 1; }
	check "compute hung" "compute failed hung" "$(verdicts dhg | grep ^compute | cut -d' ' -f1,2,4)"
	check "the rest not reached" "not-reached not-reached not-reached not-reached not-reached not-reached" \
		"$(verdicts dhg | grep -v ^compute | cut -d' ' -f4 | paste -sd' ')"
	grep -q "in --deep's compute on device 0" <<<"$(jq -r '.findings[] | select(.id == "probe-timeout") | .evidence' "$WORK/dhg.json")"
	stop dhg
}

# [probe] deep = yes: a plain probe and check are deep; check's Prometheus report has each
# capability, 1 or 0, and leaves out an engine the GPU lacks.
test_deep_ini_and_prometheus() {
	deep_ct dini --without libvulkan -- "nvenc open 2" "nvdec hevc 100 0"
	printf '[gpu]\ndevices = all\n[probe]\ndeep = yes\n' >"$CONF/dini.ini"
	deep_probe dini
	check "deep from the ini" 7 "$(jq '.capabilities | length' "$WORK/dini.json")"
	out=$(gp --root "$WORK/dini.root" check dini --format prometheus) || true
	check "capability gauges" "gpu_provision_capability{container=\"dini\",gpu=\"$DEEP_UUID\",capability=\"compute\"} 1
gpu_provision_capability{container=\"dini\",gpu=\"$DEEP_UUID\",capability=\"nvml\"} 1
gpu_provision_capability{container=\"dini\",gpu=\"$DEEP_UUID\",capability=\"nvdec-h264\"} 1
gpu_provision_capability{container=\"dini\",gpu=\"$DEEP_UUID\",capability=\"nvdec-hevc\"} 0
gpu_provision_capability{container=\"dini\",gpu=\"$DEEP_UUID\",capability=\"nvdec-av1\"} 1" \
		"$(grep '^gpu_provision_capability{' <<<"$out")"
	grep -qE '^dini .*failed, 0 min ago; deep: nvdec-hevc failed, nvenc unsupported, vulkan absent$' \
		<<<"$(gp --root "$WORK/dini.root" list)"
	# Proxmox's hookscript probes as the ini says: deep, so the failed decoder fails it.
	make -s -C "$GP_TOP" install DESTDIR="$WORK/dinst" PREFIX=/usr >/dev/null
	sed -e "s|\"/usr/sbin/gpu-provision\"|\"$GP\" --root $WORK/dini.root|" \
		-e "s|/etc/gpu-provision|$CONF|g" "$WORK/dinst/usr/share/gpu-provision/pve-hookscript.sh" \
		>"$WORK/dini-hookscript.sh"
	out=$(GP_LXCPATH=$P sh "$WORK/dini-hookscript.sh" dini post-start)
	check "hookscript verdict" "probe dini: failed" "${out% in *}"
	stop dini
}
