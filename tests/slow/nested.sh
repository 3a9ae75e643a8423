#!/bin/bash
# make check-nested: Podman from Debian 12 (privileged and unprivileged) and Docker from
# Debian 13 (docker.io 26.1, CDI turned on) nested in a real LXC container that gpu-provision
# gave two of a fixture host's four GPUs, with the driver's user space of test doubles
# injected: `podman run --device nvidia.com/gpu=...` of an image with no NVIDIA file (a
# glibc, busybox and a loader cache of its own) reads the start's CDI spec, runs nvidia-smi
# (the double) from the injected files and sees only the given GPUs' nodes; another GPU's
# node it makes is not openable. The container's tree (minbase bookworm with podman, crun,
# conmon, netavark; minbase trixie with docker.io) is made once and cached outside the repo.
# Then gpu-provision probe --nested in each: ok with the given GPUs, a hang timed out with
# no nested container left, an image missing, an image without glibc, a runtime absent.
#
# crun needs /sys/fs/cgroup to be cgroup2, so on a hybrid host this runs in a mount
# namespace that shows only cgroup2 there (as tools/platform.sh's v2 view). This machine's
# bounding set lacks CAP_SYS_RESOURCE, without which crun cannot load its device program:
# podman runs with --cgroups disabled, and the LXC container's own device rules (BPF, from
# attach) are what keeps the other GPUs out, which the test proves.
set -euo pipefail
if [ -z "${GP_NESTED_VIEW:-}" ] && [ "$(stat -fc %T /sys/fs/cgroup)" != cgroup2fs ]; then
	exec unshare -m --propagation private -- bash -c \
		'umount -R /sys/fs/cgroup 2>/dev/null || umount -l /sys/fs/cgroup
		mount -t cgroup2 none /sys/fs/cgroup && GP_NESTED_VIEW=1 exec "$0" "$@"' "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "check-nested: run as root" >&2; exit 1; }
CACHES=${GP_CACHE:-/var/cache/gpu-provision}
# tree SUITE PACKAGES: the cached minbase tree of SUITE with PACKAGES, made once (moved into
# place only when debootstrap passed); its path.
tree() {
	local dir=$CACHES/$1-${2%%,*}
	if [ ! -d "$dir" ]; then
		command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
		rm -rf "$dir.tmp"
		mkdir -p "$CACHES"
		echo "check-nested: debootstrap --variant=minbase $1 with $2 (once, cached in $dir)" >&2
		debootstrap --variant=minbase --include="$2,busybox-static" "$1" "$dir.tmp" \
			http://deb.debian.org/debian >/dev/null
		mv "$dir.tmp" "$dir"
	fi
	echo "$dir"
}
PODMAN=$(tree bookworm podman,crun,conmon,netavark)
DOCKER=$(tree trixie docker.io,docker-cli)
use_trusted_install || exit 1 # attach writes only a gpu-hook root alone can change
WORK=$(mktemp -d /tmp/gp-nested.XXXXXX)
chmod 755 "$WORK"
P=$WORK/lxc CONF=$WORK/conf US=550.54.14
mkdir -p "$P" "$CONF"
trap 'for c in nest unest dock; do lxc-stop -P "$P" -n $c -k >/dev/null 2>&1 || true; done; rm -rf "$WORK" ${GP_INSTALLED:+"$GP_INSTALLED"}' EXIT
passed=0 failed=0
expect() { # expect DESCRIPTION WANT TEXT: TEXT has the line WANT (fixed string)
	if printf '%s\n' "$3" | grep -qF -- "$2"; then passed=$((passed + 1)); else
		echo "not ok: $1: no [$2] in:"; printf '%s\n' "$3"; failed=$((failed + 1)); fi
}
gp() { "$GP" --root "$WORK/root" --confdir "$CONF" --lxcpath "$P" "$@"; }

# image TREE DIR: a glibc image with no NVIDIA file: the loader, libc and libdl of the
# cached TREE, busybox, and a loader cache of its own (which names no driver library).
image() {
	local CACHE=$1 dir=$2 lib=/lib/x86_64-linux-gnu
	mkdir -p "$dir/bin" "$dir$lib" "$dir/lib64" "$dir/etc" "$dir/tmp" "$dir/dev" "$dir/proc" "$dir/sys"
	cp "$CACHE$lib/libc.so.6" "$CACHE$lib/libdl.so.2" "$CACHE$lib/ld-linux-x86-64.so.2" "$dir$lib/"
	ln -s "$lib/ld-linux-x86-64.so.2" "$dir/lib64/ld-linux-x86-64.so.2"
	cp "$CACHE/bin/busybox" "$dir/bin/"
	for t in sh ls cat mknod stat readlink; do ln -s busybox "$dir/bin/$t"; done
	ldconfig -r "$dir"
}

