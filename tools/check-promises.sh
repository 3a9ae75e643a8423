#!/bin/bash
# Checks docs/promises.md (or the file given): every row of its table names at least one
# test as `FILE:FUNCTION`, and each exists: FILE is one file under tests/, FUNCTION is a
# test there (a shell function `test_...() {` in an integration file, a unit test both
# defined and registered with cmocka_unit_test in a .c file). Exit 1 naming each fault.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
doc=${1:-$top/docs/promises.md}
faults=0 rows=0 refs=0

fault() { echo "promises: $doc:$1: $2" >&2; faults=$((faults + 1)); }

# test_exists FILE FUNCTION: 0 when FILE (a name under tests/) defines and runs FUNCTION.
test_exists() {
	local path n
	n=$(find "$top/tests" -name "$1" -type f | wc -l)
	[ "$n" = 1 ] || { echo "$n files named $1 under tests/"; return 1; }
	path=$(find "$top/tests" -name "$1" -type f)
	case $1 in
	*.sh)
		grep -Eq "^$2\(\) *\{" "$path" || { echo "no function $2() in ${path#$top/}"; return 1; }
		[[ $2 == test_* ]] || { echo "$2 is not a test_ function"; return 1; } ;;
	*.c)
		grep -Eq "^static void $2\(" "$path" || { echo "no static void $2( in ${path#$top/}"; return 1; }
		# cmocka_unit_test*(NAME ...), or a one-letter macro over it as test-nodes.c has
		grep -Eq "(cmocka_unit_test[a-z_]*|^[[:space:]]*[A-Z])\($2[,)]" "$path" ||
			{ echo "$2 is not registered with cmocka_unit_test in ${path#$top/}"; return 1; } ;;
	*) echo "$1 is neither a .sh nor a .c file"; return 1 ;;
	esac
}

[ -r "$doc" ] || { echo "promises: cannot read $doc" >&2; exit 1; }
lineno=0
while IFS= read -r line; do
	lineno=$((lineno + 1))
	# A row: | N | promise | where | tests |
	[[ $line =~ ^\|\ *[0-9]+\ *\| ]] || continue
	rows=$((rows + 1))
	tests=$(awk -F'|' '{print $(NF-1)}' <<<"$line")
	found=0
	for ref in $(grep -oE '`[A-Za-z0-9_.-]+:[A-Za-z0-9_]+`' <<<"$tests" | tr -d '`'); do
		found=$((found + 1))
		why=$(test_exists "${ref%%:*}" "${ref#*:}") || fault "$lineno" "$ref: $why"
	done
	[ "$found" -gt 0 ] || fault "$lineno" "the row names no test: $line"
	refs=$((refs + found))
done <"$doc"
[ "$rows" -gt 0 ] || fault 0 "no rows in the table"
echo "promises: $rows promises, $refs test references, $faults faults"
[ "$faults" -eq 0 ]
