#!/bin/sh
# Runs each cmocka unit test binary; prints one closing line over all of them:
# "unit: N passed, N failed, N skipped". A skipped test (cmocka's skip()) counts as skipped,
# never as passed; a binary that exits non-zero without saying which test failed counts as
# one failure.
#
# With --as USER first, run as root, each runs as USER instead (setpriv, no groups), with a
# HOME and XDG_RUNTIME_DIR of its own: the tests that hold that they need no root. Each
# binary and the fixtures are copied there first (GP_TEST_FIXTURES names the copy), since
# USER may not reach the tree (a clone in /root, which only root may enter).
set -u
passed=0 failed=0 skipped=0 as="" home=""
if [ "${1:-}" = --as ]; then
	as=$2
	shift 2
fi
if [ -n "$as" ] && [ "$(id -u)" -eq 0 ]; then
	home=$(mktemp -d /tmp/gp-unit-home.XXXXXX)
	trap 'rm -rf "$home"' EXIT
	mkdir "$home/bin"
	cp -a "$(dirname "$0")/../tests/fixtures" "$home/fixtures"
	cp "$@" "$home/bin/"
	chown -R "$as:" "$home"
fi
# run BINARY: it, as $as where one is set.
run() {
	if [ -z "$home" ]; then
		"$1"
		return
	fi
	setpriv --reuid="$as" --regid="$(id -g "$as")" --clear-groups \
		env HOME="$home" XDG_RUNTIME_DIR="$home" GP_TEST_FIXTURES="$home/fixtures" \
		"$home/bin/${1##*/}"
}
# count LABEL OUTPUT: N of cmocka's closing "[  LABEL  ] N test(s)..." line, or 0.
count() {
	printf '%s\n' "$2" | sed -n "s/^\\[ *$1 *\\] \\([0-9][0-9]*\\) test.*/\\1/p" | tail -1
}
for t in "$@"; do
	out=$(run "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	p=$(count PASSED "$out")
	f=$(count FAILED "$out")
	s=$(count SKIPPED "$out")
	n=$(printf '%s\n' "$out" | sed -n 's/^\[==========\] \([0-9][0-9]*\) test(s) run\./\1/p' | tail -1)
	p=${p:-0} s=${s:-0}
	# Where a cmocka counts a skip among the passed too, the run's total says so.
	if [ -n "$n" ] && [ $((p + s + ${f:-0})) -gt "$n" ]; then p=$((n - s - ${f:-0})); fi
	passed=$((passed + p))
	skipped=$((skipped + s))
	failed=$((failed + ${f:-0}))
	if [ "$rc" -ne 0 ] && [ -z "$f" ]; then failed=$((failed + 1)); fi
done
echo "unit${as:+ as $as}: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
