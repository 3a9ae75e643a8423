# shellcheck shell=bash
# A Proxmox VE cluster of two nodes on one machine: two --root host trees of different GPUs
# and drivers (A: one H200, 580.159.04; B: eight B200, 590.48.01) that share one /etc/pve
# tree, as pmxcfs shows the same filesystem on every node. Sourced by run.sh.
#
# pmxcfs holds no symlinks of ours, but each node sees its own /etc/pve/local and
# /etc/pve/lxc links (to nodes/<itself>): so each root's etc/pve is a directory of its
# own with those two links, and the shared tree's nodes/ and gpu-provision/ are bound
# into it (mount --bind, undone when the test ends).

UUID_A=GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460

# cluster_node DIR NODE FIXTURE: a host tree that is node NODE of the shared tree $CL.
cluster_node() {
	make_root "$3" "$1"
	mkdir -p "$1/etc/pve/nodes" "$1/etc/pve/gpu-provision" "$1.conf"
	mount --bind "$CL/nodes" "$1/etc/pve/nodes"
	echo "$1/etc/pve/nodes" >>"$CL.mounts"
	mount --bind "$CL/gpu-provision" "$1/etc/pve/gpu-provision"
	echo "$1/etc/pve/gpu-provision" >>"$CL.mounts"
	ln -s "nodes/$2" "$1/etc/pve/local"
	ln -s "nodes/$2/lxc" "$1/etc/pve/lxc"
	# Each node's own confdir: the containers' inis are the cluster's, the defaults a node's.
	echo "$HOST_DEFAULTS" >"$1.conf/gpu-provision.conf"
}

cluster_umount() {
	local m
	[ -e "$CL.mounts" ] || return 0
	while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done <"$CL.mounts"
	rm -f "$CL.mounts"
}

# cluster_file REL TEXT: a file of the shared tree as pmxcfs keeps them: root:www-data 0640.
cluster_file() {
	mkdir -p "$(dirname "$CL/$1")"
	printf '%s\n' "$2" >"$CL/$1"
	chmod 0640 "$CL/$1"
	if getent group www-data >/dev/null; then chgrp www-data "$CL/$1"; fi
}

# ct_on NODE ID INI: a container of NODE with its ini in the cluster filesystem.
ct_on() {
	cluster_file "nodes/$1/lxc/$2.conf" "$(printf 'arch: amd64\nhostname: ct%s\nostype: debian' "$2")"
	cluster_file "gpu-provision/$2.ini" "$3"
}

# The shared tree, nodes A and B (and C, a node with no GPUs that published nothing), and
# the containers: on A 9101 (A's H200 by UUID), 9102 (any:1, inject = yes), 9103 (any:1,
# the nodes' default inject = no); on B 9201 (model:B200:2), 9202 (any:1).
cluster_setup() {
	CL=$WORK/cl.shared
	A=$WORK/cl.A
	B=$WORK/cl.B
	trap cluster_umount EXIT
	rm -rf "$CL" && mkdir -p "$CL/nodes/A/lxc" "$CL/nodes/B/lxc" "$CL/nodes/C/lxc" "$CL/gpu-provision"
	cluster_node "$A" A h200-580-open
	cluster_node "$B" B b200x8-590-open-hmm
	# B as its boot unit left it: nvidia_uvm with uvm_disable_hmm=1 (prepare --persist).
	echo Y >"$B/sys/module/nvidia_uvm/parameters/uvm_disable_hmm"
	ct_on A 9101 "$(printf '[gpu]\ndevices = %s' "$UUID_A")"
	ct_on A 9102 "$(printf '[gpu]\ndevices = any:1\n[driver]\ninject = yes')"
	ct_on A 9103 "$(printf '[gpu]\ndevices = any:1')"
	ct_on B 9201 "$(printf '[gpu]\ndevices = model:B200:2')"
	ct_on B 9202 "$(printf '[gpu]\ndevices = any:1')"
}

gpA() { "$GP" --confdir "$A.conf" --lxcpath "$P" --root "$A" "$@"; }
gpB() { "$GP" --confdir "$B.conf" --lxcpath "$P" --root "$B" "$@"; }

# start_on JSON ID NODE: "yes", "no" or "unknown", then the why, of ID's start on NODE.
start_on() {
	jq -r --arg id "$2" --arg node "$3" \
		'.cluster.containers[] | select(.name == $id) | .starts[] | select(.node == $node) |
		 "\(.start): \(.why)"' "$1"
}

