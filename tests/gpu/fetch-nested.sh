#!/bin/bash
# Run here (Debian 12, apt), in the checkout root, before a GPU host run of run-nested.sh:
# Debian 12's Podman 4.3.1, crun, conmon and every library they load (the C library too),
# with busybox, downloaded into .gpu-e2e/nested/ (kept out of git, carried with .gpu-e2e).
# run-nested.sh unpacks them into a container's root only, never onto the GPU host.
set -euo pipefail
top=$(git rev-parse --show-toplevel)
mkdir -p "$top/.gpu-e2e/nested"
cd "$top/.gpu-e2e/nested"
pkgs="podman crun conmon netavark golang-github-containers-common golang-github-containers-image
	libgpgme11 libassuan0 libsubid4 libyajl2 libdevmapper1.02.1 libaudit1 libaudit-common
	libbz2-1.0 libcap-ng0 libcap2 libcrypt1 libgcrypt20 libglib2.0-0 libgpg-error0 liblz4-1
	liblzma5 libpam0g libpcre2-8-0 libseccomp2 libselinux1 libsemanage2 libsemanage-common
	libsepol2 libsystemd0 libudev1 libzstd1 libc6 libgcc-s1 busybox-static"
# shellcheck disable=SC2086 # one word per package
apt-get download $pkgs 2>&1 | grep -v '^W: Download is performed unsandboxed' || true
du -sh .
