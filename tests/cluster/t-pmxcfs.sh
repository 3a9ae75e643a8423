# shellcheck shell=bash
# The cluster on pmxcfs itself: what one node writes, the others read; a container renamed
# into another node's lxc/ (pct migrate); quorum lost and back; two nodes at once. Sourced
# by run.sh, in this order.

UUID_1=GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460 # pve1's H200

# publish_all: prepare on every node (under --root a module change is printed, and exits
# non-zero), each node's file seen by the others.
publish_all() {
	local i j
	for i in $NODES; do
		gpn "$i" prepare >"$WORK/prepare.$i" 2>&1 || true
		grep -q "cluster: this node's GPUs published as $WORK/n$i/etc/pve/gpu-provision/nodes/pve$i.json" "$WORK/prepare.$i" ||
			{ cat "$WORK/prepare.$i"; return 1; }
	done
	for i in $NODES; do
		for j in $NODES; do
			wait_on "$i" test -s "/etc/pve/gpu-provision/nodes/pve$j.json"
		done
	done
}

# start_on JSON ID NODE: "yes", "no" or "unknown", then the why, of ID's start on NODE.
start_on() {
	jq -r --arg id "$2" --arg node "$3" \
		'.cluster.containers[] | select(.name == $id) | .starts[] | select(.node == $node) |
		 "\(.start): \(.why)"' "$1"
}

# same_on_all REL: REL of /etc/pve, byte for byte the same as node 1 reads it on 2 and 3.
same_on_all() {
	local i want
	want=$(node 1 md5sum "/etc/pve/$1" | cut -d' ' -f1)
	for i in 2 3; do
		wait_on "$i" sh -c "md5sum '/etc/pve/$1' | grep -q '^$want '"
	done
}

# attach on pve1: the ini and .applied, as pmxcfs keeps files (root:www-data 0640), read on
# pve3 as pve1 wrote them, and pve3's check judges the container by them.
test_attach_read_on_another_node() {
	local out=$WORK/attach.check.json
	ct_config 1 9101
	gpn 1 attach 9101 --gpus any:1 --inject >/dev/null
	same_on_all gpu-provision/9101.ini
	same_on_all gpu-provision/9101.applied
	same_on_all nodes/pve1/lxc/9101.conf
	check "the ini on pve3" "$(printf '[gpu]\ndevices = any:1')" \
		"$(node 3 grep -A1 '^\[gpu\]' /etc/pve/gpu-provision/9101.ini)"
	check "its owner and mode on pve3" "root www-data 640" \
		"$(node 3 stat -c '%U %G %a' /etc/pve/gpu-provision/9101.ini)"
	# Every line .applied records is in the config, as pve3 reads both.
	node 3 grep -vxFf /etc/pve/nodes/pve1/lxc/9101.conf /etc/pve/gpu-provision/9101.applied >"$WORK/attach.missing" || true
	check "lines of .applied not in the config" "" "$(cat "$WORK/attach.missing")"
	check "the hook in it" 3 "$(node 3 grep -c '^lxc.hook.*gpu-hook' /etc/pve/nodes/pve1/lxc/9101.conf)"
	gpn 3 check --json >"$out" || true # the fixture hosts have findings of their own
	check "pve3's check: 9101, on pve1" "pve1 any:1" \
		"$(jq -r '.cluster.containers[] | select(.name == "9101") | "\(.node) \(.gpus)"' "$out")"
	check "no temporary file left" "" "$(node 1 ls -a /etc/pve/gpu-provision /etc/pve/nodes/pve1/lxc | grep gp-tmp || true)"
}

# prepare on each node publishes its GPUs; every node's check and list --cluster read all
# three, as the others wrote them.
test_inventories_on_every_node() {
	local i out
	publish_all
	for i in $NODES; do
		out=$WORK/inv.check.$i.json
		gpn "$i" check --json >"$out" || true
		check "pve$i: this node" "pve$i" "$(jq -r '.cluster.node' "$out")"
		check "pve$i: the nodes" "pve1 true, pve2 true, pve3 true" \
			"$(jq -r '[.cluster.nodes[] | "\(.name) \(.published)"] | join(", ")' "$out")"
		check "pve$i: none unpublished" 0 \
			"$(jq '[.cluster.findings[] | select(.id == "cluster-node-unpublished")] | length' "$out")"
		check "pve$i reads pve2's eight GPUs" 8 "$(node "$i" jq '.gpus | length' /etc/pve/gpu-provision/nodes/pve2.json)"
		check "pve$i reads pve3's driver" "550.54.14 proprietary" \
			"$(node "$i" jq -r '"\(.driver.version) \(.driver.flavor)"' /etc/pve/gpu-provision/nodes/pve3.json)"
		gpn "$i" list --cluster --json >"$WORK/inv.list.$i.json"
		check "pve$i: list --cluster" "pve1 9101 any:1" \
			"$(jq -r '.[] | select(.name == "9101") | "\(.node) \(.name) \(.gpus)"' "$WORK/inv.list.$i.json")"
	done
}