test_cluster_publish_and_check() {
	local out=$WORK/cl.check.json
	cluster_setup
	gpA prepare >"$WORK/cl.prepA" 2>&1
	grep -q "cluster: this node's GPUs published as $A/etc/pve/gpu-provision/nodes/A.json" "$WORK/cl.prepA"
	gpB prepare >"$WORK/cl.prepB" 2>&1 || true # under --root a module change is printed
	check "B's file, written through B's root, in the shared tree" 640 "$(stat -c %a "$CL/gpu-provision/nodes/B.json")"
	check "A sees B's" 8 "$(jq '.gpus | length' "$A/etc/pve/gpu-provision/nodes/B.json")"
	check "B's driver" "590.48.01 open" "$(jq -r '"\(.driver.version) \(.driver.flavor)"' "$CL/gpu-provision/nodes/B.json")"
	check "B's HMM" "false true" "$(jq -r '"\(.uvm.hmm_active) \(.uvm.hmm_active_with_disable_hmm_n)"' "$CL/gpu-provision/nodes/B.json")"
	gpA check --json >"$out" || true # the fixture hosts have findings of their own
	check "this node" A "$(jq -r '.cluster.node' "$out")"
	check "nodes" "A true, B true, C false" "$(jq -r '[.cluster.nodes[] | "\(.name) \(.published)"] | join(", ")' "$out")"
	check "C published nothing" cluster-node-unpublished "$(jq -r '.cluster.findings[].id' "$out")"
	# A UUID only A has (and the older driver, which 9101 carries itself).
	check "9101 on A" "yes: " "$(start_on "$out" 9101 A)"
	start_on "$out" 9101 B | grep -q "^no: $UUID_A is not on B (a UUID names one GPU of one node); driver 590.48.01 on B, 580.159.04 on A"
	# any:1 fits both; with inject = yes the other driver is a difference, not a refusal.
	check "9102 on A" "yes: " "$(start_on "$out" 9102 A)"
	check "9102 on B" "yes: " "$(start_on "$out" 9102 B)"
	check "9102's findings" cluster-start-differs "$(jq -r '.cluster.containers[] | select(.name == "9102") | .findings[].id' "$out")"
	# any:1 with its own user space (inject = no): B's driver is another.
	start_on "$out" 9103 B | grep -q '^no: driver 590.48.01 on B, 580.159.04 on A: with inject = no'
	# B's containers from A: model:B200:2 needs B200s; any:1 the older driver refuses.
	start_on "$out" 9201 A | grep -q '^no: model:B200:2: A has 0 GPU(s) whose model contains "B200" (it has 1 x NVIDIA H200)'
	check "9201 on B" "yes: " "$(start_on "$out" 9201 B)"
	start_on "$out" 9202 A | grep -q '^no: driver 580.159.04 on A, 590.48.01 on B'
	start_on "$out" 9202 C | grep -q '^unknown: C has published no GPUs'
	check "refused" "9101 9103 9201 9202" "$(jq -r '[.cluster.containers[] | select(any(.findings[]; .id == "cluster-start-refused")) | .name] | join(" ")' "$out")"
	# The same from B, in text.
	gpB check >"$WORK/cl.checkB.txt" || true
	grep -q '^cluster (this node: B; 3 node(s))' "$WORK/cl.checkB.txt"
	grep -q '^cluster container 9101 (node A, devices GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460): starts on A; not on B; unknown on C' "$WORK/cl.checkB.txt"
	grep -q '^  warning cluster-start-refused: 9101 (on A) cannot start on node B' "$WORK/cl.checkB.txt"
	# prometheus: the cluster's findings by severity.
	gpA check --format prometheus >"$WORK/cl.prom" || true
	grep -qx 'gpu_provision_cluster_findings{severity="warning"} 4' "$WORK/cl.prom"
}

