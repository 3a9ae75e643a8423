#!/bin/bash
# The README's first commands on a fresh Debian 12 userland, as a new admin runs them.
#
# A debootstrapped "minbase" bookworm (nothing but apt and the essentials: no make, no
# compiler, no LXC) gets a fresh clone of the committed tree in /root/gpu-provision; then
# the commands of the README's first ```sh block run there in order, as root, each from
# the clone (sudo left out: we are root, and minbase has no sudo). LXC containers start
# inside it: it is entered with its own mount namespace, the host's /proc, /sys (the
# cgroup tree with it) and /dev bound in, and the tree made that namespace's root by
# pivot_root, so that LXC can pivot_root into a container's rootfs and lxc-attach lands
# in the container.
#
# Cached between runs under $FRESH_CACHE (default /var/cache/gpu-provision-ci/fresh): the
# debootstrapped tree (copied for each run, never used in place) and apt's downloaded
# packages, so a warm run spends its time in the README's commands, not in downloads.
#
# Usage: tools/fresh-check.sh        Exit: 0 every command passed; else the failing one's.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FRESH_CACHE:-/var/cache/gpu-provision-ci/fresh}
base=$cache/bookworm-minbase
mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}
say() { printf 'fresh: %s\n' "$*"; }

[ "$(id -u)" -eq 0 ] || { say "run as root (it debootstraps and mounts)"; exit 2; }
command -v debootstrap >/dev/null || { say "needs debootstrap (make deps)"; exit 2; }

# The README's first ```sh block, comments and blank lines aside.
commands=$(awk '/^```sh$/ && !seen { inblock = 1; seen = 1; next }
	inblock && /^```$/ { exit }
	inblock { sub(/[ \t]*#.*/, ""); if (length($0)) print }' "$top/README.md")
[ -n "$commands" ] || { say "no \`\`\`sh block in README.md"; exit 2; }

if [ ! -e "$base/.complete" ]; then
	say "debootstrap --variant=minbase bookworm (once; cached in $base)"
	rm -rf "$base"
	mkdir -p "$cache"
	debootstrap --variant=minbase bookworm "$base" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
		{ tail -20 "$cache/debootstrap.log"; exit 1; }
	touch "$base/.complete"
fi
mkdir -p "$cache/archives/partial"

work=$(mktemp -d /var/tmp/gp-fresh.XXXXXX)
root=$work/root
cleanup() {
	[ -n "${FRESH_KEEP:-}" ] && { say "kept $work (FRESH_KEEP)"; return; }
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cp -a "$base" "$root"
rm -f "$root/.complete"
cp /etc/resolv.conf "$root/etc/resolv.conf"
git clone -q "$top" "$root/root/gpu-provision"
say "clone of $(git -C "$top" rev-parse --short HEAD) in a fresh minbase bookworm"

# One command, in the tree's own mount namespace, from the clone; its mounts go with it.
in_fresh() {
	# shellcheck disable=SC2016 # the script is expanded by the inner shell, with its arguments
	unshare --mount --propagation private -- /bin/bash -euo pipefail -c '
		root=$1 archives=$2 cmd=$3
		mount --bind "$root" "$root"
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		mount --rbind /dev "$root/dev"
		mount -t tmpfs -o mode=0755 tmpfs "$root/run"
		mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
		mount --bind "$archives" "$root/var/cache/apt/archives"
		# pivot_root, not chroot: the namespace'"'"'s root must be this tree, or LXC cannot
		# pivot_root into a container and lxc-attach would land on the host'"'"'s root.
		mkdir -p "$root/.host"
		cd "$root"
		pivot_root . .host
		umount -l /.host
		cd /
		exec /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/bash -euo pipefail -c "cd /root/gpu-provision && $cmd"
	' fresh "$root" "$cache/archives" "$1"
}

n=0
while IFS= read -r cmd; do
	n=$((n + 1))
	run=$(sed -E 's/(^|&& *)sudo /\1/g' <<<"$cmd")
	say "[$n] $cmd"
	t0=$SECONDS
	rc=0
	in_fresh "$run" || rc=$?
	if [ "$rc" -ne 0 ]; then
		say "[$n] failed with exit code $rc after $((SECONDS - t0)) s: $cmd"
		exit "$rc"
	fi
	say "[$n] passed in $((SECONDS - t0)) s"
done <<<"$commands"
say "all $n commands of the README passed on a fresh Debian 12"