# pct migrate: the config renamed from nodes/pve1/lxc into nodes/pve2/lxc (the ini stays in
# gpu-provision/). pve2 then holds it in its own /etc/pve/lxc, and judges its start there by
# what it has: a portable selection (any:1, the host's driver injected) starts with one of
# pve2's GPUs (sync writes pve2's rules into the config); a UUID only pve1 has is refused,
# naming pve2 and the UUID.
test_migrate_to_another_node() {
	local out=$WORK/mig.check.json
	publish_all
	ct_config 1 9401
	ct_config 1 9402
	gpn 1 attach 9401 --gpus any:1 --inject >/dev/null
	gpn 1 attach 9402 --gpus "$UUID_1" --inject >/dev/null
	node 1 mv /etc/pve/nodes/pve1/lxc/9401.conf /etc/pve/nodes/pve2/lxc/9401.conf
	node 1 mv /etc/pve/nodes/pve1/lxc/9402.conf /etc/pve/nodes/pve2/lxc/9402.conf
	wait_on 2 test -e /etc/pve/lxc/9401.conf
	wait_on 2 test -e /etc/pve/lxc/9402.conf
	check "gone from pve1" "" "$(node 1 ls /etc/pve/lxc | grep -x '940[12].conf' || true)"
	gpn 2 check --json >"$out" || true
	check "9401 on pve2, by pve2" "pve2" "$(jq -r '.cluster.containers[] | select(.name == "9401") | .node' "$out")"
	check "9401 starts on pve2" "yes: " "$(start_on "$out" 9401 pve2)"
	start_on "$out" 9402 pve2 | grep -q "^no: $UUID_1 is not on pve2 (a UUID names one GPU of one node)" ||
		{ start_on "$out" 9402 pve2; return 1; }
	check "9402: refused" 1 "$(jq '[.cluster.containers[] | select(.name == "9402") | .findings[] | select(.id == "cluster-start-refused")] | length' "$out")"
	# pve2's own rules for 9401: its GPU 0 (/dev/nvidia0, 195:0) and its nvidia-uvm (511).
	gpn 2 sync 9401 >"$WORK/mig.sync" 2>&1 || { cat "$WORK/mig.sync"; return 1; }
	node 2 grep -q 'devices.allow: c 511:0 rwm' /etc/pve/lxc/9401.conf
	node 2 grep -q 'devices.allow: c 195:0 rwm' /etc/pve/lxc/9401.conf
	node 2 grep -vxFf /etc/pve/lxc/9401.conf /etc/pve/gpu-provision/9401.applied >"$WORK/mig.missing" || true
	check "lines of .applied not in pve2's config" "" "$(cat "$WORK/mig.missing")"
	# The UUID one: sync on pve2 refuses it, and leaves its config as it was.
	node 2 md5sum /etc/pve/lxc/9402.conf >"$WORK/mig.before"
	if gpn 2 sync 9402 >"$WORK/mig.sync" 2>&1; then
		echo "    sync on pve2 took pve1's UUID"
		return 1
	fi
	grep -q "$UUID_1" "$WORK/mig.sync" || { cat "$WORK/mig.sync"; return 1; }
	node 2 md5sum -c --quiet "$WORK/mig.before"
}

# snapshot I: every file of /etc/pve/gpu-provision and node I's lxc/, with its sum.
snapshot() {
	# shellcheck disable=SC2016 # expanded by the shell inside
	node "$1" sh -c 'cd /etc/pve && find gpu-provision "nodes/pve$1/lxc" -type f | sort | xargs md5sum' sh "$1"
}