# HMM on in B's nvidia_uvm: B's containers (policy auto, on_conflict refuse) are refused
# there. An ini left in A's confdir is ini-node-local.
test_cluster_hmm_and_node_local_ini() {
	local out=$WORK/cl.hmm.json
	cluster_setup
	echo N >"$B/sys/module/nvidia_uvm/parameters/uvm_disable_hmm"
	gpA prepare >/dev/null 2>&1
	gpB prepare >/dev/null 2>&1 || true
	check "B's HMM" true "$(jq -r '.uvm.hmm_active' "$CL/gpu-provision/nodes/B.json")"
	gpA check --json >"$out" || true
	start_on "$out" 9202 B | grep -q '^no: HMM is active in nvidia_uvm on B: the start must reload it with uvm_disable_hmm=1'
	check "9202's fix" 1 "$(jq -r '.cluster.containers[] | select(.name == "9202") | .findings[].fix' "$out" | grep -c 'prepare --persist')"
	# A's own file against A now: a driver update since prepare ran.
	sed -i 's/580.159.04/580.172.08/' "$A/proc/driver/nvidia/version"
	gpA check --json >"$out" || true
	check "A's stale file" "cluster-inventory-stale cluster-node-unpublished" \
		"$(jq -r '[.cluster.findings[].id] | sort | join(" ")' "$out")"
	sed -i 's/580.172.08/580.159.04/' "$A/proc/driver/nvidia/version"
	cp "$CL/gpu-provision/9101.ini" "$A.conf/9101.ini"
	gpA check 9101 --json >"$out" || true
	check "ini left in A's confdir" 1 "$(jq '[.containers[0].findings[] | select(.id == "ini-node-local")] | length' "$out")"
	check "check NAME: that container of the cluster" 9101 "$(jq -r '[.cluster.containers[].name] | join(" ")' "$out")"
}

# list --cluster: every node's GPU containers; the state from liblxc on this node (9103 is
# an LXC container here), else from Proxmox's .rrd: fresh, stale or missing.
test_cluster_list() {
	local now out=$WORK/cl.list.txt
	cluster_setup
	new_container "$P" 9103
	now=$(date +%s)
	printf '%s\n' "pve2-node/B:1:2:3" \
		"pve2.3-vm/9101:0:ct9101:stopped:0:$now:2:U:1:U:1:U:U:U:U:U" \
		"pve-vm-9.0/9201:60:ct9201:running:0:$now:2:0.1:1:1:1:1:1:1:1:U:0:0:0:0:0:0" \
		"pve2.3-vm/9201:60:ct9201:stopped:0:$now:2:U:1:U:1:U:U:U:U:U" \
		"pve2.3-vm/9202:60:ct9202:running:0:$((now - 600)):2:0.1:1:1:1:1:1:1:1" >"$A/etc/pve/.rrd"
	printf '\0' >>"$A/etc/pve/.rrd" # as pmxcfs ends it
	gpA list --cluster >"$out"
	check "header" "NODE NAME GPUS STATE" "$(head -1 "$out" | tr -s ' ')"
	check "9101: .rrd" "A 9101 $UUID_A STOPPED" "$(grep ' 9101 ' "$out" | tr -s ' ')"
	check "9102: nowhere" "A 9102 any:1 unknown" "$(grep ' 9102 ' "$out" | tr -s ' ')"
	check "9103: liblxc" "A 9103 any:1 STOPPED" "$(grep ' 9103 ' "$out" | tr -s ' ')"
	check "9201: PVE 9's key first" "B 9201 model:B200:2 RUNNING" "$(grep ' 9201 ' "$out" | tr -s ' ')"
	check "9202: stale" "B 9202 any:1 unknown" "$(grep ' 9202 ' "$out" | tr -s ' ')"
	gpA list --cluster --json >"$WORK/cl.list.json"
	check "json" '{"node":"A","name":"9103","gpus":"any:1","state":"STOPPED","state_from":"liblxc"}' \
		"$(jq -c '.[] | select(.name == "9103")' "$WORK/cl.list.json")"
	check "json: .rrd's, none" '["rrd",null]' "$(jq -c '[.[] | select(.name == "9201" or .name == "9202") | .state_from]' "$WORK/cl.list.json")"
	check "B lists the same" 5 "$(gpB list --cluster --json | jq length)"
	# Off Proxmox VE there is no cluster to list.
	make_root h200-580-open "$WORK/cl.none"
	set +e
	gp --root "$WORK/cl.none" list --cluster 2>/dev/null
	rc=$?
	set -e
	check "exit off Proxmox VE" 2 "$rc"
}

