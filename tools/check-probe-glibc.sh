#!/bin/sh
# The probe's build check: gpu-probe runs inside containers on their own C library, as old
# as glibc 2.28 (Debian 10, RHEL 8), so no symbol it asks of libc may be newer, whichever
# glibc builds it. Exit 0, or 1 naming each newer symbol and what to do.
# Usage: tools/check-probe-glibc.sh BINARY [MAX]   (MAX: 2.28)
set -eu
bin=$1 max=${2:-2.28}
# newer A B: A is a later version than B (dotted numbers).
newer() {
	[ "$1" != "$2" ] &&
		[ "$(printf '%s\n%s\n' "$1" "$2" | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)" = "$1" ]
}
found=0
for pair in $(objdump -T "$bin" | sed -n 's/.*(GLIBC_\([0-9][0-9.]*\)) *\([^ ]*\)$/\1@\2/p;
		s/.* GLIBC_\([0-9][0-9.]*\) *\([^ ]*\)$/\1@\2/p'); do
	version=${pair%%@*} symbol=${pair#*@}
	if newer "$version" "$max"; then
		echo "$bin: $symbol needs GLIBC_$version, newer than $max: containers with an older C library cannot run it; pin it in probe/probe.h (.symver) or do without it" >&2
		found=1
	fi
done
exit "$found"