# Corosync stopped on pve2 and pve3: pve1 alone has no quorum, its pmxcfs refuses every
# write (EACCES). attach (new and again), detach, sync and prepare's publishing each fail,
# naming the file and "no quorum", and leave every file as it was, with no temporary one;
# check says the cluster is not quorate. Once the two are back, the same commands succeed.
test_quorum_lost_and_back() {
	local before rc i
	publish_all
	ct_config 1 9501
	ct_config 1 9502
	gpn 1 attach 9501 --gpus any:1 --inject >/dev/null
	corosync_stop 2
	corosync_stop 3
	wait_on 1 grep -q '"quorate": 0' /etc/pve/.members
	before=$(snapshot 1)
	for cmd in "attach 9502 --gpus 0" "attach 9501 --gpus 0" "detach 9501" "sync 9501"; do
		rc=0
		# shellcheck disable=SC2086 # the command's words
		gpn 1 $cmd >"$WORK/q.out" 2>&1 || rc=$?
		check "$cmd: exit" 3 "$rc" || { cat "$WORK/q.out"; return 1; }
		grep -q "\"$WORK/n1/etc/pve/[^\"]*\".*no quorum" "$WORK/q.out" || { echo "    $cmd said:"; cat "$WORK/q.out"; return 1; }
	done
	gpn 1 prepare >"$WORK/q.out" 2>&1 || true # under --root a module change is printed
	grep -q "Failed to publish this node's GPUs to \"$WORK/n1/etc/pve/gpu-provision/nodes/pve1.json\": .*no quorum" "$WORK/q.out" ||
		{ cat "$WORK/q.out"; return 1; }
	check "every file as it was" "$before" "$(snapshot 1)"
	gpn 1 check --json >"$WORK/q.check.json" || true
	check "check: not quorate" 1 "$(jq '[.cluster.findings[] | select(.id == "cluster-not-quorate")] | length' "$WORK/q.check.json")"
	gpn 1 check >"$WORK/q.check.txt" || true
	grep -q "warning cluster-not-quorate: the cluster is not quorate" "$WORK/q.check.txt"
	# Reads go on: pve1 still judges 9501 by the files as they were.
	check "9501 still read" "pve1 any:1" "$(jq -r '.cluster.containers[] | select(.name == "9501") | "\(.node) \(.gpus)"' "$WORK/q.check.json")"
	corosync_start 2
	corosync_start 3
	for i in $NODES; do
		wait_on "$i" grep -q '"quorate": 1' /etc/pve/.members
	done
	gpn 1 attach 9502 --gpus 0 --inject >/dev/null
	node 1 grep -q 'gpu-hook' /etc/pve/lxc/9502.conf
	gpn 1 detach 9501 >/dev/null
	check "9501's ini, detached" absent "$(node 1 sh -c 'test -e /etc/pve/gpu-provision/9501.ini && echo present || echo absent')"
	check "9501's hook lines, detached" 0 "$(node 1 grep -c gpu-hook /etc/pve/lxc/9501.conf || true)"
	gpn 1 prepare >"$WORK/q.out" 2>&1 || true
	grep -q "cluster: this node's GPUs published as" "$WORK/q.out"
	gpn 1 check --json >"$WORK/q.check.json" || true
	check "check: quorate again" 0 "$(jq '[.cluster.findings[] | select(.id == "cluster-not-quorate")] | length' "$WORK/q.check.json")"
}

# ours_in FILE: the lines of FILE that are gpu-provision's (its hook, its rules, its mounts).
ours_in() {
	grep -E '^lxc\.(hook\..*gpu-hook|cgroup2?\.devices\.allow: c (195|238|511|234|508|509|510):|mount\.entry: /dev/nvidia)' "$1" | sort || true
}

# Two nodes at once on one container: pve1 attaches 9701 (GPU 0) while the container moves
# to pve2 (pct migrate's rename) and pve2 attaches it (any:1) in the same moment; each node
# takes only its own config lock. The rename comes 0 to 30 ms into pve1's attach (which takes
# some 50), a round each: before it reads the config, while it writes, after. Every round
# ends with one config, in pve2's lxc/, whose lines of ours are one attach's whole set and
# what .applied records; pve2's attach succeeds; pve1's, where it fails, says why, naming
# the file.
test_two_nodes_at_once() {
	local round c1 c2 conf where
	publish_all
	for round in 0 0.003 0.006 0.009 0.012 0.015 0.018 0.021 0.024 0.03; do
		node 3 sh -c 'rm -f /etc/pve/gpu-provision/9701.* /etc/pve/nodes/*/lxc/9701.conf*'
		ct_config 1 9701
		wait_on 2 test -e /etc/pve/nodes/pve1/lxc/9701.conf
		c1=0 c2=0
		gpn 1 attach 9701 --gpus 0 --inject >"$WORK/two.1" 2>&1 &
		sleep "$round"
		node 2 mv /etc/pve/nodes/pve1/lxc/9701.conf /etc/pve/nodes/pve2/lxc/9701.conf
		gpn 2 attach 9701 --gpus any:1 --inject >"$WORK/two.2" 2>&1 || c2=$?
		wait $! || c1=$?
		echo "    rename after ${round}s: pve1 exit $c1, pve2 exit $c2: $(head -1 "$WORK/two.1")"
		sleep 1.5 # both writers' last writes reach node 3
		where=$(node 3 sh -c 'ls /etc/pve/nodes/*/lxc/9701.conf' | tr '\n' ' ')
		check "round $round: one config (pve1: exit $c1, pve2: exit $c2)" "/etc/pve/nodes/pve2/lxc/9701.conf " "$where" ||
			{ cat "$WORK/two.1" "$WORK/two.2"; return 1; }
		conf=$WORK/two.conf
		node 3 cat /etc/pve/nodes/pve2/lxc/9701.conf >"$conf"
		node 3 cat /etc/pve/gpu-provision/9701.applied >"$WORK/two.applied" 2>/dev/null || : >"$WORK/two.applied"
		check "round $round: the config's lines of ours are .applied's" "$(sort "$WORK/two.applied" | grep -v '^#' || true)" "$(ours_in "$conf")" ||
			{ cat "$WORK/two.1" "$WORK/two.2"; return 1; }
		check "round $round: one hook set" 3 "$(grep -c 'gpu-hook' "$conf" || true)"
		check "round $round: pve2's attach" 0 "$c2"
		if [ "$c1" -ne 0 ]; then
			grep -q "\"$WORK/n1/etc/pve/lxc/9701.conf\"" "$WORK/two.1" || { echo "    pve1 failed, saying:"; cat "$WORK/two.1"; return 1; }
		fi
	done
}