# container NAME MODE RUNTIME: the runtime's cached tree as a container that can run it,
# attached to GPUs 1 and 2 with the driver's user space injected, started, with the image
# "plain" imported.
container() {
	local name=$1 mode=$2 runtime=$3 cfg=$P/$1/config tree=$PODMAN
	[ "$runtime" = docker ] && tree=$DOCKER
	mkdir -p "$P/$name"
	cp -a "$tree" "$P/$name/rootfs"
	cat >"$cfg" <<EOC
lxc.uts.name = $name
lxc.rootfs.path = dir:$P/$name/rootfs
lxc.net.0.type = empty
lxc.include = /usr/share/lxc/config/common.conf
lxc.apparmor.profile = unconfined
lxc.autodev = 1
lxc.mount.entry = tmpfs dev/shm tmpfs rw,nosuid,nodev,create=dir 0 0
lxc.mount.entry = tmpfs run tmpfs rw,nosuid,nodev,mode=0755 0 0
lxc.init.cmd = /bin/sleep infinity
EOC
	# Podman runs with common.conf's cgroup:mixed proc:mixed sys:mixed; Docker was only
	# tried with proc, sys and cgroup writable.
	if [ "$runtime" = docker ]; then
		echo "lxc.mount.auto = proc:rw sys:rw cgroup:rw" >>"$cfg"
	fi
	image "$tree" "$P/$name/rootfs/root/plain"
	echo "device 0000:41:00.0 GPU-one" >"$P/$name/rootfs/root/plain/etc/fake-cuda"
	probe_images "$tree" "$P/$name/rootfs"
	if [ "$mode" = unprivileged ]; then
		ensure_subids
		printf '%s\n' "lxc.idmap = u 0 100000 65536" "lxc.idmap = g 0 100000 65536" >>"$cfg"
		chown -R 100000:100000 "$P/$name/rootfs"
		chmod 755 "$P/$name"
	fi
	gp attach "$name" --gpus 1,2 --inject >/dev/null
	lxc-start -P "$P" -n "$name" -l INFO -o "$P/$name.log"
	if [ "$runtime" = podman ]; then
		for i in $IMAGES; do
			in_ct "$P" "$name" "tar -C /root/$i -c . | podman import -q - $i >/dev/null"
		done
		return
	fi
	# Docker 26 reads CDI specs where its daemon.json turns the feature on.
	mkdir -p "$P/$name/rootfs/etc/docker"
	echo '{"storage-driver": "vfs", "iptables": false, "ip6tables": false, "bridge": "none", "features": {"cdi": true}}' >"$P/$name/rootfs/etc/docker/daemon.json"
	in_ct "$P" "$name" 'dockerd >/var/log/dockerd.log 2>&1 &'
	for _ in $(seq 100); do in_ct "$P" "$name" 'docker info >/dev/null 2>&1' && break; sleep 0.2; done
	for i in $IMAGES; do
		in_ct "$P" "$name" "tar -C /root/$i -c . | docker import - $i >/dev/null"
	done
}

# The images of the tests: plain (above), and for probe --nested: gpuprobe, whose test double
# of libcuda sees the given GPUs 1 and 2; hang, where it hangs in cuInit; static, busybox alone
# (no glibc for gpu-probe). Podman's own config makes plain "podman run" what run() runs.
IMAGES="plain gpuprobe hang static"
probe_images() {
	local tree=$1 root=$2 devices
	devices=$(jq -r '.gpus[1,2] | "device \(.pci) \(.uuid)"' "$WORK/host.json")
	image "$tree" "$root/root/gpuprobe"
	echo "$devices" >"$root/root/gpuprobe/etc/fake-cuda"
	echo "$devices" >"$root/etc/fake-cuda" # the LXC container's own probe: the same GPUs
	cp -a "$root/root/gpuprobe" "$root/root/hang"
	printf '%s\n' hang "$devices" >"$root/root/hang/etc/fake-cuda"
	mkdir -p "$root/root/static/bin"
	cp "$tree/bin/busybox" "$root/root/static/bin/"
	mkdir -p "$root/etc/containers"
	printf '%s\n' '[storage]' 'driver = "vfs"' 'runroot = "/run/containers/storage"' 'graphroot = "/var/lib/containers/storage"' >"$root/etc/containers/storage.conf"
	printf '%s\n' '[containers]' 'cgroups = "disabled"' '[engine]' 'events_logger = "file"' \
		>"$root/etc/containers/containers.conf"
}

