#!/bin/bash
# Commands in a fresh Debian tree of one release and one cgroup layout, on a clone of the
# committed tree: how CI proves the README and runs the tests on Debian 12, 13 and sid
# (LXC 5.0.2, 6.0.4, 7.0.0) from this one machine.
#
# A debootstrapped "minbase" SUITE (nothing but apt and the essentials: no make, no
# compiler, no LXC), copied for each run and never used in place, gets a clone of the
# committed tree in /root/gpu-provision; each CMD then runs there in order, as root, with
# bash -e, in a mount namespace of its own whose root is the tree (pivot_root, so that LXC
# can pivot_root into a container's rootfs and lxc-attach lands in the container): the
# host's /proc, /sys and /dev are bound in, /run and /tmp are empty tmpfs, /run/lock is the
# host's (so that flock /var/lock/gp-tests.lock in the tree and on the host is one lock).
# What one CMD installs or builds the next one finds; its mounts go with it.
#
# LAYOUT is the cgroup layout LXC sees there:
#   hybrid  the machine's own (here: cgroup v1 controllers, devices among them, and
#           cgroup2 at /sys/fs/cgroup/unified)
#   v2      pure cgroup v2, as Proxmox VE 8 and 9 boot: the namespace's /sys/fs/cgroup is
#           only a cgroup2 mount, so device rules are lxc.cgroup2.devices.*, enforced by a
#           BPF program; the host's own cgroup mounts are untouched
#
# Cached under $GP_PLATFORM_CACHE (default /var/cache/gpu-provision-ci/fresh): each suite's
# tree (SUITE-minbase) and apt's downloaded packages (archives-SUITE, linked into each
# run's tree), so that a warm run
# spends its time in the commands, not in downloads.
#
# The cache is bound at the same path in the tree (tools/deb-check.sh there copies its
# clean chroot from the suite's cached tree).
#
# Usage: tools/platform.sh [--worktree] [--keep] SUITE LAYOUT CMD...
#        tools/platform.sh --base SUITE    makes the suite's cached tree if missing; prints its path
#   SUITE     bookworm (12), trixie (13) or sid (unstable)
#   --worktree  the clone gets this checkout's uncommitted changes and untracked files too
#   --keep    the run's copy of the tree is kept (its path is printed)
# Exit: 0 every command passed; else the first failing one's exit code; 2 bad usage.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${GP_PLATFORM_CACHE:-/var/cache/gpu-provision-ci/fresh}
mirror=${GP_MIRROR:-http://deb.debian.org/debian}
say() { printf 'platform: %s\n' "$*"; }
usage() {
	echo "usage: tools/platform.sh [--worktree] [--keep] bookworm|trixie|sid hybrid|v2 CMD..." >&2
	echo "       tools/platform.sh --base bookworm|trixie|sid" >&2
	exit 2
}

worktree="" keep="" base_only=""
while [ $# -gt 0 ]; do
	case $1 in
	--base) base_only=1 ;;
	--worktree) worktree=1 ;;
	--keep) keep=1 ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) echo "platform: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
	shift
done
if [ -n "$base_only" ]; then
	[ $# -eq 1 ] || usage
	set -- "$1" v2 true
fi
[ $# -ge 3 ] || usage
suite=$1 layout=$2
shift 2
case $suite in
bookworm | trixie | sid) ;;
*) echo "platform: unknown suite \"$suite\" (bookworm, trixie or sid)" >&2; exit 2 ;;
esac
case $layout in
hybrid | v2) ;;
*) echo "platform: unknown cgroup layout \"$layout\" (hybrid or v2)" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { say "run as root (it debootstraps and mounts)"; exit 2; }
command -v debootstrap >/dev/null || { say "needs debootstrap (make deps)"; exit 2; }
if [ -z "$base_only" ] && [ "$layout" = hybrid ] && ! grep -q ' /sys/fs/cgroup/devices ' /proc/self/mountinfo; then
	say "this machine has no cgroup v1 devices hierarchy: the hybrid layout is not here (use v2)"
	exit 2
fi

