#!/bin/bash
# The GPU host run of a nested runtime: Podman from Debian 12 in an LXC container that
# gpu-provision gave the real GPU, its driver's user space injected, privileged and
# unprivileged. The LXC container holds no NVIDIA file and nothing of the host's /usr: its
# root is Debian 12's podman, crun, conmon and their libraries (tests/gpu/fetch-nested.sh
# carries the packages; they are unpacked into the container's root only) and busybox.
# The nested image "plain" is Debian's C library and busybox, with cuinit (a CUDA program)
# and gpu-probe, and no NVIDIA file either: `podman run --device nvidia.com/gpu=...` of it
# reads the start's CDI spec, runs nvidia-smi and cuinit on the GPU, and gpu-provision probe
# --nested reports from there. Then the time of a nested podman run of nvidia-smi beside
# nvidia-smi in the LXC container itself.
# On a GPU host, from the checkout root, after make gpu-tools and tests/gpu/fetch-nested.sh
# here (tests/gpu/e2e-lib.sh says what else): bash tests/gpu/run-nested.sh. The last line
# is "N passed, N failed".
set -uo pipefail
. tests/gpu/e2e-lib.sh

gp() { "$GP" --lxcpath "$P" --confdir "$CONF" "$@"; }
debs=$top/.gpu-e2e/nested
ls "$debs"/podman_*.deb >/dev/null 2>&1 || { echo "no Podman packages in $debs: run tests/gpu/fetch-nested.sh on the build machine"; exit 1; }
lib=/lib/x86_64-linux-gnu

# image ROOT: the nested image "plain" at ROOT/root/plain: the container's own (Debian's)
# loader, libc, libdl, libm, libpthread, librt, busybox, cuinit and gpu-probe, and a loader
# cache of its own, which names no driver library.
image() {
	local r=$1 i=$1/root/plain f
	mkdir -p "$i/bin" "$i$lib" "$i/lib64" "$i/etc" "$i/tmp" "$i/dev" "$i/proc" "$i/sys"
	for f in ld-linux-x86-64.so.2 libc.so.6 libdl.so.2 libm.so.6 libpthread.so.0 librt.so.1; do
		cp -L "$r$lib/$f" "$i$lib/"
	done
	ln -s "$lib/ld-linux-x86-64.so.2" "$i/lib64/ld-linux-x86-64.so.2"
	cp "$r/bin/busybox" "$i/bin/"
	for f in sh ls cat; do ln -s busybox "$i/bin/$f"; done
	cp "$top/build/cuinit" "$top/build/gpu-probe" "$i/bin/"
	ldconfig -r "$i"
}

# podct NAME MODE: the Podman container, attached to GPU 0 with injection, started, the
# image imported.
podct() {
	local n=$1 r=$P/$1/rootfs d t
	mkct "$n" # its config, less the host's /usr; Podman's locks and state on tmpfs
	sed -i '/^lxc.mount.entry = /d' "$P/$n/config"
	printf '%s\n' 'lxc.mount.entry = tmpfs dev/shm tmpfs rw,nosuid,nodev,create=dir 0 0' \
		'lxc.mount.entry = tmpfs run tmpfs rw,nosuid,nodev,mode=0755 0 0' >>"$P/$n/config"
	for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$r"; done
	mkdir -p "$r/root" "$r/var/tmp" "$r/etc/containers"
	for t in $("$r/bin/busybox" --list); do
		[ -e "$r/bin/$t" ] || [ -e "$r/usr/bin/$t" ] || ln -s busybox "$r/bin/$t"
	done
	echo 'root:x:0:0:root:/root:/bin/sh' >"$r/etc/passwd"
	echo 'root:x:0:' >"$r/etc/group"
	ldconfig -r "$r"
	printf '%s\n' '[storage]' 'driver = "vfs"' 'runroot = "/run/containers/storage"' \
		'graphroot = "/var/lib/containers/storage"' >"$r/etc/containers/storage.conf"
	printf '%s\n' '[containers]' 'cgroups = "disabled"' '[engine]' 'events_logger = "file"' \
		>"$r/etc/containers/containers.conf"
	image "$r"
	if [ "$2" = unprivileged ]; then
		printf '%s\n' "lxc.idmap = u 0 100000 65536" "lxc.idmap = g 0 100000 65536" >>"$P/$n/config"
		chown -R 100000:100000 "$r"
		chmod 755 "$P/$n"
	fi
	step gp attach "$n" --gpus 0 --inject
	expect "$n: attach --inject" 0 "$rc"
	lxc-start -P "$P" -n "$n" -l DEBUG -o "/tmp/$n.log" || grep -vE 'DEBUG|INFO' "/tmp/$n.log" | tail -20
	expect "$n: state" RUNNING "$(lxc-info -P "$P" -n "$n" -sH)"
	step run_in "$n" /bin/sh -c 'tar -C /root/plain -c . | podman import -q - plain >/dev/null 2>&1; podman images --format "{{.Repository}}"'
	expect_grep "$n: image imported" 'plain' "$out"
}