# run NAME RUNTIME ARGS...: a nested container of the image, as compose would run it.
run() {
	local name=$1 runtime=$2
	shift 2
	if [ "$runtime" = podman ]; then
		in_ct "$P" "$name" "podman --storage-driver vfs --events-backend file run --rm --network none --cgroups disabled $* 2>&1"
	else
		in_ct "$P" "$name" "docker run --rm --network none $* 2>&1"
	fi
}

# nodes WORD...: the words sorted, as the nested container's /dev lists them.
nodes() { printf '%s\n' "$@" | sort | paste -sd' '; }

# The minor of the fixture's GPU of nvidia-smi index I.
minor_of() {
	jq -r --arg i "$1" '.gpus[] | select(.index == ($i | tonumber)) | .minor' "$WORK/host.json"
}

nested() { # nested NAME MODE RUNTIME
	local name=$1 mode="$2 $3" runtime=$3 out m0 m1 m2
	container "$name" "$2" "$runtime"
	m0=$(minor_of 0) m1=$(minor_of 1) m2=$(minor_of 2)
	out=$(run "$name" "$runtime" --device nvidia.com/gpu=all plain nvidia-smi)
	expect "$mode: nvidia-smi through the default directory" \
		"libnvidia-ml.so.1 is /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 (/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1), nvmlInit_v2 0" "$out"
	out=$(run "$name" "$runtime" --device nvidia.com/gpu=all plain ls /dev)
	expect "$mode: all: the given GPUs' nodes" "$(nodes "nvidia$m1" "nvidia$m2" nvidia-uvm nvidia-uvm-tools nvidiactl)" \
		"$(printf '%s\n' "$out" | grep nvidia | sort | paste -sd' ')"
	out=$(run "$name" "$runtime" --device nvidia.com/gpu=1 plain ls /dev)
	expect "$mode: gpu=1: its node only" "$(nodes "nvidia$m1" nvidia-uvm nvidia-uvm-tools nvidiactl)" \
		"$(printf '%s\n' "$out" | grep nvidia | sort | paste -sd' ')"
	out=$(run "$name" "$runtime" --device "nvidia.com/gpu=$(jq -r '.gpus[2].uuid' "$WORK/host.json")" plain ls /dev)
	expect "$mode: by UUID" "$(nodes "nvidia$m2" nvidia-uvm nvidia-uvm-tools nvidiactl)" \
		"$(printf '%s\n' "$out" | grep nvidia | sort | paste -sd' ')"
	# The fixture's nodes have no driver behind them: a given one opens to ENXIO; GPU 0's,
	# made in the nested container (given CAP_MKNOD for it), is stopped by the LXC
	# container's device rules; an unprivileged one's user namespace makes no node at all.
	out=$(run "$name" "$runtime" --device nvidia.com/gpu=1 --cap-add MKNOD plain sh -c "'cat /dev/nvidia$m1; mknod /tmp/n0 c 195 $m0 && cat /tmp/n0; true'")
	expect "$mode: the given GPU opens" "can't open '/dev/nvidia$m1': No such device or address" "$out"
	# Stopped at the mknod or at the open, as the nested runtime's own rules or the LXC
	# container's say: never opened.
	expect "$mode: another GPU's node" "Operation not permitted" "$(printf '%s\n' "$out" | grep /tmp/n0)"
	# A CUDA image's route: LD_LIBRARY_PATH names /usr/local/nvidia/lib64.
	out=$(run "$name" "$runtime" --device nvidia.com/gpu=all --env LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64 plain nvidia-smi)
	expect "$mode: a CUDA image's LD_LIBRARY_PATH" "libnvidia-ml.so.1 is /usr/local/nvidia/lib64/libnvidia-ml.so.1" "$out"
	out=$(run "$name" "$runtime" --device nvidia.com/gpu=3 plain true || true)
	expect "$mode: a GPU the start did not give is no device" "nvidia.com/gpu=3" "$out"
	probe_nested "$name" "$mode" "$runtime"
	lxc-stop -P "$P" -n "$name" -k
}

# ms CMD...: runs CMD, its output in $out, its exit code in $rc, its wall time (ms) in $ms.
ms() {
	local t0
	t0=$(date +%s%N)
	rc=0
	out=$("$@" 2>&1) || rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
}

