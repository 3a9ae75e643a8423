# shellcheck shell=bash
# Starts of real containers: the nodes given, the nodes made, the starts refused. Sourced by run.sh.

# Exactly the selected GPU, by nvidia-smi index, whose device minor differs.
test_selected_nodes_only() {
	make_root quad-550-proprietary "$WORK/quad"
	new_container "$P" sel
	gp --root "$WORK/quad" attach sel --gpus 1
	start sel
	check "index 1 is minor 2" "195:2" "$(node_of sel /dev/nvidia2)"
	check nvidiactl "195:255" "$(node_of sel /dev/nvidiactl)"
	check nvidia-uvm "509:0" "$(node_of sel /dev/nvidia-uvm)"
	check nvidia-uvm-tools "509:1" "$(node_of sel /dev/nvidia-uvm-tools)"
	for n in 0 1 3; do check "nvidia$n absent" absent "$(node_of sel /dev/nvidia$n)"; done
	# The cgroup lets the selected node through: the open reaches the (absent) driver.
	check "open selected" ENXIO "$(open_result "$P" sel /dev/nvidia2)"
	check "open uvm" ENXIO "$(open_result "$P" sel /dev/nvidia-uvm)"
	# An unselected GPU made by hand (common.conf allows mknod) is stopped by the cgroup.
	in_ct "$P" sel "mknod /dev/nvidia3 c 195 3"
	check "open unselected" EPERM "$(open_result "$P" sel /dev/nvidia3)"
	check "binds are nosuid,noexec" 4 \
		"$(in_ct "$P" sel "grep ' /dev/nvidia' /proc/self/mountinfo" | grep -c 'nosuid,noexec')"
	stop sel
}

# /dev/nvidia-uvm gone from the host (after a reboot): made again, the start succeeds.
test_missing_host_node_recreated() {
	make_root h200-580-open "$WORK/h200"
	rm "$WORK/h200/dev/nvidia-uvm"
	new_container "$P" uvm
	gp --root "$WORK/h200" attach uvm --gpus all
	start uvm
	check "host node made" "c 238:0 666" \
		"$(stat -c '%F' "$WORK/h200/dev/nvidia-uvm" | sed 's/character special file/c/') $(dev_of "$WORK/h200/dev/nvidia-uvm") $(stat -c '%a' "$WORK/h200/dev/nvidia-uvm")"
	check "inside" "238:0" "$(node_of uvm /dev/nvidia-uvm)"
	stop uvm
}

# A host node with yesterday's major is replaced with today's.
test_stale_host_node_replaced() {
	make_root h200-580-open "$WORK/stale"
	rm "$WORK/stale/dev/nvidia-uvm"
	mknod -m 0666 "$WORK/stale/dev/nvidia-uvm" c 237 0
	new_container "$P" stale
	gp --root "$WORK/stale" attach stale --gpus 0
	start stale
	check "host node" "ee:0" "$(stat -c '%t:%T' "$WORK/stale/dev/nvidia-uvm")"
	check "inside" "238:0" "$(node_of stale /dev/nvidia-uvm)"
	stop stale
}

# A bad ini aborts the start with file:line, and leaves nothing behind.
test_bad_ini_aborts() {
	make_root h200-580-open "$WORK/bad"
	new_container "$P" bad
	gp --root "$WORK/bad" attach bad --gpus all
	printf '[gpu]\ndevices = all\ncolour = red\n' >"$CONF/bad.ini"
	if start bad; then echo "    started with a bad ini"; return 1; fi
	assert_refused_clean bad "$WORK/bad" "bad.ini:3: unknown key \"colour\""
}

# A selected GPU gone from the host aborts the start.
test_gpu_gone_aborts() {
	make_root quad-550-proprietary "$WORK/gone"
	new_container "$P" gone
	gp --root "$WORK/gone" attach gone --gpus GPU-1a2b3c4d-0000-4000-8000-000000000081
	rm -r "$WORK/gone/proc/driver/nvidia/gpus/0000:81:00.0"
	if start gone; then echo "    started without its GPU"; return 1; fi
	assert_refused_clean gone "$WORK/gone" "no GPU has UUID GPU-1a2b3c4d-0000-4000-8000-000000000081"
}

# A config whose device rule for uvm is gone is refused before anything is mounted.
test_missing_rule_refused() {
	make_root h200-580-open "$WORK/rule"
	new_container "$P" rule
	gp --root "$WORK/rule" attach rule --gpus all
	sed -i '/c 238:0 rwm/d' "$P/rule/config"
	if start rule; then echo "    started without uvm's rule"; return 1; fi
	assert_refused_clean rule "$WORK/rule" "c 238:0 rwm\" for /dev/nvidia-uvm"
}

# More device rules than the hook reads: refused naming the cap, not read as a missing rule.
test_too_many_rules_refused() {
	make_root h200-580-open "$WORK/many"
	new_container "$P" many
	gp --root "$WORK/many" attach many --gpus all
	# With the key attach wrote for this host's devices controller (v1 or v2).
	key=$(grep -m1 -o '^lxc\.cgroup2\?\.devices\.allow' "$P/many/config")
	for i in $(seq 1 260); do echo "$key = c 1:$i rwm"; done >>"$P/many/config"
	if start many; then echo "    started past the rule cap"; return 1; fi
	assert_refused_clean many "$WORK/many" "more than 256 device allow or deny rules"
}

# An unprivileged container (root-owned, idmapped) gets its nodes too.
test_unprivileged() {
	make_root quad-550-proprietary "$WORK/unpriv"
	new_container "$P" unpriv unprivileged
	gp --root "$WORK/unpriv" attach unpriv --gpus 0000:c1:00.0
	start unpriv
	check "uid map" "0 100000 65536" "$(in_ct "$P" unpriv "cat /proc/self/uid_map" | awk '{print $1,$2,$3}')"
	check "nvidia1" "195:1" "$(node_of unpriv /dev/nvidia1)"
	check "nvidia-uvm" "509:0" "$(node_of unpriv /dev/nvidia-uvm)"
	check "nvidia0 absent" absent "$(node_of unpriv /dev/nvidia0)"
	check "open" ENXIO "$(open_result "$P" unpriv /dev/nvidia1)"
	stop unpriv
}

# MIG caps: config, monitor and a GI/CI's access nodes, made on the host when missing.
test_mig_caps() {
	make_root h200-580-open "$WORK/mig"
	new_container "$P" mig
	gp --root "$WORK/mig" attach mig --gpus 0 --caps mig-config,mig-monitor,gpu0/gi1/ci0
	start mig
	check "config" "241:1" "$(node_of mig /dev/nvidia-caps/nvidia-cap1)"
	check "monitor" "241:2" "$(node_of mig /dev/nvidia-caps/nvidia-cap2)"
	check "gi1 access" "241:12" "$(node_of mig /dev/nvidia-caps/nvidia-cap12)"
	check "gi1/ci0 access" "241:13" "$(node_of mig /dev/nvidia-caps/nvidia-cap13)"
	check "host gi1/ci0 node made" "f1:d 444" "$(stat -c '%t:%T %a' "$WORK/mig/dev/nvidia-caps/nvidia-cap13")"
	check "open ci0 access" ENXIO "$(open_result "$P" mig /dev/nvidia-caps/nvidia-cap13)"
	in_ct "$P" mig "mknod /dev/nvidia-caps/nvidia-cap14 c 241 14"
	check "open another CI" EPERM "$(open_result "$P" mig /dev/nvidia-caps/nvidia-cap14)"
	stop mig
}