base=$cache/$suite-minbase
archives=$cache/archives-$suite
if [ ! -e "$base/.complete" ]; then
	say "debootstrap --variant=minbase $suite (once; cached in $base)" >&2
	rm -rf "$base.tmp"
	mkdir -p "$cache"
	debootstrap --variant=minbase "$suite" "$base.tmp" "$mirror" >"$cache/debootstrap-$suite.log" 2>&1 ||
		{ tail -20 "$cache/debootstrap-$suite.log"; exit 1; }
	rm -rf "$base"
	mv "$base.tmp" "$base"
	touch "$base/.complete"
fi
# sid's Release file is often past its Valid-Until on the mirror; apt refuses it otherwise.
if [ "$suite" = sid ]; then
	echo 'Acquire::Check-Valid-Until "false";' >"$base/etc/apt/apt.conf.d/99gp-no-valid-until"
fi
mkdir -p "$archives/partial"
if [ -n "$base_only" ]; then
	echo "$base"
	exit 0
fi

work=$(mktemp -d /var/tmp/gp-platform.XXXXXX)
root=$work/root
cleanup() {
	if [ -n "$keep" ]; then say "kept $root (--keep)"; return; fi
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cp -a "$base" "$root"
rm -f "$root/.complete"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The cached packages linked in, and the new ones linked back after each command: trees of
# one suite that run at the same time share the files, not apt's lock on the directory
# (copies where the cache is on another file system).
link_debs() { # link_debs FROM TO: each .deb of FROM that TO lacks
	local f
	for f in "$1"/*.deb; do
		if [ -e "$f" ] && [ ! -e "$2/${f##*/}" ]; then
			ln "$f" "$2/" 2>/dev/null || cp "$f" "$2/"
		fi
	done
}
link_debs "$archives" "$root/var/cache/apt/archives"
keep_debs() { link_debs "$root/var/cache/apt/archives" "$archives" || true; }
git clone -q "$top" "$root/root/gpu-provision"
what="clone of $(git -C "$top" rev-parse --short HEAD)"
if [ -n "$worktree" ]; then
	git -C "$top" diff --binary HEAD | git -C "$root/root/gpu-provision" apply --allow-empty
	(cd "$top" && git ls-files -z --others --exclude-standard |
		xargs -0r cp --parents -a -t "$root/root/gpu-provision")
	what="$what with this checkout's changes"
fi
say "$what in a fresh minbase $suite, cgroup layout $layout"

# One command, in the tree's own mount namespace, from the clone.
in_tree() {
	# shellcheck disable=SC2016 # the script is expanded by the inner shell, with its arguments
	unshare --mount --propagation private -- /bin/bash -euo pipefail -c '
		root=$1 layout=$2 cmd=$3 cache=$4 mirror=$5
		mount --bind "$root" "$root"
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		if [ "$layout" = v2 ]; then
			umount -R "$root/sys/fs/cgroup" 2>/dev/null || umount -l "$root/sys/fs/cgroup"
			mount -t cgroup2 none "$root/sys/fs/cgroup"
		fi
		mount --rbind /dev "$root/dev"
		mount -t tmpfs -o mode=0755 tmpfs "$root/run"
		mkdir -p "$root/run/lock" /run/lock
		mount --bind /run/lock "$root/run/lock"
		mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
		mkdir -p "$root$cache"
		mount --bind "$cache" "$root$cache"
		# pivot_root, not chroot: the namespace'"'"'s root must be this tree, or LXC cannot
		# pivot_root into a container and lxc-attach would land on the host'"'"'s root.
		mkdir -p "$root/.host"
		cd "$root"
		pivot_root . .host
		umount -l /.host
		cd /
		exec /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 GP_PLATFORM_CACHE="$cache" \
			GP_MIRROR="$mirror" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/bash -euo pipefail -c "cd /root/gpu-provision && $cmd"
	' platform "$root" "$layout" "$1" "$cache" "$mirror"
}

n=0
for cmd in "$@"; do
	n=$((n + 1))
	say "[$n] $cmd"
	t0=$SECONDS
	rc=0
	in_tree "$cmd" || rc=$?
	keep_debs
	if [ "$rc" -ne 0 ]; then
		say "[$n] failed with exit code $rc after $((SECONDS - t0)) s: $cmd ($suite, $layout)"
		exit "$rc"
	fi
	say "[$n] passed in $((SECONDS - t0)) s"
done
say "all $n commands passed on $suite, cgroup layout $layout"
