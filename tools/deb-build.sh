#!/bin/bash
# Builds the Debian package from a copy of the tree (the files git would commit: tracked
# and untracked, not ignored) in OUTDIR/gpu-provision-VERSION, so that dpkg-buildpackage's
# products (.deb, .buildinfo, .changes, debian/ staging) land in OUTDIR, never in the tree.
# Usage: tools/deb-build.sh OUTDIR [VERSION]
#   VERSION: build under another version (deb-check's previous one); by default the
#   version of debian/changelog, which must be the Makefile's VERSION.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$1
want=${2:-}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
upstream=$(sed -n 's/^VERSION *:= *//p' "$top/Makefile")
if [ -z "$want" ] && [ "$version" != "$upstream" ]; then
	echo "deb: debian/changelog says $version, the Makefile's VERSION $upstream: add a" \
		"changelog entry for $upstream" >&2
	exit 1
fi
version=${want:-$version}
src=$out/gpu-provision-$version
rm -rf "$src"
mkdir -p "$src"
(cd "$top" && git ls-files -z -c -o --exclude-standard) | (cd "$top" &&
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done) |
	(cd "$top" && tar --null -T - -cf -) | tar -xf - -C "$src"
if [ -n "$want" ]; then
	sed -i "1s/([^)]*)/($want)/" "$src/debian/changelog"
fi
echo "deb: dpkg-buildpackage -us -uc -b in $src"
(cd "$src" && dpkg-buildpackage -us -uc -b >"$out/build-$version.log" 2>&1) || {
	tail -n 40 "$out/build-$version.log" >&2
	echo "deb: the build failed: $out/build-$version.log" >&2
	exit 1
}
ls "$out"/gpu-provision_"$version"_*.deb
