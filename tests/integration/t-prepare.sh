# shellcheck shell=bash
# gpu-provision prepare: --dry-run changes nothing; a run makes every node the driver
# would. Sourced by run.sh.

# prep_root NAME: the 4-GPU fixture with two MIG instances that exist (GI 1 and its CI 0
# on the GPU of minor 1), and no node at all under its dev.
prep_root() {
	local r=$WORK/$1 d
	make_root quad-550-proprietary "$r"
	rm -rf "$r/dev"
	mkdir "$r/dev"
	d=$r/proc/driver/nvidia/capabilities/gpu1/mig/gi1
	mkdir -p "$d/ci0"
	printf 'DeviceFileMinor: 21\nDeviceFileMode: 292\nDeviceFileModify: 1\n' >"$d/access"
	printf 'DeviceFileMinor: 22\nDeviceFileMode: 256\nDeviceFileModify: 1\n' >"$d/ci0/access"
}

# Every node of that host, "PATH TYPE MAJ:MIN MODE UID:GID" sorted: the driver's uid,
# gid 44 and mode 0660 from params for the GPU nodes, each cap's own mode, root's.
PREP_NODES="nvidia-caps/nvidia-cap1 c 510:1 400 0:0
nvidia-caps/nvidia-cap2 c 510:2 444 0:0
nvidia-caps/nvidia-cap21 c 510:21 444 0:0
nvidia-caps/nvidia-cap22 c 510:22 400 0:0
nvidia-uvm c 509:0 660 0:44
nvidia-uvm-tools c 509:1 660 0:44
nvidia0 c 195:0 660 0:44
nvidia1 c 195:1 660 0:44
nvidia2 c 195:2 660 0:44
nvidia3 c 195:3 660 0:44
nvidiactl c 195:255 660 0:44"

# prep_nodes DIR: what is under DIR/dev, in PREP_NODES's form.
prep_nodes() {
	(cd "$1/dev" && find . -mindepth 1 ! -type d -printf '%P\n' | sort | while read -r f; do
		printf '%s %s %d:%d %s %s\n' "$f" "$(stat -c %F "$f" | sed 's/character special file/c/')" \
			"0x$(stat -c %t "$f")" "0x$(stat -c %T "$f")" "$(stat -c %a "$f")" "$(stat -c %u:%g "$f")"
	done)
}

# prepare makes all of them, and a second run finds nothing left to make.
test_prepare_makes_every_node() {
	prep_root prepall
	gp --root "$WORK/prepall" prepare >"$WORK/prepall.out"
	check "nodes" "$PREP_NODES" "$(prep_nodes "$WORK/prepall")"
	gp --root "$WORK/prepall" prepare >"$WORK/prepall.out2"
	check "second run makes nothing" 0 "$(count_matching 'mknod' "$WORK/prepall.out2")"
	check "no module action on a host that needs none" 0 \
		"$(count_matching 'run: modprobe' "$WORK/prepall.out")"
}

# --dry-run prints the mknod lines of exactly those nodes, and changes nothing.
test_prepare_dry_run() {
	local want
	prep_root prepdry
	make_root b200x8-590-open-hmm "$WORK/prepdry-hmm"
	rm "$WORK/prepdry-hmm/dev/nvidia-uvm"
	(cd "$WORK" && find prepdry prepdry-hmm -printf '%p %m %s %T@\n' | sort) >"$WORK/prepdry.before"
	gp --root "$WORK/prepdry" prepare --dry-run >"$WORK/prepdry.out"
	want=$(echo "$PREP_NODES" | awk -v d="$WORK/prepdry/dev/" \
		'{split($3, n, ":"); print "would run: mknod -m 0" $4 " " d $1 " c " n[1] " " n[2] " && chown " $5 " " d $1}' | sort)
	check "mknod lines" "$want" "$(grep mknod "$WORK/prepdry.out" | sort)"
	# HMM on: the module lines are printed too, and the modprobe.d file is not written.
	gp --root "$WORK/prepdry-hmm" prepare --dry-run --persist >"$WORK/prepdry-hmm.out"
	grep -q "would run: modprobe -r nvidia_uvm" "$WORK/prepdry-hmm.out"
	grep -q "would run: modprobe nvidia_uvm uvm_disable_hmm=1" "$WORK/prepdry-hmm.out"
	grep -q "would run: mknod -m 0666 $WORK/prepdry-hmm/dev/nvidia-uvm c " "$WORK/prepdry-hmm.out"
	(cd "$WORK" && find prepdry prepdry-hmm -printf '%p %m %s %T@\n' | sort) >"$WORK/prepdry.after"
	diff "$WORK/prepdry.before" "$WORK/prepdry.after"
}