# pct migrate: Proxmox rewrites the config and renames it into the target node's directory
# (raw lxc.* lines survive); the ini stays where it is, in the cluster filesystem. Then a
# start on B, as Proxmox does it: LXC's config made from B's copy, gpu-hook's pre-start run
# by LXC there. A container attached on A by a portable selection gets a GPU of B's; one
# selected by a UUID only A has is refused, naming node B, the selection and B's GPUs.
test_cluster_migrate() {
	local ini plan rdev
	cluster_setup
	ini=$CL/gpu-provision/9401.ini
	# Both nodes published what they have: attach writes the rules every node needs (B's
	# nvidia-uvm major is 511, A's 238).
	gpA prepare >/dev/null 2>&1
	gpB prepare >/dev/null 2>&1 || true # under --root a module change is printed
	cluster_file nodes/A/lxc/9401.conf "$(printf 'arch: amd64\nhostname: mig\nostype: debian')"
	gpA attach 9401 --gpus any:1 >/dev/null
	grep -q 'devices.allow: c 511:0 rwm' "$CL/nodes/A/lxc/9401.conf"
	grep -q 'devices.allow: c 195:7 rwm' "$CL/nodes/A/lxc/9401.conf"
	check "the ini, in the cluster filesystem" 640 "$(stat -c %a "$ini")"
	check "nothing of it in A's confdir" "" "$(ls "$A.conf" | grep 9401 || true)"
	# Written anew (attach left it in Proxmox's own form), then renamed into B's directory.
	cat "$CL/nodes/A/lxc/9401.conf" >"$CL/nodes/B/lxc/9401.conf.tmp"
	mv "$CL/nodes/B/lxc/9401.conf.tmp" "$CL/nodes/B/lxc/9401.conf"
	rm "$CL/nodes/A/lxc/9401.conf"
	# B's LXC config from B's copy; the hook's --root and --confdir stand for the same
	# paths on another machine.
	new_container "$P" 9401
	sed -e "s|--root $A |--root $B |g" -e "s|--confdir $A.conf|--confdir $B.conf|g" \
		"$B/etc/pve/lxc/9401.conf" >"$WORK/9401.pve"
	lxc_of_pve "$WORK/9401.pve" "$P/9401/config"
	start 9401
	plan=$B/run/gpu-provision/9401.plan
	check "the GPU it got on B" "gpu 0 GPU-5eed0000-0000-4000-8000-000000000000" "$(grep '^gpu ' "$plan" | cut -d' ' -f1-3)"
	rdev=$(in_ct "$P" 9401 "stat -c '%t:%T' /dev/nvidia0")
	check "its node inside" "195:0" "$((16#${rdev%:*})):$((16#${rdev#*:}))"
	stop 9401
	# A UUID that only A has: the start on B is refused, and leaves nothing.
	printf '[gpu]\ndevices = %s\n' "$UUID_A" >"$ini"
	if lxc-start -P "$P" -n 9401 -l DEBUG -o "$WORK/9401.log"; then
		echo "    started with A's UUID on B"
		return 1
	fi
	grep -q "node B" "$WORK/9401.log"
	grep -q "$UUID_A" "$WORK/9401.log"
	grep -q "NVIDIA B200" "$WORK/9401.log"
	check "no plan left on B" absent "$([ -e "$plan" ] && echo present || echo absent)"
}

# A node-local ini (from before the cluster filesystem held them) and a config edit that
# fails (A's view of nodes/ read-only): the ini stays where it was, as it was, and none is
# left in the cluster; once the edit succeeds it moves. Then the cluster filesystem
# read-only, as pmxcfs is without quorum: attach says so, naming the file, and changes
# nothing.
test_cluster_failed_edit_and_quorum() {
	local conf before
	cluster_setup
	conf=$CL/nodes/A/lxc/9501.conf
	cluster_file nodes/A/lxc/9501.conf "$(printf 'arch: amd64\nhostname: q\nostype: debian')"
	printf '[gpu]\ndevices = 0\n' >"$A.conf/9501.ini"
	before=$(cat "$conf")
	mount -o remount,ro,bind "$A/etc/pve/nodes"
	set +e
	gpA attach 9501 --gpus 0 2>"$WORK/cl.q.err"
	rc=$?
	set -e
	mount -o remount,rw,bind "$A/etc/pve/nodes"
	check "failed edit: exit" 3 "$rc"
	check "the config as it was" "$before" "$(cat "$conf")"
	check "the node's ini as it was" "$(printf '[gpu]\ndevices = 0')" "$(cat "$A.conf/9501.ini")"
	check "no ini in the cluster" absent "$([ -e "$CL/gpu-provision/9501.ini" ] && echo present || echo absent)"
	gpA attach 9501 --gpus 0 >/dev/null
	check "moved" "absent 640" "$([ -e "$A.conf/9501.ini" ] && echo present || echo absent) $(stat -c %a "$CL/gpu-provision/9501.ini")"
	check "no .applied left in confdir" absent "$([ -e "$A.conf/9501.applied" ] && echo present || echo absent)"
	cluster_file nodes/A/lxc/9502.conf "$(printf 'arch: amd64\nhostname: q\nostype: debian')"
	before=$(cat "$CL/nodes/A/lxc/9502.conf")
	mount -o remount,ro,bind "$A/etc/pve/gpu-provision"
	set +e
	gpA attach 9502 --gpus 0 2>"$WORK/cl.q.err"
	rc=$?
	set -e
	mount -o remount,rw,bind "$A/etc/pve/gpu-provision"
	check "no quorum: exit" 3 "$rc"
	grep -q "$A/etc/pve/gpu-provision/9502.applied\": no quorum: the cluster filesystem takes writes only with quorum" "$WORK/cl.q.err" ||
		{ cat "$WORK/cl.q.err"; return 1; }
	check "the config as it was" "$before" "$(cat "$CL/nodes/A/lxc/9502.conf")"
	check "no ini anywhere" "absent absent" "$([ -e "$CL/gpu-provision/9502.ini" ] && echo present || echo absent) $([ -e "$A.conf/9502.ini" ] && echo present || echo absent)"
}

