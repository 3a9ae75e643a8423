# shellcheck shell=bash
# gpu-provision host: text and --json against the known values of the fixtures
# (tests/fixtures/README.md). Sourced by run.sh.

# host_json FIXTURE: host --json of a fixture (no scratch copy: host only reads) in
# $WORK/host.json, its exit code in hrc.
host_json() {
	hrc=0
	gp --root "$GP_FIXTURES/$1" host --json >"$WORK/host.json" || hrc=$?
}

# jqv FILTER: one value of $WORK/host.json, compact.
jqv() { jq -c "$1" "$WORK/host.json"; }

# The H200 capture: driver, flavor, its one GPU, the majors, nvidia_uvm and HMM.
test_host_json_h200() {
	host_json h200-580-open
	check "exit" 0 "$hrc"
	check "driver.version" '"580.159.04"' "$(jqv .driver.version)"
	check "driver.flavor" '"open"' "$(jqv .driver.flavor)"
	check "gpus" '[{"index":0,"minor":0,"pci":"0000:00:06.0","uuid":"GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460","model":"NVIDIA H200"}]' \
		"$(jqv '[.gpus[] | {index, minor, pci, uuid, model}]')"
	check "majors" '{"nvidia":195,"nvidia-uvm":238,"nvidia-caps":241}' \
		"$(jqv '.majors | {nvidia, "nvidia-uvm", "nvidia-caps"}')"
	check "uvm" '{"loaded":true,"disable_hmm":false,"hmm_active":false}' \
		"$(jqv '.uvm | {loaded, disable_hmm, hmm_active}')"
}

# Four GPUs whose nvidia-smi index (PCI order) is not their device minor; dynamic majors.
test_host_json_quad() {
	host_json quad-550-proprietary
	check "exit" 0 "$hrc"
	check "driver" '["550.54.14","proprietary"]' "$(jqv '[.driver.version, .driver.flavor]')"
	check "index:minor:pci" '["0:3:0000:01:00.0","1:2:0000:41:00.0","2:0:0000:81:00.0","3:1:0000:c1:00.0"]' \
		"$(jqv '[.gpus[] | "\(.index):\(.minor):\(.pci)"]')"
	check "uuid of index 2" '"GPU-1a2b3c4d-0000-4000-8000-000000000081"' "$(jqv '.gpus[2].uuid')"
	check "majors" '{"nvidia":195,"nvidia-uvm":509,"nvidia-caps":510}' \
		"$(jqv '.majors | {nvidia, "nvidia-uvm", "nvidia-caps"}')"
}

# HMM on (the B200 case) and nvidia_uvm not loaded: the verdicts true, and null majors.
test_host_json_hmm_and_unloaded() {
	host_json b200x8-590-open-hmm
	check "b200 gpus" 8 "$(jqv '.gpus | length')"
	check "b200 uvm" '{"loaded":true,"disable_hmm":false,"hmm_active":true}' \
		"$(jqv '.uvm | {loaded, disable_hmm, hmm_active}')"
	check "b200 flavor" '"open"' "$(jqv .driver.flavor)"
	host_json uvm-unloaded-580-open
	check "unloaded uvm.loaded" false "$(jqv .uvm.loaded)"
	check "unloaded nvidia-uvm major" null "$(jqv '.majors."nvidia-uvm"')"
	check "unloaded nvidia major" 195 "$(jqv .majors.nvidia)"
}

# The text form says the same things, each on its line.
test_host_text_h200() {
	local out=$WORK/host.txt
	gp --root "$GP_FIXTURES/h200-580-open" host >"$out"
	grep -qx 'driver:     580.159.04 (open kernel module)' "$out"
	grep -qx 'majors:     nvidia 195, nvidia-uvm 238, nvidia-caps 241' "$out"
	grep -q '^HMM:        active no ' "$out"
	grep -qx 'GPUs:       1' "$out"
	check "GPU row" "0 0 0000:00:06.0 GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460 580.159.04 NVIDIA H200" \
		"$(awk '/^  index minor/ {getline; $1=$1; print}' "$out")"
	gp --root "$GP_FIXTURES/b200x8-590-open-hmm" host >"$out"
	grep -q '^HMM:        active yes' "$out"
}

# The driver's user space from the root's loader cache (written by the real ldconfig -r
# over a test double of libcuda.so, under the module's version, then another's).
test_host_userspace() {
	local r=$WORK/us lib
	make_root h200-580-open "$r"
	host_json_of() { gp --root "$r" host --json >"$WORK/host.json"; }
	host_json_of
	check "no cache" '{"cache":false,"libraries":[],"files":[],"persistenced_socket":null}' "$(jqv .userspace)"
	mkdir -p "$r/etc" "$r/usr/lib/x86_64-linux-gnu"
	echo /usr/lib/x86_64-linux-gnu >"$r/etc/ld.so.conf"
	lib=${GP_BUILD:-$GP_TOP/build}/tests/fakecuda/libcuda.so
	cp "$lib" "$r/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"
	ldconfig -r "$r"
	host_json_of
	check "libcuda at the module's version" \
		'[{"capability":"compute","soname":"libcuda.so.1","file":"libcuda.so.580.159.04","version":"580.159.04","matches_module":true,"injected":true}]' \
		"$(jqv '[.userspace.libraries[] | {capability, soname, file, version, matches_module, injected}]')"
	check "text: what a start injects" "  compute   libcuda.so.1 580.159.04" "$(gp --root "$r" host | grep '^  compute ')"
	rm "$r"/usr/lib/x86_64-linux-gnu/libcuda.so*
	cp "$lib" "$r/usr/lib/x86_64-linux-gnu/libcuda.so.575.51.02"
	ldconfig -r "$r"
	host_json_of
	check "another version, said" '["575.51.02",false,false]' "$(jqv '[.userspace.libraries[0] | .version, .matches_module, .injected]')"
	check "text says it" "  compute   none
  not injected: libcuda.so.1 575.51.02 (/usr/lib/x86_64-linux-gnu/libcuda.so.1, not the module's 580.159.04)" \
		"$(gp --root "$r" host | grep -E '^  (compute|not injected)')"
	# nvidia-persistenced's socket, where the daemon listens: found, and not given.
	mkdir -p "$r/run/nvidia-persistenced"
	"${GP_BUILD:-$GP_TOP/build}/tests/helpers/bind-socket" "$r/run/nvidia-persistenced/socket"
	host_json_of
	check "persistenced" '"/run/nvidia-persistenced/socket"' "$(jqv .userspace.persistenced_socket)"
	gp --root "$r" host | grep -qxF "  not injected: /run/nvidia-persistenced/socket (a container's /run is its own tmpfs once it boots)"
}
