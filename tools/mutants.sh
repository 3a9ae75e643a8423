#!/bin/bash
# Mutation tests (tests/mutants/README.md): each patch in tests/mutants/ breaks one promise
# of the code that guards the host, and the tests it names must then fail. Every patch is
# applied in a scratch copy of the tree (tracked and new files, under /var/tmp), never in
# the tree itself; the copy goes when this ends, Ctrl-C included.
#
# Usage: tools/mutants.sh [PATCH...]   (default: every tests/mutants/*.patch)
#        tools/mutants.sh --applies       only that every patch still applies (make unit)
# Exit: 0 every mutant killed; 1 one survived, or one no longer applies or builds;
# 2 a named test fails without any mutant (or does not exist).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
T0=$SECONDS

if [ "${1:-}" = --applies ]; then
	stale=0
	for m in tests/mutants/*.patch; do
		patch -p1 --batch --fuzz=0 --dry-run -s <"$m" >/dev/null 2>&1 && continue
		echo "mutants: $m no longer applies to the code; update the patch"
		stale=$((stale + 1))
	done
	exit $((stale > 0))
fi
if [ $# -gt 0 ]; then patches=("$@"); else patches=(tests/mutants/*.patch); fi
jobs=$(nproc 2>/dev/null || echo 2)

scratch=$(mktemp -d "${MUTANTS_TMPDIR:-/var/tmp}/gp-mutants.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
tree=$scratch/tree
mkdir -p "$tree" "$scratch/orig"

# The working tree as it is now: tracked files (as edited) and new ones git does not ignore.
git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	tar --null -T - -cf - | tar -xf - -C "$tree"

field() { sed -n "s/^# $1: *//p" "$2"; }

say() { printf '%s\n' "$*"; }

# build TARGET...: make in the copy, quiet unless it fails.
build() {
	make -C "$tree" -j"$jobs" BUILD=build "$@" >"$scratch/make.log" 2>&1
}

# Checks each patch's header; collects the tests the baseline must pass.
units_all="" integ_all="" nested_all=""
for m in "${patches[@]}"; do
	[ -n "$(field breaks "$m")" ] || { say "mutants: $m has no '# breaks:' line"; exit 2; }
	u=$(field unit "$m") i=$(field integration "$m") n=$(field nested "$m")
	[ -n "$u$i$n" ] || { say "mutants: $m names no test ('# unit:', '# integration:' or '# nested:')"; exit 2; }
	for t in $u; do
		[ -f "$tree/tests/unit/$t.c" ] ||
			{ say "mutants: $m names $t, but tests/unit/$t.c does not exist"; exit 2; }
		case " $units_all " in *" $t "*) ;; *) units_all="$units_all $t" ;; esac
	done
	for t in $i; do
		grep -qE "^$t\(\)" "$tree"/tests/integration/t-*.sh ||
			{ say "mutants: $m names $t, which no tests/integration/t-*.sh defines"; exit 2; }
		case " $integ_all " in *" $t "*) ;; *) integ_all="$integ_all $t" ;; esac
	done
	for t in $n; do
		grep -qE "^$t\(\)" "$tree"/tests/slow/nested.sh ||
			{ say "mutants: $m names $t, which tests/slow/nested.sh does not define"; exit 2; }
		case " $nested_all " in *" $t "*) ;; *) nested_all="$nested_all $t" ;; esac
	done
done

bins() { for t in "$@"; do printf 'build/tests/%s ' "$t"; done; }

# run_units TIMEOUT TEST...: prints the first test that fails; status 0 when one did.
run_units() {
	local tmo=$1 t
	shift
	for t in "$@"; do
		timeout -k 2 "$tmo" "$tree/build/tests/$t" >"$scratch/$t.out" 2>&1 && continue
		echo "$t: $(how_it_failed $? "$tmo" "$scratch/$t.out")"
		return 0
	done
	return 1
}

# how_it_failed STATUS TIMEOUT OUTPUT: the cmocka cases that failed, or how the binary ended.
how_it_failed() {
	local cases running
	cases=$(sed -n 's/^\[  FAILED  \] \([a-z_][a-z0-9_]*\)$/\1/p' "$3" | awk '!seen[$0]++' |
		head -4 | tr '\n' ' ')
	running=$(sed -n 's/^\[ RUN      \] //p' "$3" | tail -1)
	case $1 in
	124 | 137) echo "timed out after $2 s in $running" ;;
	1[3-9][0-9]) echo "signal $(($1 - 128)) in $running" ;;
	*) echo "${cases% }" ;;
	esac
}

run_integration() { # run_integration TEST...: status 0 when all pass
	(cd "$tree" && ONLY="$*" GP_BUILD="$tree/build" tests/integration/run.sh) \
		>"$scratch/integration.out" 2>&1
}

run_nested() { # run_nested TEST...: tests of make check-nested; status 0 when all pass
	(cd "$tree" && ONLY="$*" GP_BUILD="$tree/build" tests/slow/nested.sh) \
		>"$scratch/nested.out" 2>&1
}

