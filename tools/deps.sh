#!/bin/sh
# Installs, through apt, the build, test and runtime packages that are missing; nothing else.
set -eu
pkgs="gcc make pkg-config lxc lxc-dev libkmod-dev libblkid-dev libinih-dev libjson-c-dev
zlib1g-dev libcmocka-dev busybox-static kmod debootstrap valgrind
clang libclang-rt-14-dev prometheus jq"
missing=""
for p in $pkgs; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -z "$missing" ]; then
	echo "deps: all installed"
	exit 0
fi
echo "deps: installing:$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: run as root (sudo make deps) to install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
