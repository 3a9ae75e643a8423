#!/bin/sh
# debian/control's Build-Depends (besides debhelper-compat) and Depends (besides the
# substvars) must be exactly tools/packages' build and run roles: the packages are listed
# once, and one added to either list alone fails here (run by make deb).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
list=$top/tools/packages
control=$top/debian/control
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The names of one field of debian/control, one a line, sorted, without versions.
field() {
	awk -v f="$1" '
		/^#/ { next }
		$0 ~ "^" f ":" { on = 1; sub("^" f ":", ""); print; next }
		on && /^[ \t]/ { print; next }
		{ on = 0 }' "$control" |
		tr ',' '\n' | sed -e 's/([^)]*)//' -e 's/\[[^]]*\]//' -e 's/^[ \t]*//' \
			-e 's/[ \t]*$//' | grep -v -e '^$' -e '^\${' -e '^debhelper-compat$' | sort
}
role() {
	awk -v r="$1" '$1 !~ /^#/ && ("," $1 ",") ~ ("," r ",") { print $2 }' "$list" | sort
}

rc=0
for pair in Build-Depends:build Depends:run; do
	f=${pair%%:*} r=${pair#*:}
	field "$f" >"$tmp/control"
	role "$r" >"$tmp/packages"
	if ! cmp -s "$tmp/control" "$tmp/packages"; then
		echo "debian/control's $f and tools/packages' $r role differ" \
			"(< only in debian/control, > only in tools/packages):" >&2
		diff "$tmp/control" "$tmp/packages" | grep '^[<>]' >&2 || true
		rc=1
	fi
done
[ "$rc" -eq 0 ] && echo "check-debian-deps: Build-Depends and Depends are tools/packages' build and run roles"
exit "$rc"
