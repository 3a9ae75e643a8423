# shellcheck shell=bash
# The driver's user space injected at start ([driver] inject): real busybox containers, a
# driver user space of test doubles under a --root (add_host_userspace). Sourced by run.sh.

H200_UUID=GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460
US=580.159.04

# rootfs_list NAME: every path of the container's rootfs with its type and link target,
# but for what busybox's own init and syslogd write under /var.
rootfs_list() {
	(cd "$P/$1/rootfs" && find . -xdev -printf '%p %y %l\n' | grep -v '^\./var/' | sort)
}

# host_files NAME: the driver files under the container's host root, with their sums.
host_files() {
	(cd "$WORK/$1.root" && find usr etc -printf '%p %y %l %m\n' | sort && sha256sum usr/lib/x86_64-linux-gnu/* usr/bin/*)
}

# inject_ct NAME [unprivileged]: a container with no NVIDIA file, attached with --inject.
inject_ct() {
	make_root h200-580-open "$WORK/$1.root"
	add_host_userspace "$WORK/$1.root" "$US"
	new_container "$P" "$1" "${2:-privileged}"
	check "NVIDIA files in the rootfs" "" \
		"$(find "$P/$1/rootfs" -xdev \( -name 'libcuda*' -o -name 'libnvidia*' -o -name nvidia-smi \))"
	gp --root "$WORK/$1.root" attach "$1" --gpus 0 --inject >/dev/null
	grep -qx "inject = yes" "$CONF/$1.ini"
}

# refused_clean NAME BEFORE WANT: the start was refused saying WANT, and left the rootfs
# as BEFORE lists it, with no mount of the container's and none staged on the host.
refused_clean() {
	local name=$1 before=$2 want=$3
	if start "$name"; then echo "    $name started"; return 1; fi
	grep -qF -- "$want" "$P/$name.log" || { echo "    no \"$want\" in:"; grep gpu-hook "$P/$name.log" | tail -5; return 1; }
	check "rootfs after the refusal" "$before" "$(rootfs_list "$name")"
	check "mounts left" 0 "$(mounts_under "$P" "$name" "$P/$name/rootfs")"
	check "staged tree left" "0 absent" "$(staged_left "$name")"
}

# staged_left NAME: the host's mounts of NAME's staged tree and whether it is there, once
# LXC's post-stop, which takes it away, has had up to 10 s (lxc-start and lxc-stop may
# return before it ran).
staged_left() {
	local staged=$WORK/$1.root/run/gpu-provision/$1.driver left
	for _ in $(seq 100); do
		left="$(mounts_under "$P" "$1" "$WORK/$1.root/run") $([ -e "$staged" ] && echo present || echo absent)"
		[ "$left" = "0 absent" ] && break
		sleep 0.1
	done
	echo "$left"
}

# ro_result NAME PATH: what remount,bind,rw of an injected PATH and then a write say inside.
ro_result() {
	in_ct "$P" "$1" "mount -o remount,bind,rw $2 2>/dev/null && echo remounted || echo refused; echo x 2>/dev/null >>$2 && echo written || echo unwritten" | paste -sd' '
}

test_inject_runs_from_injected_files() {
	local before after smi host
	inject_ct ij
	set_fake_cuda "$P" ij "device 0000:00:06.0 $H200_UUID"
	before=$(rootfs_list ij) host=$(host_files ij)
	start ij
	smi=$(in_ct "$P" ij nvidia-smi)
	check "nvidia-smi" "nvidia-smi (test double): libnvidia-ml.so.1 is /usr/local/nvidia/lib64/libnvidia-ml.so.1 (/usr/local/nvidia/lib64/libnvidia-ml.so.$US), nvmlInit_v2 0, 1 GPU" "$smi"
	gp --root "$WORK/ij.root" probe ij --json >"$WORK/ij.json"
	check "probe" ok "$(jq -r .status "$WORK/ij.json")"
	check "libcuda" "/usr/local/nvidia/lib64/libcuda.so.$US $US true" \
		"$(jq -r '"\(.libcuda) \(.libcuda_version) \(.libcuda_injected)"' "$WORK/ij.json")"
	gp --root "$WORK/ij.root" probe ij | grep -qF "libcuda /usr/local/nvidia/lib64/libcuda.so.$US (injected, the kernel module's $US)"
	# Read-only, nosuid, nodev: the tmpfs and each file bound in it.
	check "mount options" "ro,nosuid,nodev ro,nosuid,nodev ro,nosuid,nodev ro,nosuid,nodev" \
		"$(in_ct "$P" ij "grep ' /usr/local/nvidia' /proc/self/mountinfo | cut -d' ' -f6 | sed 's/,relatime//'" | paste -sd' ')"
	check "the staged tree inside" 0 "$(in_ct "$P" ij "grep -c gpu-provision /proc/self/mountinfo || true")"
	check "write into the tmpfs" "Read-only file system" \
		"$(in_ct "$P" ij 'touch /usr/local/nvidia/lib64/x 2>&1 || true' | grep -o 'Read-only file system')"
	check "write to a library" "Read-only file system" \
		"$(in_ct "$P" ij "echo x 2>&1 >>/usr/local/nvidia/lib64/libcuda.so.$US || true" | grep -o 'Read-only file system')"
	stop ij
	# After stop, what docs/driver.md lists: the empty mount point, the PATH link, the cache.
	after=$(rootfs_list ij)
	check "left in the rootfs" "./etc/cdi d 
./etc/cdi/gpu-provision.json l /usr/local/nvidia/cdi/gpu-provision.json
./etc/ld.so.cache f 
./usr/bin/nvidia-smi l /usr/local/nvidia/bin/nvidia-smi
./usr/local d 
./usr/local/nvidia d " "$(comm -13 <(echo "$before") <(echo "$after"))"
	check "taken from the rootfs" "" "$(comm -23 <(echo "$before") <(echo "$after"))"
	check "nvidia-smi after stop" "ENOENT" \
		"$(chroot "$P/ij/rootfs" /bin/busybox ls -L /usr/bin/nvidia-smi >/dev/null 2>&1 || echo ENOENT)"
	check "the host's driver files" "$host" "$(host_files ij)"
	check "staged after stop" "0 absent" "$(staged_left ij)"
}

# The second start finds the container's cache current and runs no ldconfig.
test_inject_second_start_keeps_the_cache() {
	local stamp
	inject_ct ic
	start ic
	stop ic
	stamp=$(stat -c %Y.%i "$P/ic/rootfs/etc/ld.so.cache")
	sleep 1
	start ic
	check "nvidia-smi" 0 "$(in_ct "$P" ic 'nvidia-smi >/dev/null; echo $?')"
	check "cache untouched" "$stamp" "$(stat -c %Y.%i "$P/ic/rootfs/etc/ld.so.cache")"
	stop ic
}

# An unprivileged container's root can remount no injected file read-write: pre-start
# staged the driver's directories read-only on the host before LXC made the container's
# namespaces, so the kernel locked the flags of its copy, and of each bind taken from it.
test_inject_unprivileged() {
	local lib=/usr/local/nvidia/lib64/libcuda.so.$US staged=$WORK/iu.root/run/gpu-provision/iu.driver host
	inject_ct iu unprivileged
	host=$(host_files iu)
	start iu
	in_ct "$P" iu nvidia-smi | grep -qF "is /usr/local/nvidia/lib64/libnvidia-ml.so.1"
	check "remount and write" "refused unwritten" "$(ro_result iu "$lib")"
	check "still read-only" "ro,nosuid,nodev" \
		"$(in_ct "$P" iu "grep ' $lib ' /proc/self/mountinfo | cut -d' ' -f6 | sed 's/,relatime//'")"
	# The container's mounts: the tmpfs and its three files, nothing of the staged tree.
	check "mounts inside" "0 4" "$(in_ct "$P" iu "grep -c gpu-provision /proc/self/mountinfo; grep -c ' /usr/local/nvidia' /proc/self/mountinfo" | paste -sd' ')"
	check "staged on the host" "ro,nosuid,nodev" \
		"$(grep " $staged/usr/lib/x86_64-linux-gnu " /proc/self/mountinfo | cut -d' ' -f6 | sed 's/,relatime//')"
	stop iu
	check "staged after stop" "0 absent" "$(staged_left iu)"
	check "the host's driver files" "$host" "$(host_files iu)"
}

# An unprivileged container's start refused in the mount hook: nothing left in its rootfs,
# and the host's staged tree gone too (LXC's post-stop, on the host, takes it away).
test_inject_unprivileged_refused_clean() {
	local before
	inject_ct iur unprivileged
	mkdir -p "$P/iur/rootfs/usr/local"
	echo mine >"$P/iur/rootfs/usr/local/nvidia"
	chown -R 100000:100000 "$P/iur/rootfs/usr/local"
	before=$(rootfs_list iur)
	refused_clean iur "$before" "/usr/local/nvidia in the container is not a plain directory of its rootfs"
}

# Each injected file, and every directory above it, is root's and writable by nobody else:
# pre-start refuses the start naming the one that is not, and check says so.
test_inject_untrusted_host_file() {
	local r=$WORK/iw.root before
	inject_ct iw
	chown 100000 "$r/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.$US"
	before=$(rootfs_list iw)
	refused_clean iw "$before" "the host's \"$r/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.$US\" would be given into containers, but \"$r/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.$US\" is a file owned by uid 100000"
	check_json "$r" iw
	check "finding" "inject-file-untrusted" \
		"$(jq -r '[.containers[].findings[].id | select(startswith("inject"))] | join(" ")' "$WORK/check.json")"
	chown 0 "$r/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.$US"
	chmod g+w "$r/usr/lib"
	refused_clean iw "$before" "\"$r/usr/lib\" is a directory owned by uid 0 with mode 0775"
	chmod g-w "$r/usr/lib"
	start iw
	in_ct "$P" iw nvidia-smi | grep -qF "nvmlInit_v2 0"
	stop iw
}

# A library of another version than the module's is never injected, and a capability
# left with none of its libraries refuses the start.
test_inject_host_version_mismatch() {
	local before lib
	inject_ct im
	lib=$WORK/im.root/usr/lib/x86_64-linux-gnu
	mv "$lib/libcuda.so.$US" "$lib/libcuda.so.575.51.02"
	ldconfig -r "$WORK/im.root"
	before=$(rootfs_list im)
	refused_clean im "$before" "capabilities asks for compute, but /"
	grep -qF "libcuda.so.575.51.02) is of version 575.51.02, not the kernel module's $US: not injected" "$P/im.log"
	gp --root "$WORK/im.root" attach im --capabilities utility >/dev/null
	start im
	check "libcuda injected" "" "$(in_ct "$P" im 'ls /usr/local/nvidia/lib64 | grep cuda')"
	in_ct "$P" im nvidia-smi | grep -qF "nvmlInit_v2 0"
	stop im
}

# The container's own libcuda of another version would be loaded beside the injected
# files: refused, naming it; of the module's version, it is no conflict.
test_inject_container_version_mismatch() {
	local before
	inject_ct io
	add_fake_cuda "$P" io 575.51.02
	before=$(rootfs_list io)
	refused_clean io "$before" "the container's /opt/fakecuda/libcuda.so.1 is /opt/fakecuda/libcuda.so.575.51.02, of driver 575.51.02, not the host's $US"
	grep -qF "1 driver library of another version in the container" "$P/io.log"
	add_fake_cuda "$P" io "$US"
	start io
	in_ct "$P" io nvidia-smi | grep -qF "nvmlInit_v2 0"
	stop io
}

# hostile_case NAME WANT SETUP...: a rootfs made hostile by SETUP (run with $r the rootfs
# and $c the config); the start is refused saying WANT, the host directory $WORK/NAME.host
# and the rootfs are as they were, and no mount is left.
# shellcheck disable=SC2034 # r and c are for SETUP, run by eval
hostile_case() {
	local name=$1 want=$2 before r c
	shift 2
	inject_ct "$name"
	r=$P/$name/rootfs c=$P/$name/config
	mkdir -p "$WORK/$name.host"
	echo keep >"$WORK/$name.host/file"
	eval "$*"
	before=$(rootfs_list "$name")
	refused_clean "$name" "$before" "$want"
	check "host directory" "file" "$(ls -A "$WORK/$name.host")"
	check "host file" keep "$(cat "$WORK/$name.host/file")"
}

# shellcheck disable=SC2016 # each SETUP is expanded by hostile_case's eval
test_inject_hostile_rootfs() {
	local way="is not a plain directory of its rootfs"
	hostile_case ih1 "/usr/local/nvidia in the container $way" \
		'mkdir -p "$r/usr"; ln -s "$WORK/ih1.host" "$r/usr/local"'
	hostile_case ih2 "/usr/local/nvidia in the container $way" \
		'mkdir -p "$r/usr/local"; echo mine >"$r/usr/local/nvidia"'
	check "the file in the way" mine "$(cat "$P/ih2/rootfs/usr/local/nvidia")"
	hostile_case ih3 "/usr/local/nvidia in the container $way" \
		'mkdir -p "$r/usr/local"; echo "lxc.mount.entry = $WORK/ih3.host usr/local none bind 0 0" >>"$c"'
	hostile_case ih4 "/usr/bin in the container $way" \
		'echo "lxc.mount.entry = $WORK/ih4.host usr/bin none ro,bind 0 0" >>"$c"'
	hostile_case ih5 "/etc/ld.so.conf.d in the container $way" \
		'ln -s "$WORK/ih5.host" "$r/etc/ld.so.conf.d"'
	hostile_case ih6 "/usr/local/nvidia in the container holds files" \
		'mkdir -p "$r/usr/local/nvidia"; echo mine >"$r/usr/local/nvidia/x"'
	# A link inside the rootfs is not followed either.
	hostile_case ih8 "/usr/local/nvidia in the container $way" \
		'mkdir -p "$r/usr/share"; ln -s share "$r/usr/local"'
	hostile_case ih7 "the container's C library is musl" \
		'sed -i "\|^lxc.mount.entry = /lib lib|d" "$c"; touch "$r/lib/ld-musl-x86_64.so.1"'
}

# The container's own /usr/bin/nvidia-smi is not replaced; the injected one is still there.
test_inject_keeps_the_containers_program() {
	inject_ct ik
	printf '#!/bin/sh\necho mine\n' >"$P/ik/rootfs/usr/bin/nvidia-smi"
	chmod 755 "$P/ik/rootfs/usr/bin/nvidia-smi"
	start ik
	check "its own" mine "$(in_ct "$P" ik nvidia-smi)"
	in_ct "$P" ik /usr/local/nvidia/bin/nvidia-smi | grep -qF "nvmlInit_v2 0"
	grep -qF "the container has its own /usr/bin/nvidia-smi, which is kept" "$P/ik.log"
	stop ik
}

test_inject_attach_options() {
	make_root h200-580-open "$WORK/iao.root"
	new_container "$P" iao
	gp --root "$WORK/iao.root" attach iao --gpus 0 --inject --capabilities "video, utility" >/dev/null
	check "ini" "inject = yes|capabilities = utility, video" "$(grep -E '^(inject|capabilities)' "$CONF/iao.ini" | paste -sd'|')"
	cp "$CONF/iao.ini" "$WORK/iao.ini.before"
	if gp --root "$WORK/iao.root" attach iao --capabilities compute,gpu 2>"$WORK/iao.err"; then return 1; fi
	grep -qF -- '--capabilities "compute,gpu": use one or more of compute, utility, video, graphics, display, separated by commas' "$WORK/iao.err"
	cmp "$CONF/iao.ini" "$WORK/iao.ini.before"
	gp --root "$WORK/iao.root" attach iao --no-inject >/dev/null
	grep -qx "inject = no" "$CONF/iao.ini"
	if gp --root "$WORK/iao.root" attach iao --mode devn --inject 2>"$WORK/iao.err"; then return 1; fi
	grep -qF "mode devn runs no hook at start, so nothing can give the container the driver's user space" "$WORK/iao.err"
	# Without a choice on the command line or in gpu-provision.conf, a new attach injects.
	new_container "$P" iad
	gp --confdir "$WORK/iad.conf" --root "$WORK/iao.root" attach iad --gpus 0 >/dev/null
	grep -qx "inject = yes" "$WORK/iad.conf/iad.ini"
}

# check reads what a start would refuse, and the container's own driver, without starting it.
test_inject_check() {
	local r=$WORK/ick.root ids
	inject_ct ick
	# The host: an old driver's libcuda still named by its cache, beside the module's.
	mkdir -p "$r/usr/lib/old"
	cp "${GP_BUILD:-$GP_TOP/build}/tests/fakecuda/libcuda.so" "$r/usr/lib/old/libcuda.so.575.51.02"
	printf '%s\n' /usr/lib/x86_64-linux-gnu /usr/lib/old >"$r/etc/ld.so.conf"
	ldconfig -r "$r"
	gp --root "$r" attach ick --capabilities "compute, video" >/dev/null
	add_fake_cuda "$P" ick 575.51.02
	check_json "$r" ick
	ids=$(jq -r '[.containers[].findings[].id | select(startswith("inject") or startswith("container-driver"))] | sort | join(" ")' "$WORK/check.json")
	check "findings" "container-driver-version inject-capability-missing inject-other-version" "$ids"
	check "capability" "ick asks to inject video, which the host lacks at $US" \
		"$(jq -r '.containers[].findings[] | select(.id == "inject-capability-missing") | .summary' "$WORK/check.json")"
	check "the container's own" "the container's /etc/ld.so.cache: /opt/fakecuda/libcuda.so.1 -> /opt/fakecuda/libcuda.so.575.51.02" \
		"$(jq -r '.containers[].findings[] | select(.id == "container-driver-version") | .evidence' "$WORK/check.json")"
	jq -r '.containers[].findings[] | select(.id == "inject-other-version") | .evidence' "$WORK/check.json" |
		grep -qF "/usr/lib/old/libcuda.so.1 (575.51.02)"
	# The same container given no injection: its own old driver is still a finding.
	gp --root "$r" attach ick --no-inject >/dev/null
	check_json "$r" ick
	check "without injection" "container-driver-version" \
		"$(jq -r '[.containers[].findings[].id | select(startswith("inject") or startswith("container-driver"))] | join(" ")' "$WORK/check.json")"
	# musl, and an ini asking for injection in mode devn (no hook runs there).
	add_fake_cuda "$P" ick "$US"
	sed -i "\|^lxc.mount.entry = /lib lib|d" "$P/ick/config"
	touch "$P/ick/rootfs/lib/ld-musl-x86_64.so.1"
	gp --root "$r" attach ick --inject --capabilities compute >/dev/null
	sed -i 's/^\[driver\]$/mode = devn\n[driver]/' "$CONF/ick.ini"
	check_json "$r" ick
	check "musl and devn" "inject-devn inject-musl inject-other-version" \
		"$(jq -r '[.containers[].findings[].id | select(startswith("inject") or startswith("container-driver"))] | sort | join(" ")' "$WORK/check.json")"
}

# What the host's ldconfig reads and writes in the rootfs is the container's: a cache that
# links out of it is replaced, not written through; a config that blocks meets the deadline.
test_inject_ldconfig_in_a_hostile_rootfs() {
	local before t0
	inject_ct il
	mkdir -p "$WORK/il.host"
	echo keep >"$WORK/il.host/file"
	ln -s "$WORK/il.host/file" "$P/il/rootfs/etc/ld.so.cache"
	start il
	check "host file" keep "$(cat "$WORK/il.host/file")"
	check "the container's cache" "regular file" "$(stat -c %F "$P/il/rootfs/etc/ld.so.cache")"
	in_ct "$P" il nvidia-smi | grep -qF "nvmlInit_v2 0"
	stop il
	# A device node as the cache is not opened (the device cgroup is not on during hooks):
	# said, and replaced by the host's ldconfig.
	rm "$P/il/rootfs/etc/ld.so.cache"
	mknod "$P/il/rootfs/etc/ld.so.cache" c 1 3
	start il
	grep -qF "the container's /etc/ld.so.cache\" is not a regular file: not read" "$P/il.log"
	check "the container's cache, again" "regular file" "$(stat -c %F "$P/il/rootfs/etc/ld.so.cache")"
	stop il
	# A FIFO, and links into the container's /proc and /dev: none is opened (nothing of the
	# rootfs is read across a mount), each is said, and the host's ldconfig replaces it.
	local kind want
	for kind in fifo /proc/kmsg /dev/zero; do
		rm "$P/il/rootfs/etc/ld.so.cache"
		if [ "$kind" = fifo ]; then
			mkfifo "$P/il/rootfs/etc/ld.so.cache"
			want="the container's /etc/ld.so.cache\" is not a regular file: not read"
		else
			ln -s "$kind" "$P/il/rootfs/etc/ld.so.cache"
			want="Failed to open \"the container's /etc/ld.so.cache\": Invalid cross-device link"
		fi
		: >"$P/il.log"
		start il
		grep -qF "$want" "$P/il.log" || { echo "    $kind: no [$want]"; return 1; }
		check "the cache after $kind" "regular file" "$(stat -c %F "$P/il/rootfs/etc/ld.so.cache")"
		in_ct "$P" il nvidia-smi | grep -qF "nvmlInit_v2 0"
		stop il
	done
	inject_ct il2
	mkfifo "$P/il2/rootfs/etc/ld.so.conf"
	before=$(rootfs_list il2)
	t0=$(date +%s)
	refused_clean il2 "$before" ", took too long"
	check "refused by the deadline" yes "$([ $(($(date +%s) - t0)) -lt 20 ] && echo yes)"
}

# display: the graphics libraries, the loaders' manifests linked where they look, and
# /dev/nvidia-modeset with its rule; refused while nvidia_modeset is not loaded.
test_inject_display() {
	local r=$WORK/idp.root icd=usr/share/vulkan/icd.d/nvidia_icd.json
	inject_ct idp
	cp "${GP_BUILD:-$GP_TOP/build}/tests/fakedriver/libGLX_nvidia.so" \
		"$r/usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.$US"
	ldconfig -r "$r"
	mkdir -p "$r/$(dirname $icd)"
	echo '{"ICD": {"library_path": "libGLX_nvidia.so.0"}}' >"$r/$icd"
	if gp --root "$r" attach idp --capabilities "compute, display" 2>"$WORK/idp.err"; then return 1; fi
	grep -qF "need /dev/nvidia-modeset, but nvidia_modeset is not loaded: modprobe nvidia_modeset" "$WORK/idp.err"
	mkdir -p "$r/sys/module/nvidia_modeset"
	gp --root "$r" attach idp --capabilities "compute, display" >/dev/null
	grep -qE "^lxc.cgroup2?.devices.allow = c 195:254 rwm$" "$P/idp/config"
	start idp
	check "nvidia-modeset" "195:254" "$(node_of idp /dev/nvidia-modeset)"
	check "the manifest" "$(cat "$r/$icd")" "$(in_ct "$P" idp "cat /$icd")"
	check "its link" "/usr/local/nvidia/share/nvidia_icd.json" "$(in_ct "$P" idp "readlink /$icd")"
	check "the library it names" "/usr/local/nvidia/lib64/libGLX_nvidia.so.$US" \
		"$(in_ct "$P" idp "readlink -f /usr/local/nvidia/lib64/libGLX_nvidia.so.0")"
	stop idp
}