# Dynamic majors differ between nodes: B's nvidia-uvm at 249 (here made so), which on A is
# the watchdog's. attach on A writes no rule for it (the container could open A's watchdog
# otherwise) and says B will not take it; a rule of B's major in .applied from before is
# refused at a start on A, naming it, with nothing left behind. Then the other way: A's own
# nvidia-uvm major (238) another device's on B: no rule for it either, though A's plan
# has it.
test_cluster_major_of_another_driver() {
	local conf applied
	cluster_setup
	conf=$CL/nodes/A/lxc/9601.conf
	applied=$CL/gpu-provision/9601.applied
	sed -i -e '/^249 pps$/d' -e 's/^511 nvidia-uvm$/249 nvidia-uvm/' "$B/proc/devices"
	gpA prepare >/dev/null 2>&1
	gpB prepare >/dev/null 2>&1 || true
	check "A publishes every character major" true \
		"$(jq '.majors.registered | index(249) != null and index(238) != null and index(2) == null' "$CL/gpu-provision/nodes/A.json")"
	cluster_file nodes/A/lxc/9601.conf "$(printf 'arch: amd64\nhostname: mj\nostype: debian')"
	gpA attach 9601 --gpus any:1 2>"$WORK/cl.mj.err" >/dev/null
	grep -q "no rule for node B's /dev/nvidia-uvm (major 249): on node A that major is another device's" "$WORK/cl.mj.err" ||
		{ cat "$WORK/cl.mj.err"; return 1; }
	check "no rule of major 249" 0 "$(grep -c 'c 249:' "$conf" || true)"
	grep -q 'devices.allow: c 238:0 rwm' "$conf"
	# As attach wrote it before B published: B's rule in the config and in .applied.
	echo 'lxc.cgroup2.devices.allow: c 249:0 rwm' >>"$conf"
	echo 'lxc.cgroup2.devices.allow: c 249:0 rwm' >>"$applied"
	new_container "$P" 9601
	lxc_of_pve "$A/etc/pve/lxc/9601.conf" "$P/9601/config"
	if lxc-start -P "$P" -n 9601 -l DEBUG -o "$WORK/9601.log"; then
		echo "    started with a rule for A's watchdog"
		return 1
	fi
	grep -q "opens a device of major 249, which here is none that this start gives" "$WORK/9601.log"
	check "no plan left on A" absent "$([ -e "$A/run/gpu-provision/9601.plan" ] && echo present || echo absent)"
	# A's own major, another device's on B.
	sed -i 's/^244 hidraw$/238 hidraw/' "$B/proc/devices"
	gpB prepare >/dev/null 2>&1 || true
	gpA sync 9601 2>"$WORK/cl.mj.err" >/dev/null || true
	grep -q "no rule for node A's /dev/nvidia-uvm (major 238): on node B that major is another device's" "$WORK/cl.mj.err" ||
		{ cat "$WORK/cl.mj.err"; return 1; }
	check "no rule of major 238" 0 "$(grep -c 'c 238:' "$conf" || true)"
}
