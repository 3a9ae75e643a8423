# shellcheck shell=bash
# The three nodes of a cluster on pmxcfs, for the cluster suite (run.sh) and its benchmark
# (tests/bench/cluster.sh): each node pve1..pve3 in its own mount, UTS and network namespaces
# (KIT/cluster.sh), gpu-provision run there through a --root of a fixture GPU host whose
# etc/pve is a bind of the node's own /etc/pve (pve1: one H200, 580.159.04 open; pve2: eight
# B200, 590.48.01 open; pve3: four GPUs, 550 proprietary). Source it after tests/lib.sh, with
# KIT and PMXCFS set; cluster_start starts them, and stops them when the shell exits.

# cluster_need KIT PMXCFS: what the nodes need, said when missing.
cluster_need() {
	local c
	[ "$(id -u)" -eq 0 ] || { echo "check-cluster: must run as root" >&2; return 1; }
	[ -x "$1/cluster.sh" ] || { echo "check-cluster: no cluster.sh in \"$1\"" >&2; return 1; }
	[ -x "$2" ] || { echo "check-cluster: no pmxcfs at \"$2\"" >&2; return 1; }
	for c in corosync nsenter jq; do
		command -v "$c" >/dev/null || { echo "check-cluster: $c is missing" >&2; return 1; }
	done
}

NODES="1 2 3"
FIXTURES=(none h200-580-open b200x8-590-open-hmm quad-550-proprietary)

# A corosync this suite started again (corosync_start) is no job of the node's shell, which
# cluster.sh stop ends with its process group: it goes first, by its own pid.
cleanup() {
	local i
	for i in $NODES; do
		[ -e "$CL/n$i/corosync.restarted" ] && kill "$(cat "$CL/n$i/corosync.pid")" 2>/dev/null
	done
	"$KIT/cluster.sh" stop "$CL"
	[ -n "${KEEP:-}" ] || rm -rf "$WORK"
	[ -z "$GP_INSTALLED" ] || rm -rf "$GP_INSTALLED"
}

# node I CMD...: CMD on node I, in its namespaces (its /etc/pve, its hostname).
node() {
	local i=$1
	shift
	"$KIT/cluster.sh" run "$CL" "$i" "$@"
}

# gpn I ARGS...: gpu-provision on node I, through its root.
gpn() {
	local i=$1
	shift
	node "$i" "$GP" --confdir "$WORK/n$i.conf" --lxcpath "$P" --root "$WORK/n$i" "$@"
}

# pve_file I REL TEXT: a file written into /etc/pve through node I's pmxcfs.
pve_file() {
	# shellcheck disable=SC2016 # expanded by the shell inside
	node "$1" sh -c 'mkdir -p "$(dirname "$1")" && printf "%s\n" "$2" >"$1"' sh "/etc/pve/$2" "$3"
}

# ct_config I ID: container ID's Proxmox config, on node I.
ct_config() {
	pve_file "$1" "nodes/pve$1/lxc/$2.conf" "$(printf 'arch: amd64\nhostname: ct%s\nostype: debian' "$2")"
}

# wait_on I CMD...: until CMD succeeds on node I, 15 s at most (pmxcfs replicates a write
# within about a second).
wait_on() {
	local i=$1
	shift
	for _ in $(seq 1 30); do
		node "$i" "$@" >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	echo "    on node $i, never: $*"
	return 1
}


# corosync_stop I: node I's corosync stopped, and gone (a new one would not start beside it).
corosync_stop() {
	local pid
	pid=$(cat "$CL/n$1/corosync.pid")
	"$KIT/cluster.sh" stop-corosync "$CL" "$1"
	for _ in $(seq 1 40); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.25
	done
	echo "    node $1's corosync ($pid) did not end"
	return 1
}

# corosync_start I: node I's corosync again, after corosync_stop.
corosync_start() {
	# shellcheck disable=SC2016 # expanded by the shell inside
	node "$1" sh -c 'corosync -f >>"$1/corosync.log" 2>&1 & echo $! >"$1/corosync.pid"' sh "$CL/n$1"
	touch "$CL/n$1/corosync.restarted"
}

# cluster_heal: every node's corosync running and every node quorate again, after a test
# that stopped some and may have failed before it started them.
cluster_heal() {
	local i
	for i in $NODES; do
		kill -0 "$(cat "$CL/n$i/corosync.pid")" 2>/dev/null || corosync_start "$i"
	done
	for i in $NODES; do
		wait_on "$i" grep -q '"quorate": 1' /etc/pve/.members || return 1
	done
}

# Each node's root: its fixture host, its confdir, /etc/pve its pmxcfs mount (bound inside
# its mount namespace only, gone with it), nodes/<node>/lxc as a Proxmox VE node has.
setup_nodes() {
	local i
	for i in $NODES; do
		make_root "${FIXTURES[$i]}" "$WORK/n$i"
		mkdir -p "$WORK/n$i/etc/pve" "$WORK/n$i.conf"
		printf '[driver]\ninject = no\n' >"$WORK/n$i.conf/gpu-provision.conf"
		node "$i" mount --bind /etc/pve "$WORK/n$i/etc/pve"
		node "$i" mkdir -p "/etc/pve/nodes/pve$i/lxc"
	done
	# pve2 as its boot unit left it: nvidia_uvm with uvm_disable_hmm=1 (prepare --persist).
	echo Y >"$WORK/n2/sys/module/nvidia_uvm/parameters/uvm_disable_hmm"
}

# cluster_start: the trusted binaries, WORK (P: its lxcpath), the three nodes up, each with
# its root; all of it gone when the shell exits.
cluster_start() {
	use_trusted_install || return 1
	WORK=$(mktemp -d /tmp/gp-pmxcfs.XXXXXX)
	chmod 755 "$WORK"
	CL=$WORK/cluster
	P=$WORK/lxc
	mkdir -p "$P"
	trap cleanup EXIT
	"$KIT/cluster.sh" start "$CL" "$PMXCFS" 3 || return 1
	setup_nodes
}
