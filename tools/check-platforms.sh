#!/bin/bash
# make check-platforms: the README's commands (tools/fresh-check.sh: make demo, make check)
# on each platform given, one after the other, each in a fresh tree of its Debian release
# and cgroup layout; a failure does not stop the next. Each run's output goes to
# OUTDIR/SUITE-LAYOUT.log; the summary names each platform's LXC, result, counts and time.
# Usage: tools/check-platforms.sh OUTDIR SUITE:LAYOUT...    (docs/platforms.md: which)
# Exit: 0 all passed, 1 one failed, 2 bad usage.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: tools/check-platforms.sh OUTDIR SUITE:LAYOUT..." >&2; exit 2; }
out=$1
shift
for p in "$@"; do
	case $p in
	bookworm:hybrid | bookworm:v2 | trixie:hybrid | trixie:v2 | sid:v2) ;;
	sid:hybrid) echo "platforms: sid:hybrid cannot run: LXC 7 refuses a hybrid host (Unsupported cgroup layout)" >&2; exit 2 ;;
	*) echo "platforms: unknown platform \"$p\" (SUITE:LAYOUT; bookworm, trixie or sid; hybrid or v2)" >&2; exit 2 ;;
	esac
done
mkdir -p "$out"

summary=() rc=0
for p in "$@"; do
	suite=${p%%:*} layout=${p#*:} log=$out/$suite-$layout.log
	echo "platforms: $suite, cgroup layout $layout (log: $log)"
	t0=$SECONDS prc=0
	"$top/tools/fresh-check.sh" "$suite" "$layout" >"$log" 2>&1 || prc=$?
	t=$((SECONDS - t0))
	lxc=$(sed -n 's/^Setting up lxc (1:\([^-)]*\).*/\1/p' "$log" | head -n 1)
	counts=$(grep -E '^(unit|integration): [0-9]+ passed' "$log" | tr '\n' ' ' || true)
	if [ "$prc" -eq 0 ]; then
		result=passed
	else
		result="FAILED (exit $prc)" rc=1
		grep -E '^(not ok|failed:|platform: \[[0-9]+\] failed)' "$log" | sed 's/^/    /' || true
	fi
	summary+=("$(printf '%-9s %-7s LXC %-6s %-18s %5d s  %s' "$suite" "$layout" "${lxc:-?}" "$result" "$t" "$counts")")
	echo "    ${summary[-1]}"
done
echo "platforms: summary"
printf '  %s\n' "${summary[@]}"
exit "$rc"
