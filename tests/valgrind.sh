#!/bin/bash
# make valgrind: the hook's pre-start and post-stop under valgrind, in a real container
# start, with a dynamically linked build of the hook (valgrind misreads a static glibc's
# startup). The autodev hook is not, nor the injection of the driver's user space (its
# pre-start part reads the host's files with openat2 too): valgrind 3.19 knows no openat2
# (syscall 437) and answers ENOSYS, so those paths are checked by make asan's integration
# run instead.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
GP=$GP_TOP/build-vg/gpu-provision
use_trusted_install # attach writes only a gpu-hook root alone can change
WORK=$(mktemp -d /tmp/gp-vg.XXXXXX)
chmod 755 "$WORK"
P=$WORK/lxc CONF=$WORK/conf
mkdir -p "$P" "$CONF"
trap 'lxc-stop -P "$P" -n vg -k >/dev/null 2>&1 || true; lxc-destroy -P "$P" -n vg >/dev/null 2>&1 || true; [ -n "${KEEP:-}" ] || rm -rf "$WORK"; rm -rf ${GP_INSTALLED:+"$GP_INSTALLED"}' EXIT
make_root h200-580-open "$WORK/root"
rm "$WORK/root/dev/nvidia-uvm" # the pre-start path that makes a node
new_container "$P" vg
"$GP" --root "$WORK/root" --confdir "$CONF" --lxcpath "$P" attach vg --gpus all --caps mig-config \
	--no-inject
sed -i "s|^\(lxc.hook.p[a-z-]* = \)\(.*gpu-hook\)|\1/usr/bin/valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite --log-file=$WORK/vg.%p.log \2|" "$P/vg/config"
grep -c valgrind "$P/vg/config" | grep -qx 2
lxc-start -P "$P" -n vg -l INFO -o "$WORK/vg.log"
lxc-attach -P "$P" -n vg -- test -c /dev/nvidia-caps/nvidia-cap1
lxc-stop -P "$P" -n vg -k
logs=$(ls "$WORK"/vg.*.log | wc -l)
errors=$(cat "$WORK"/vg.*.log | count_matching .)
cat "$WORK"/vg.*.log
echo "valgrind: $logs hook runs, $errors lines of valgrind errors"
[ "$logs" -ge 2 ] && [ "$errors" -eq 0 ] && echo "valgrind: 1 passed, 0 failed" || { echo "valgrind: 0 passed, 1 failed"; exit 1; }
