#!/bin/bash
# make deb-check: the Debian package built on a Debian release, checked by that release's
# lintian, and installed, upgraded, removed and purged in a clean chroot of that release
# (its minbase tree, tools/platform.sh --base, copied per run), with its dependencies from
# the mirror. The previous version is this tree built under VERSION~prev (debian/changelog's
# first line changed in the scratch copy): the upgrade path, not an old tree's behaviour.
# Also: make install and make uninstall into a DESTDIR leave no file behind.
# Each SUITE other than this machine's own release is checked in a fresh tree of that
# release (tools/platform.sh --worktree: this checkout as it is, uncommitted changes too).
# Usage (as root): tools/deb-check.sh OUTDIR [SUITE...]   (default: this machine's release)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: tools/deb-check.sh OUTDIR [bookworm|trixie|sid...]}
shift
[ "$(id -u)" -eq 0 ] || { echo "deb-check: run as root (chroot, apt in it)" >&2; exit 1; }

# This machine's release as debootstrap names it: sid's os-release names the next one.
here=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
grep -q '/sid$' /etc/debian_version 2>/dev/null && here=sid
if [ $# -gt 0 ]; then
	rc=0 done_list=""
	for suite in "$@"; do
		case $suite in
		bookworm | trixie | sid) ;;
		*) echo "deb-check: unknown suite \"$suite\" (bookworm, trixie or sid)" >&2; exit 2 ;;
		esac
		echo "deb-check: on $suite"
		src=0
		if [ "$suite" = "$here" ]; then
			"$0" "$out" || src=$?
		else
			"$top/tools/platform.sh" --worktree "$suite" v2 \
				'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends make >/dev/null' \
				"make deb-check DEB_SUITES=$suite" || src=$?
		fi
		if [ "$src" -eq 0 ]; then
			done_list="$done_list $suite: passed;"
		else
			done_list="$done_list $suite: FAILED (exit $src);" rc=1
		fi
	done
	echo "deb-check:${done_list%;}"
	exit "$rc"