# The baseline: without any mutant every named test passes, or a kill would mean nothing.
say "mutants: baseline build and tests in $tree"
# shellcheck disable=SC2046,SC2086
build $(bins $units_all) || { tail -30 "$scratch/make.log"; say "mutants: the tree does not build"; exit 2; }
# shellcheck disable=SC2046,SC2086
if t=$(run_units 120 $units_all); then
	tail -30 "$scratch/${t%%:*}.out"
	say "mutants: $t fails without any mutant: fix it first"
	exit 2
fi
if [ -n "$integ_all" ]; then
	build all tests-helpers || { tail -30 "$scratch/make.log"; exit 2; }
	# shellcheck disable=SC2046,SC2086
	run_integration $integ_all || {
		tail -30 "$scratch/integration.out"
		say "mutants: integration tests fail without any mutant:$integ_all"
		exit 2
	}
fi
if [ -n "$nested_all" ]; then
	build all tests-helpers || { tail -30 "$scratch/make.log"; exit 2; }
	# shellcheck disable=SC2086
	run_nested $nested_all || {
		tail -30 "$scratch/nested.out"
		say "mutants: check-nested tests fail without any mutant:$nested_all"
		exit 2
	}
fi

killed=0 survived=0 broken=0 survivors=""
for m in "${patches[@]}"; do
	name=$(basename "$m" .patch)
	breaks=$(field breaks "$m")
	u=$(field unit "$m") i=$(field integration "$m") n=$(field nested "$m") tmo=$(field timeout "$m")
	files=$(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$m")
	t1=${EPOCHREALTIME/./}
	if ! patch -d "$tree" -p1 --batch --fuzz=0 --dry-run -s <"$m" >/dev/null 2>&1; then
		say "  BROKEN   $name: no longer applies to the code; update the patch"
		broken=$((broken + 1))
		continue
	fi
	for f in $files; do
		mkdir -p "$scratch/orig/$(dirname "$f")"
		cp "$tree/$f" "$scratch/orig/$f"
	done
	patch -d "$tree" -p1 --batch --fuzz=0 --no-backup-if-mismatch -s <"$m" >/dev/null
	by=""
	# shellcheck disable=SC2046,SC2086
	if [ -n "$u" ] && ! build $(bins $u); then
		say "  BROKEN   $name: does not build with the mutant ($(grep -m1 'error' "$scratch/make.log"))"
		broken=$((broken + 1))
		by=broken
	fi
	# shellcheck disable=SC2046,SC2086
	if [ -z "$by" ] && [ -n "$u" ]; then by=$(run_units "${tmo:-30}" $u) || by=""; fi
	if [ -z "$by" ] && [ -n "$i" ]; then
		# shellcheck disable=SC2046,SC2086
		if ! build all tests-helpers; then
			say "  BROKEN   $name: does not build with the mutant"
			broken=$((broken + 1))
			by=broken
		elif ! run_integration $i; then
			# Each failed test with its first failed check (else its last line).
			by=$(awk 'function out() { if (t) print t ": " (c ? c : l); t = c = "" }
				/^(not )?ok - |^integration: / { out() }
				/^not ok - / { t = $4; next }
				t { sub(/^ +/, ""); l = $0; if (!c && / expected \[/) c = $0 }
				END { out() }' "$scratch/integration.out" | head -3 | tr '\n' ';')
			by=${by:-integration}
		fi
	fi
	if [ -z "$by" ] && [ -n "$n" ]; then
		if ! build all tests-helpers; then
			say "  BROKEN   $name: does not build with the mutant"
			broken=$((broken + 1))
			by=broken
		# shellcheck disable=SC2086
		elif ! run_nested $n; then
			by="$(grep -m1 '^not ok: ' "$scratch/nested.out" || echo check-nested)"
		fi
	fi
	# Back to the tree as it was; make sees the newer files and rebuilds from them.
	for f in $files; do cp "$scratch/orig/$f" "$tree/$f"; done
	ds=$(((${EPOCHREALTIME/./} - t1) / 100000))
	secs=$((ds / 10)).$((ds % 10))
	if [ "$by" = broken ]; then
		continue
	elif [ -n "$by" ]; then
		say "  killed   $name by ${by% } (${secs} s)"
		killed=$((killed + 1))
	else
		say "  SURVIVED $name: nothing failed when this broke: $breaks"
		say "           (tests run: $u $i $n)"
		survived=$((survived + 1))
		survivors="$survivors $name"
	fi
done

say "mutants: $((SECONDS - T0)) s in all"
[ $broken -eq 0 ] || say "mutants: $broken could not be applied or built (see above)"
[ $survived -eq 0 ] || say "mutants: survivors:$survivors (a test must fail when any of these breaks)"
say "mutants: $killed killed, $survived survived"
[ $survived -eq 0 ] && [ $broken -eq 0 ]
