#!/bin/bash
# make check-cluster: the cluster suite on Proxmox VE's real cluster filesystem, three nodes
# of pmxcfs over corosync (lib.sh says how each node runs gpu-provision). Each test prints
# "ok" or "not ok"; ONLY="test_a test_b" runs just those, KEEP=1 keeps their files.
# Usage: tests/cluster/run.sh KIT PMXCFS  (KIT: a folder with cluster.sh; PMXCFS: the binary)
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/lib.sh"

KIT=${1:?usage: run.sh KIT PMXCFS}
PMXCFS=${2:?usage: run.sh KIT PMXCFS}
cluster_need "$KIT" "$PMXCFS" || exit 1
cluster_start || exit 1
passed=0
failed=0
skipped=0
failures=""

run_test() {
	local name=$1 rc
	run_isolated "$name"
	rc=$?
	cluster_heal >>"$WORK/$name.out" 2>&1 || { echo "check-cluster: the cluster did not come back after $name" >&2; exit 1; }
	report_test "$name" "$rc"
}

for f in "$(dirname "$0")"/t-*.sh; do
	# shellcheck source=/dev/null
	. "$f"
done
all_tests=" $(declare -F | awk '$3 ~ /^test_/ {print $3}' | tr '\n' ' ')"
for t in ${ONLY:-}; do
	[[ $all_tests == *" $t "* ]] || { echo "check-cluster: no test is named $t" >&2; exit 2; }
done
runner_can_fail
# In the files' order, not declare's: each test makes what it needs, and the cluster is
# whole again after each (cluster_heal).
for t in $(grep -ho '^test_[a-z_0-9]*()' "$(dirname "$0")"/t-*.sh | tr -d '()'); do
	[ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $t "* ]] && continue
	run_test "$t"
done
echo "check-cluster: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ] || { echo "failed:$failures"; exit 1; }