fi
BASE=$("$top/tools/platform.sh" --base "$here")
CACHE=${GP_PLATFORM_CACHE:-/var/cache/gpu-provision-ci/fresh}
DEBS=$CACHE/archives-$here
MIRROR=${GP_MIRROR:-http://deb.debian.org/debian}
echo "deb-check: Debian $here ($(cat /etc/debian_version)), lintian $(lintian --print-version 2>/dev/null || echo missing)"

passed=0 failed=0
ok() { echo "  ok   $*"; passed=$((passed + 1)); }
bad() { echo "  FAIL $*"; failed=$((failed + 1)); }
expect() { # expect WHAT COMMAND...: the command succeeds
	local what=$1; shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
old=$version~prev
echo "deb-check: building $old and $version"
"$top/tools/deb-build.sh" "$out" "$old" >/dev/null
"$top/tools/deb-build.sh" "$out" >/dev/null
out=$(cd "$out" && pwd)
new_deb=$out/gpu-provision_${version}_amd64.deb
old_deb=$out/gpu-provision_${old}_amd64.deb

echo "deb-check: lintian (errors and warnings fail; overrides in debian/, each with its reason)"
lintian_rc=0
lintian --fail-on error,warning "$new_deb" >"$out/lintian.log" 2>&1 || lintian_rc=$?
grep -v 'running with root privileges' "$out/lintian.log" | sed 's/^/         /' || true
expect "lintian: no error, no warning" test "$lintian_rc" -eq 0

W=$(mktemp -d /tmp/gp-deb-check.XXXXXX)
R=$W/root
trap 'rm -rf "$W"' EXIT

echo "deb-check: make install, make uninstall into a DESTDIR"
make -s -C "$top" BUILD="$out/obj" PREFIX=/usr all >/dev/null
make -s -C "$top" BUILD="$out/obj" PREFIX=/usr DESTDIR="$W/destdir" install >/dev/null
expect "make install: gpu-provision, gpu-hook, the conffile" test -x "$W/destdir/usr/sbin/gpu-provision" \
	-a -x "$W/destdir/usr/libexec/gpu-provision/gpu-hook" \
	-a -f "$W/destdir/etc/gpu-provision/gpu-provision.conf"
make -s -C "$top" BUILD="$out/obj" PREFIX=/usr DESTDIR="$W/destdir" uninstall >/dev/null
left=$(find "$W/destdir" ! -type d)
expect "make uninstall leaves no file${left:+: $left}" test -z "$left"

mkdir -p "$DEBS"
cp -a "$BASE" "$R"
rm -f "$R/.complete"
cp /etc/resolv.conf "$R/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' >"$R/usr/sbin/policy-rc.d" # no service starts in the chroot
chmod 755 "$R/usr/sbin/policy-rc.d"
cp "$DEBS"/*.deb "$R/var/cache/apt/archives/" 2>/dev/null || true
cp "$old_deb" "$new_deb" "$R/tmp/"
in_root() { chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
apt_in_root() {
	in_root apt-get -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
		--no-install-recommends "$@" >>"$W/apt.log" 2>&1 || {
		tail -n 30 "$W/apt.log"; echo "deb-check: apt-get $* failed in the chroot" >&2; exit 1; }
}
# The tree as paths, types and modes (and contents under etc/), without what apt and dpkg
# keep for themselves (logs, caches, lists, the status database; their info/ files stay).
snapshot() {
	(cd "$R" && find . -xdev -printf '%P\t%y\t%m\n' | grep -Ev \
		'^(var/cache/|var/lib/apt/|var/log/|var/lib/dpkg/[^i]|tmp/|run/|dev/|proc/)' | sort
	 find etc -xdev -type f -exec md5sum {} + | sort -k2)
}
conffile=$R/etc/gpu-provision/gpu-provision.conf
files=(usr/sbin/gpu-provision usr/libexec/gpu-provision/gpu-hook usr/libexec/gpu-provision/gpu-probe
	usr/share/gpu-provision/example.ini usr/share/gpu-provision/lxc-gpu.conf
	usr/share/gpu-provision/pve-hookscript.sh lib/systemd/system/gpu-provision-prepare.service)
# Besides those: every file the package holds but its conffile (man pages, other units).
mapfile -t held < <(dpkg-deb --fsys-tarfile "$new_deb" | tar -t | sed -n 's|^\./||; /[^/]$/p' |
	grep -v '^etc/gpu-provision/gpu-provision.conf$')
all_present() { local f; for f in "${files[@]}" "${held[@]}"; do [ -f "$R/$f" ] || return 1; done; }
none_present() { local f; for f in "${files[@]}" "${held[@]}"; do [ ! -e "$R/$f" ] || return 1; done; }
status() { in_root dpkg-query -W -f='${Status} ${Version}' gpu-provision 2>/dev/null || true; }

echo "deb-check: the dependencies from $MIRROR, then a snapshot of the chroot"
apt_in_root update
apt_in_root satisfy "$(dpkg-deb -f "$new_deb" Depends)"
snapshot >"$W/before"

echo "deb-check: apt-get install ./$(basename "$old_deb")"
apt_in_root install "/tmp/$(basename "$old_deb")"
expect "installed $old" test "$(status)" = "install ok installed $old"
expect "files at their FHS paths (${#held[@]} in the package)" all_present
expect "gpu-provision.conf is a conffile" \
	grep -q '^ /etc/gpu-provision/gpu-provision.conf ' <(in_root dpkg-query -W -f='${Conffiles}\n' gpu-provision)
expect "the shipped gpu-provision.conf sets nothing" test -z "$(grep -Ev '^[[:space:]]*([#;]|\[|$)' "$conffile")"
expect "gpu-provision runs: --version" in_root /usr/sbin/gpu-provision --version
expect "gpu-hook is linked statically" \
	bash -c "! LC_ALL=C readelf -d '$R/usr/libexec/gpu-provision/gpu-hook' | grep -q NEEDED"
expect "no unit of the package is enabled" \
	test -z "$(find "$R/etc/systemd" -name 'gpu-provision-*' 2>/dev/null)"

echo "deb-check: an admin edits gpu-provision.conf; upgrade to $version"
sed -i 's/^;timeout = 30$/timeout = 45/' "$conffile"
cp "$conffile" "$W/conf.edited"
apt_in_root install "/tmp/$(basename "$new_deb")"
expect "upgraded to $version" test "$(status)" = "install ok installed $version"
expect "files at their FHS paths (${#held[@]} in the package)" all_present
expect "the edited conffile is kept" cmp -s "$conffile" "$W/conf.edited"

echo "deb-check: a container with GPUs; apt-get remove"
mkdir -p "$R/var/lib/lxc/ct"
{ printf 'lxc.uts.name = ct\nlxc.cgroup2.devices.allow = c 195:0 rw\n'
  grep '^lxc\.hook' "$R/usr/share/gpu-provision/lxc-gpu.conf"; } >"$R/var/lib/lxc/ct/config"
sed 's/^devices = .*/devices = 0/' "$R/usr/share/gpu-provision/example.ini" >"$R/etc/gpu-provision/ct.ini"
cp "$R/var/lib/lxc/ct/config" "$W/ct.config"
cp "$R/etc/gpu-provision/ct.ini" "$W/ct.ini"
apt_in_root remove gpu-provision
expect "removed, its config files left" test "$(status)" = "deinstall ok config-files $version"
expect "files gone from their FHS paths" none_present
expect "the edited conffile is kept" cmp -s "$conffile" "$W/conf.edited"
expect "the container's config is byte-identical" cmp -s "$R/var/lib/lxc/ct/config" "$W/ct.config"
expect "the container's ini is byte-identical" cmp -s "$R/etc/gpu-provision/ct.ini" "$W/ct.ini"
expect "its hook lines now name a gpu-hook that does not exist" \
	bash -c "grep -q '^lxc.hook.pre-start = /usr/libexec/gpu-provision/gpu-hook ' '$R/var/lib/lxc/ct/config' &&
		[ ! -e '$R/usr/libexec/gpu-provision/gpu-hook' ]"

echo "deb-check: apt-get purge"
apt_in_root purge gpu-provision
expect "purged: dpkg knows it no more" test -z "$(status | grep -v '^unknown ok not-installed')"
expect "the conffile is gone" test ! -e "$conffile"
expect "the container's config is byte-identical" cmp -s "$R/var/lib/lxc/ct/config" "$W/ct.config"
expect "the container's ini is byte-identical" cmp -s "$R/etc/gpu-provision/ct.ini" "$W/ct.ini"
rm -r "$R/var/lib/lxc/ct" "$R/etc/gpu-provision/ct.ini"
# /etc/gpu-provision held ct.ini at the purge, so dpkg left it (empty now): that alone.
snapshot | grep -v -x -P 'etc/gpu-provision\td\t755' >"$W/after"
diff "$W/before" "$W/after" >"$W/diff" || true
expect "the purge leaves nothing else behind (< before, > after)" test ! -s "$W/diff"
sed 's/^/         /' "$W/diff"

cp -n "$R"/var/cache/apt/archives/*.deb "$DEBS/" 2>/dev/null || true
echo "deb-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
