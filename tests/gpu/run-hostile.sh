#!/bin/bash
# The GPU host run for hostile containers: the real driver and libcuda, with a library the
# container owns preloaded into the probe (/etc/ld.so.preload in its rootfs; the real
# libcuda.so.1 still answers cuInit). From the checkout root, with .gpu-e2e and build
# carried (make gpu-tools): bash tests/gpu/run-hostile.sh
#   1. TIOCSTI and /dev/tty under a real pty: nothing reaches the admin's shell, and the
#      probe still says ok with the real cuInit;
#   2. a holder in a session of its own: probe returns at once, named probe-lingering;
#   3. a frozen container: probe and check --all return within the deadline + 1 s;
#   4. the probe's time, this build and an earlier one side by side (OLD=dir of binaries).
set -uo pipefail
. tests/gpu/e2e-lib.sh
HOSTILE=$top/build/tests/hostile

gp() { "$GP" --lxcpath "$P" --confdir "$CONF" "$@"; }
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# hostile_ct NAME LIB ARG: attached to GPU 0, LIB preloaded into every process inside.
hostile_ct() {
	mkct "$1"
	mkdir -p "$P/$1/rootfs/opt/hostile"
	cp "$HOSTILE/preload-$2.so" "$P/$1/rootfs/opt/hostile/$2.so"
	echo "/opt/hostile/$2.so" >"$P/$1/rootfs/etc/ld.so.preload"
	echo "$3" >"$P/$1/rootfs/etc/hostile"
	gp attach "$1" --gpus 0 >/dev/null
	printf '[probe]\ntimeout = 5\n' >>"$CONF/$1.ini"
	lxc-start -P "$P" -n "$1" -l DEBUG -o "/tmp/$1.log" || grep -E 'ERROR|gpu-hook' "/tmp/$1.log"
	echo "$1: $(lxc-info -P "$P" -n "$1" -sH)"
}

say "host: $(uname -r); dev.tty.legacy_tiocsti=$(sysctl -n dev.tty.legacy_tiocsti 2>/dev/null || echo absent)"
command -v script >/dev/null || { echo "no script(1) on this host"; exit 2; }

say "1. TIOCSTI from a library preloaded into the real probe, under a real pty"
token=gpu$$
hostile_ct t1 tiocsti "$token"
{
	echo "$GP --lxcpath $P --confdir $CONF probe t1; touch /tmp/t1.done"
	for _ in $(seq 100); do [ -e /tmp/t1.done ] && break; sleep 0.1; done
	sleep 0.5
	echo "read -t 1 -r line; printf 'READ[%s]\\n' \"\$line\""
	sleep 2
	echo exit
} | env -i PATH="$PATH" HOME=/tmp TERM=dumb HISTFILE=/dev/null \
	script -qfec "bash --norc --noprofile -i" /dev/null >/tmp/t1.pty 2>&1
grep -a -E '^probe t1|cuInit|READ\[' /tmp/t1.pty | tr -d '\r'
echo "typed into the host's shell: $([ -e "/tmp/PWNED-$token" ] && echo YES || echo no)"
echo "title escape on the terminal: $(grep -ac ']0;PWNED' /tmp/t1.pty)"
echo "hostile log (inside t1):"; sed 's/^/  /' "$P/t1/rootfs/tmp/hostile.log"
lxc-stop -P "$P" -n t1 -k

say "2. a holder in its own session, preloaded into the real probe"
hostile_ct t2 holder setsid
t0=$(date +%s%N)
gp probe t2 --json >/tmp/t2.json; rc=$?
echo "probe t2: rc=$rc in $(ms_since "$t0") ms"
tr -d '\n ' </tmp/t2.json | grep -o '"status":"[a-z]*"\|"cuinit":{[^}]*}\|"id":"probe-lingering"'
echo "hostile log:"; sed 's/^/  /' "$P/t2/rootfs/tmp/hostile.log"
lxc-stop -P "$P" -n t2 -k

say "3. a frozen container beside a healthy one: probe and check --all (deadline 5 s)"
mkct f1; gp attach f1 --gpus 0 >/dev/null; printf '[probe]\ntimeout = 5\n' >>"$CONF/f1.ini"
mkct f2; gp attach f2 --gpus 0 >/dev/null; printf '[probe]\ntimeout = 5\n' >>"$CONF/f2.ini"
lxc-start -P "$P" -n f1 && lxc-start -P "$P" -n f2
lxc-freeze -P "$P" -n f1; echo "f1: $(lxc-info -P "$P" -n f1 -sH)"
t0=$(date +%s%N)
gp probe f1 --json >/tmp/f1.json; rc=$?
echo "probe f1 (frozen): rc=$rc in $(ms_since "$t0") ms; $(tr -d '\n ' </tmp/f1.json | grep -o '"status":"[a-z]*"')"
t0=$(date +%s%N)
gp check --all --json >/tmp/fall.json; rc=$?
echo "check --all: rc=$rc in $(ms_since "$t0") ms; $(tr -d '\n ' </tmp/fall.json | grep -o '"name":"f[12]","probe":"[a-z]*"' | tr '\n' ' ')"
lxc-unfreeze -P "$P" -n f1
lxc-stop -P "$P" -n f1 -k

say "4. the probe's time on f2 (real cuInit), this build and OLD side by side, 10 rounds"
if [ -n "${OLD:-}" ] && [ -x "$OLD/gpu-provision" ]; then
	new_ms=0 old_ms=0
	for i in $(seq 10); do
		t0=$(date +%s%N); gp probe f2 >/dev/null; new_ms=$((new_ms + $(ms_since "$t0")))
		t0=$(date +%s%N); "$OLD/gpu-provision" --lxcpath "$P" --confdir "$CONF" probe f2 >/dev/null
		old_ms=$((old_ms + $(ms_since "$t0")))
	done
	echo "probe f2: this build $((new_ms / 10)) ms, earlier build $((old_ms / 10)) ms (mean of 10)"
	awk -v n="$new_ms" -v o="$old_ms" 'BEGIN { printf "ratio this/earlier: %.2f\n", n / o }'
else
	echo "no OLD build given"
fi
gp probe f2 | head -3
lxc-stop -P "$P" -n f2 -k