# gpu-provision probe --nested IMAGE: the probe in a nested container of the LXC container's
# runtime, through the start's CDI spec; a hang, an image missing, an image without glibc.
probe_nested() {
	local name=$1 mode=$2 runtime=$3 d left
	ms gp probe "$name"
	expect "$mode: the plain probe" "probe $name: ok" "$out"
	echo "check-nested: $mode: plain probe $ms ms (exit $rc)"
	ms gp probe "$name" --nested gpuprobe
	expect "$mode: probe --nested" "probe $name (nested: $runtime, gpuprobe): ok" "$out"
	expect "$mode: probe --nested exit 0" "exit 0" "exit $rc"
	expect "$mode: probe --nested: libcuda from the spec" \
		"libcuda /usr/lib/x86_64-linux-gnu/libcuda.so.1 (the CDI spec's, injected)" "$out"
	echo "check-nested: $mode: nested probe $ms ms (exit $rc)"
	for d in 1 2; do
		expect "$mode: probe --nested sees GPU $d" \
			"$(jq -r --argjson i "$d" '.gpus[$i] | "\(.pci) \(.uuid)"' "$WORK/host.json")" "$out"
	done
	out=$(gp probe "$name" --nested gpuprobe --runtime "$runtime" --json || true)
	expect "$mode: --json says nested" "nested=true runtime=$runtime image=gpuprobe status=ok" \
		"$(jq -r '"nested=\(.nested) runtime=\(.runtime) image=\(.image) status=\(.status)"' <<<"$out")"
	# The double hangs in cuInit: a timeout within the deadline (3 s) and the cleanup's
	# own (15 s at most), and no nested container or probe file left behind.
	ms gp probe "$name" --nested hang --timeout 3
	expect "$mode: a hang in the nested container" "probe $name (nested: $runtime, hang): timeout" "$out"
	expect "$mode: the hung nested container removed" "info nested-removed" "$out"
	expect "$mode: a hang exits 1" "exit 1" "exit $rc"
	expect "$mode: the hang reported within its deadlines" "in time" \
		"$([ "$ms" -lt 18000 ] && echo "in time" || echo "$ms ms")"
	echo "check-nested: $mode: hung nested probe $ms ms"
	left=$(in_ct "$P" "$name" "$runtime ps -a --format '{{.Names}}' | grep gpu-probe; ls -d /run/gpu-probe-* /tmp/gpu-probe-* 2>/dev/null" || true)
	expect "$mode: no nested container or file left after the hang" "left: none" "left: ${left:-none}"
	# check --nested: each container's probe one level deeper, its verdict and findings.
	out=$(gp check "$name" --nested gpuprobe --json || true)
	expect "$mode: check --nested" "probe=ok" "probe=$(jq -r '.containers[0].probe' <<<"$out")"
	if [ "$name" = nest ]; then
		out=$(gp check "$name" --nested hang --timeout 3 --json || true)
		expect "$mode: check --nested: a hang and its cleanup" "timeout cuinit-hang nested-removed" \
			"$(jq -r '[.containers[0].probe, (.containers[0].findings[].id | select(. != "fixture-host"))] | join(" ")' <<<"$out")"
	fi
	ms gp probe "$name" --nested nosuch
	expect "$mode: an image missing" "image \"nosuch\" is not in $runtime's store in container \"$name\"" "$out"
	expect "$mode: an image missing: what to do" "run $runtime pull nosuch inside it" "$out"
	expect "$mode: an image missing exits 3" "exit 3" "exit $rc"
	ms gp probe "$name" --nested static
	expect "$mode: an image without glibc" "nested-no-glibc" "$out"
	expect "$mode: an image without glibc exits 1" "exit 1" "exit $rc"
	ms gp probe "$name" --nested gpuprobe --runtime "$([ "$runtime" = podman ] && echo docker || echo podman)"
	expect "$mode: no such runtime" "install it there, or probe without --nested" "$out"
	expect "$mode: no such runtime exits 3" "exit 3" "exit $rc"
	# The start's link taken away: said, with what to do.
	in_ct "$P" "$name" 'mv /etc/cdi/gpu-provision.json /etc/cdi/gpu-provision.off'
	ms gp probe "$name" --nested gpuprobe
	in_ct "$P" "$name" 'mv /etc/cdi/gpu-provision.off /etc/cdi/gpu-provision.json'
	expect "$mode: no CDI spec" "no CDI spec at \"/etc/cdi/gpu-provision.json\" in container \"$name\"" "$out"
	expect "$mode: no CDI spec exits 3" "exit 3" "exit $rc"
}

make_root quad-550-proprietary "$WORK/root"
add_host_userspace "$WORK/root" "$US"
gp host --json >"$WORK/host.json"
test_nested_podman_privileged() { nested nest privileged podman; }
test_nested_podman_unprivileged() { nested unest unprivileged podman; }
test_nested_docker() { nested dock privileged docker; }
# ONLY="test_a ...": those tests alone (tools/mutants.sh's "# nested:" names them).
for t in ${ONLY:-test_nested_podman_privileged test_nested_podman_unprivileged test_nested_docker}; do
	"$t"
done
echo "check-nested: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