# prun NAME ARGS...: a nested container of the image, as compose would run it.
prun() {
	local n=$1
	shift
	run_in "$n" /bin/sh -c "podman run --rm --network none --cgroups disabled $* 2>&1"
}

nested() { # nested NAME MODE
	local n=$1 uuid
	uuid=$(gpu_table | awk '$1 == 0 {print $4}')
	say "$n ($2): Podman nested, GPU 0 given"
	podct "$n" "$2"
	run_in "$n" podman --version
	step run_in "$n" /bin/sh -c "find / -xdev -type f \( -name 'libcuda*' -o -name 'libnvidia*' -o -name nvidia-smi \) 2>/dev/null; echo end"
	expect "$n: no NVIDIA file of its own" end "$out"
	step run_in "$n" /bin/sh -c 'ls -l /etc/cdi; head -c 300 /etc/cdi/*'
	step prun "$n" --device nvidia.com/gpu=all plain sh -c "'ls /dev; cat /proc/self/mountinfo'"
	expect_grep "$n: gpu=all: nvidia0 in the nested /dev" '^nvidia0$' "$out"
	expect_grep "$n: gpu=all: nvidia-uvm in the nested /dev" '^nvidia-uvm$' "$out"
	step prun "$n" --device nvidia.com/gpu=all plain nvidia-smi -L
	expect "$n: nested nvidia-smi -L: exit" 0 "$rc"
	expect_grep "$n: nested nvidia-smi -L names GPU 0" "$uuid" "$out"
	step prun "$n" --device nvidia.com/gpu=0 plain /bin/cuinit
	expect "$n: nested cuInit (gpu=0)" "cuInit 0 CUDA_SUCCESS devices 1" \
		"$(grep -o '^cuInit [0-9]* [A-Z_]*' <<<"$out") $(grep '^devices ' <<<"$out")"
	step prun "$n" --device "nvidia.com/gpu=$uuid" plain /bin/cuinit
	expect "$n: nested cuInit (by UUID)" "cuInit 0 CUDA_SUCCESS devices 1" \
		"$(grep -o '^cuInit [0-9]* [A-Z_]*' <<<"$out") $(grep '^devices ' <<<"$out")"
	step prun "$n" plain /bin/cuinit
	expect_grep "$n: without --device: no libcuda" 'libcuda' "$out"
	step gp probe "$n" --nested plain
	expect "$n: probe --nested" "0 probe $n (nested: podman, plain): ok" \
		"$rc $(head -1 <<<"$out" | grep -o "^probe $n (nested: podman, plain): [a-z]*")"
	step gp probe "$n"
	expect "$n: probe" "0 probe $n: ok" "$rc $(head -1 <<<"$out" | grep -o "^probe $n: [a-z]*")"
	say "$n: ms of nvidia-smi -L: nested podman run, in the LXC container (lxc-attach)"
	local i t a=() b=()
	for i in 1 2 3 4 5; do
		t=$(date +%s%N)
		prun "$n" --device nvidia.com/gpu=all plain nvidia-smi -L >/dev/null
		a+=("$(ms_since "$t")")
		t=$(date +%s%N)
		run_in "$n" /usr/bin/nvidia-smi -L >/dev/null 2>&1
		b+=("$(ms_since "$t")")
	done
	echo "nested: ${a[*]}"
	echo "lxc:    ${b[*]}"
	echo "medians: nested $(printf '%s\n' "${a[@]}" | sort -n | sed -n 3p) ms, lxc $(printf '%s\n' "${b[@]}" | sort -n | sed -n 3p) ms"
	lxc-stop -P "$P" -n "$n" -k
}

say "host: $(uname -r); lxc $(lxc-start --version); driver $(grep -o ' [0-9][0-9]*\.[0-9][0-9.]* ' /proc/driver/nvidia/version | head -1)"
nested np privileged
nested nu unprivileged
