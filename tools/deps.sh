#!/bin/sh
# Installs, through apt, the packages of tools/packages that are missing; nothing else.
# Usage: tools/deps.sh [ROLE...]   (default: every role)
set -eu
list=$(dirname "$0")/packages
roles=${*:-build run demo pkg test}
pkgs=""
for role in $roles; do
	pkgs="$pkgs $(awk -v r="$role" '$1 !~ /^#/ && ("," $1 ",") ~ ("," r ",") { print $2 }' "$list")"
done
# shellcheck disable=SC2086 # one package a word
pkgs=$(printf '%s\n' $pkgs | sort -u)
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
# Packages installed for the tests are tools here, not services: the ones Debian enables
# and starts on install are stopped and disabled again (only those installed just now).
for p in $missing; do
	case $p in
	prometheus | prometheus-node-exporter)
		systemctl disable --now "$p.service" >/dev/null 2>&1 || true
		echo "deps: $p installed for the tests; its service disabled"
		;;
	esac
done
