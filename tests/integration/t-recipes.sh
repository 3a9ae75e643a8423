# shellcheck shell=bash
# Containers a recipe gave GPUs by hand: attach refuses them, adopt takes them over, the
# hook names a recipe's bind in its way; the corpus of tests/fixtures/recipes. Sourced by
# run.sh.

# The device rule key this host's LXC enforces (v1 or v2 devices controller).
enforced_key() {
	# " - cgroup ": the type follows the separator, after as many optional fields as there are.
	if awk '$0 ~ / - cgroup / && $NF ~ /(^|,)devices(,|$)/ {found=1} END {exit !found}' /proc/self/mountinfo; then
		echo lxc.cgroup.devices.allow
	else
		echo lxc.cgroup2.devices.allow
	fi
}

# recipe_lines ROOT KEY OPTIONAL: a recipe's lines for GPU 0 of an 8-GPU host, in LXC
# syntax, binding the nodes of the fixture root (where a real host has /dev).
recipe_lines() {
	local root=$1 key=$2 opt=$3 n
	printf '%s = c 195:* rwm\n%s = c 243:* rwm\n%s = c 511:* rwm\n' "$key" "$key" "$key"
	echo "$key = c 246:* rwm" # bsg's major on that host: adopt is not sure, leaves it
	for n in nvidia0 nvidiactl nvidia-uvm nvidia-uvm-tools; do
		echo "lxc.mount.entry = $root/dev/$n dev/$n none bind${opt},create=file"
	done
}

# recipe_container NAME KEY OPTIONAL: a busybox container on its own 8-GPU host ($WORK/NAME)
# whose config carries recipe_lines.
recipe_container() {
	make_root b200x8-590-open-hmm "$WORK/$1"
	new_container "$P" "$1"
	recipe_lines "$WORK/$1" "$2" "$3" >>"$P/$1/config"
}

# The GPU the recipe gave opens, the others (made by hand: common.conf allows mknod) do not.
assert_only_gpu0() {
	check "nvidia0" ENXIO "$(open_result "$P" "$1" /dev/nvidia0)"
	check "nvidia-uvm" ENXIO "$(open_result "$P" "$1" /dev/nvidia-uvm)"
	in_ct "$P" "$1" "mknod /dev/nvidia3 c 195 3; mknod /dev/nvidia7 c 195 7"
	check "nvidia3" EPERM "$(open_result "$P" "$1" /dev/nvidia3)"
	check "nvidia7" EPERM "$(open_result "$P" "$1" /dev/nvidia7)"
}

# no_hmm_policy NAME [ROOT]: the 8-GPU fixture has HMM active, which the [uvm] policy would
# fix by loading a module (only planned under --root): these tests are not about it.
# Under a Proxmox ROOT the ini is the cluster filesystem's.
no_hmm_policy() {
	local ini=$CONF/$1.ini
	[ -n "${2:-}" ] && [ -d "$2/etc/pve/lxc" ] && ini=$2/etc/pve/gpu-provision/$1.ini
	printf '[uvm]\ndisable_hmm = no\n' >>"$ini"
}

# adopt_and_start NAME ROOT CONFIG: a dry run that changes nothing, adopt, a start that
# gives GPU 0 only, and detach leaving the config as it was without the recipe's lines.
adopt_and_start() {
	local name=$1 root=$2 config=$3 out
	cp "$config" "$WORK/$name.before"
	out=$(gp --root "$root" adopt "$name" --dry-run)
	cmp "$WORK/$name.before" "$config"
	grep -qx "adopt $name: GPUs 0 (the GPUs its lines gave)" <<<"$out"
	check "lines out" 7 "$(grep -c '^-lxc' <<<"$out")"
	grep -q "^left alone: $config:[0-9]*: .*c 246:\* rwm (its major belongs to another device" <<<"$out"
	gp --root "$root" adopt "$name" >/dev/null
	cmp "$WORK/$name.before" "$config.gpu-provision-adopt.bak"
	no_hmm_policy "$name" "$root"
	check "recipe lines left" 0 "$(count_matching -e 'c 195:\*' -e 'c 243:' -e 'mount.entry.*nvidia' "$config")"
	start "$name"
	assert_only_gpu0 "$name"
	stop "$name"
	gp --root "$root" detach "$name" >/dev/null
	grep -v -e 'c 195:\*' -e 'c 243:' -e 'c 511:\*' -e 'mount.entry.*nvidia' "$WORK/$name.before" >"$WORK/$name.want"
	cmp "$WORK/$name.want" "$config"
}

# Plain LXC syntax with the keys this host enforces, optional binds: before adopt the
# wildcard lets the container open a GPU it was not given; after, only GPU 0.
test_adopt_lxc_enforced_keys() {
	recipe_container rl1 "$(enforced_key)" ,optional
	start rl1
	in_ct "$P" rl1 "mknod /dev/nvidia5 c 195 5"
	check "before: nvidia5 reachable" ENXIO "$(open_result "$P" rl1 /dev/nvidia5)"
	stop rl1
	adopt_and_start rl1 "$WORK/rl1" "$P/rl1/config"
}

# Plain LXC syntax with the other cgroup version's keys, binds without optional.
test_adopt_lxc_other_keys() {
	local key=lxc.cgroup2.devices.allow rc=0
	[ "$(enforced_key)" = "$key" ] && key=lxc.cgroup.devices.allow
	recipe_container rl2 "$key" ""
	if [ "$(lxc-start --version | cut -d. -f1)" -lt 7 ]; then
		adopt_and_start rl2 "$WORK/rl2" "$P/rl2/config"
		return
	fi
	# LXC 7 loads no config with the recipe's c 246 line (not NVIDIA's): adopt says so
	# and leaves the config as it was.
	cp "$P/rl2/config" "$WORK/rl2.before"
	gp --root "$WORK/rl2" adopt rl2 2>"$WORK/rl2.err" || rc=$?
	check "exit" 2 "$rc"
	grep -q 'lxc.cgroup.devices.allow = c 246:\* rwm": LXC 7.* loads no config with an lxc.cgroup.\* key' "$WORK/rl2.err"
	cmp "$WORK/rl2.before" "$P/rl2/config"
}

# lxc_of_pve PVE-CONFIG LXC-CONFIG: the raw lxc.* lines of the current section, as
# Proxmox's update_lxc_config writes them into the container's LXC config at each start.
lxc_of_pve() {
	sed -n '/^\[/q; s/^\(lxc\.[^:= ]*\) *[:=] */\1 = /p' "$1" >>"$2"
}

# Proxmox syntax (both "lxc.x: v" and "lxc.x = v"): adopt edits /etc/pve/lxc/ID.conf; the
# container's LXC config is made from it as Proxmox does, and started.
test_adopt_pve_syntax() {
	local pve=$WORK/rp/etc/pve/lxc/311.conf
	make_root b200x8-590-open-hmm "$WORK/rp"
	mkdir -p "${pve%/*}"
	{
		printf '# GPU box\narch: amd64\nhostname: rp\nmemory: 2048\nostype: debian\n'
		recipe_lines "$WORK/rp" "$(enforced_key)" ,optional | sed '1,3s/ = /: /'
		printf '\n[before-gpu]\narch: amd64\nlxc.mount.entry: /dev/nvidia1 dev/nvidia1 none bind\n'
	} >"$pve"
	new_container "$P" 311
	cp "$P/311/config" "$WORK/311.lxc"
	lxc_of_pve "$pve" "$P/311/config"
	start 311
	in_ct "$P" 311 "mknod /dev/nvidia6 c 195 6"
	check "before: nvidia6 reachable" ENXIO "$(open_result "$P" 311 /dev/nvidia6)"
	stop 311
	tail=$(sed -n '/^\[/,$p' "$pve")
	gp --root "$WORK/rp" adopt 311 >/dev/null
	no_hmm_policy 311 "$WORK/rp"
	check "snapshot untouched" "$tail" "$(sed -n '/^\[/,$p' "$pve")"
	cp "$WORK/311.lxc" "$P/311/config"
	lxc_of_pve "$pve" "$P/311/config"
	start 311
	assert_only_gpu0 311
	stop 311
}

# adopt keeps the config as it was before it, and never over an earlier adopt's copy; an
# adopt with nothing of a recipe's to take out keeps none.
test_adopt_keeps_the_first_backup() {
	local out
	recipe_container rb "$(enforced_key)" ,optional
	cp "$P/rb/config" "$WORK/rb.first"
	gp --root "$WORK/rb" adopt rb >/dev/null
	cmp "$WORK/rb.first" "$P/rb/config.gpu-provision-adopt.bak"
	check "mode kept" "$(stat -c %a "$WORK/rb.first")" "$(stat -c %a "$P/rb/config.gpu-provision-adopt.bak")"
	out=$(gp --root "$WORK/rb" adopt rb --gpus 1)
	grep -q 'no line of a recipe was there to take out' <<<"$out" || { echo "    [$out]"; return 1; }
	echo "lxc.mount.entry = $WORK/rb/dev/nvidia1 dev/nvidia1 none bind,create=file" >>"$P/rb/config"
	cp "$P/rb/config" "$WORK/rb.second"
	out=$(gp --root "$WORK/rb" adopt rb)
	grep -q "kept as $P/rb/config.gpu-provision-adopt.bak.1" <<<"$out" || { echo "    [$out]"; return 1; }
	cmp "$WORK/rb.first" "$P/rb/config.gpu-provision-adopt.bak"
	cmp "$WORK/rb.second" "$P/rb/config.gpu-provision-adopt.bak.1"
}

# attach on a recipe's config: refused, each line named, nothing written.
test_attach_refuses_recipe() {
	local err
	recipe_container ra "$(enforced_key)" ,optional
	cp "$P/ra/config" "$WORK/ra.before"
	set +e
	err=$(gp --root "$WORK/ra" attach ra --gpus 0 2>&1)
	rc=$?
	set -e
	check "exit" 2 "$rc"
	cmp "$WORK/ra.before" "$P/ra/config"
	check "ini" absent "$([ -e "$CONF/ra.ini" ] && echo present || echo absent)"
	line=$(grep -n 'nvidiactl dev/nvidiactl' "$P/ra/config" | cut -d: -f1)
	grep -q "$P/ra/config:$line: lxc.mount.entry = $WORK/ra/dev/nvidiactl" <<<"$err" ||
		{ echo "    [$err]"; return 1; }
	check "lines named" 7 "$(grep -c "$P/ra/config:[0-9]*: lxc" <<<"$err")"
	grep -q 'gpu-provision adopt ra --dry-run' <<<"$err"
}

# A recipe's bind pasted after attach: the start is refused before anything is mounted,
# naming the line and the command that fixes it.
test_recipe_bind_refused_at_start() {
	make_root h200-580-open "$WORK/rs"
	new_container "$P" rs
	gp --root "$WORK/rs" attach rs --gpus 0 >/dev/null
	echo "lxc.mount.entry = $WORK/rs/dev/nvidiactl dev/nvidiactl none bind,optional,create=file" >>"$P/rs/config"
	line=$(wc -l <"$P/rs/config")
	if start rs; then echo "    started with a recipe's bind in the way"; return 1; fi
	assert_refused_clean rs "$WORK/rs" "$P/rs/config:$line: \"lxc.mount.entry = $WORK/rs/dev/nvidiactl"
	grep -q 'Failed to run lxc.hook.pre-start' "$P/rs.log" # before any mount
	grep -q 'gpu-provision adopt rs' "$P/rs.log"
	gp --root "$WORK/rs" adopt rs >/dev/null
	start rs
	check "nvidiactl" ENXIO "$(open_result "$P" rs /dev/nvidiactl)"
	stop rs
}

# The corpus (tests/fixtures/recipes/NN-name/: pve.conf or lxc.conf) on the 8-GPU host,
# through the command line: check's findings (check.expected, which test-recipes holds for
# both cgroup layouts: "ID LINE", a "v1:" or "v2:" line only for that one), adopt's dry
# run (adopt.expected: the lines out, what it leaves, the ini's selection; or why it
# refuses), and the config after adopt and detach (adopted.conf: the recipe's lines gone,
# nothing else changed; absent where adopt refuses). An LXC recipe's config starts with
# three lines of the test's own (name, rootfs, common.conf): its line numbers are those of
# lxc.conf plus three. GP_BLESS=1 writes adopt.expected and adopted.conf from this run
# instead (review them before commit).
RECIPES=$GP_TOP/tests/fixtures/recipes

# recipe_expected FILE TAG: the lines that apply to this host, sorted. Under LXC 7 a
# config's lxc.cgroup.* keys are the error that LXC refuses them (cgroup-v1-lxc7), at the
# same first line, where LXC 6 on v2 finds them not enforced (cgroup-v1-keys).
recipe_expected() {
	local lxc7=cgroup-v1-keys
	[ "$(lxc-start --version | cut -d. -f1)" -lt 7 ] || lxc7=cgroup-v1-lxc7
	awk -v t="$2:" '/^v[12]:/ { if (index($0, t) == 1) print substr($0, 4); next } { print }' "$1" |
		sed "s/^cgroup-v1-keys /$lxc7 /" | sort
}

recipe_findings() { # ROOT NAME: "ID LINE" of the container's findings, sorted
	gp --root "$1" check "$2" --json | jq -r '.containers[0].findings[] |
		.id + " " + (([.evidence | match("(?:\\.conf|/config):([0-9]+)").captures[0].string][0]) // "-")' |
		sort
}

recipe_setup() { # DIR: sets root, name, config for the recipe in DIR
	local dir=$1 nn
	nn=$(basename "$dir")
	nn=$((10#${nn%%-*}))
	if [ -f "$dir/pve.conf" ]; then
		root=$WORK/rcp name=$((300 + nn)) config=$WORK/rcp/etc/pve/lxc/$((300 + nn)).conf
		cp "$dir/pve.conf" "$config"
	else
		root=$WORK/rcl name=rcp$nn config=$P/rcp$nn/config
		mkdir -p "$P/$name"
		printf 'lxc.uts.name = %s\nlxc.rootfs.path = dir:%s\nlxc.include = /usr/share/lxc/config/common.conf\n' \
			"$name" "$P/$name/rootfs" >"$config"
		cat "$dir/lxc.conf" >>"$config"
	fi
}

recipe_dry_run() { # the parts of adopt --dry-run that do not depend on this machine
	gp --root "$root" adopt "$name" --dry-run 2>&1 |
		grep -e '^adopt ' -e '^  /dev/' -e '^-[^-]' -e '^left alone' -e '^note' -e 'error' \
			-e '^devices = ' -e '^caps = ' -e '^inject = ' -e '^capabilities = ' |
		sed -e "s|$config|CONFIG|g" -e "s|$root|ROOT|g" -e "s|gpu-provision: error: ||"
}

recipe_one() { # DIR TAG
	local dir=$1 tag=$2 r got dry adopted=0
	r=$(basename "$dir")
	recipe_setup "$dir"
	got=$(recipe_findings "$root" "$name")
	check "$r: check" "$(recipe_expected "$dir/check.expected" "$tag")" "$got" || return 1
	dry=$(recipe_dry_run)
	gp --root "$root" adopt "$name" --dry-run >/dev/null 2>&1 && adopted=1
	if [ "$adopted" = 1 ]; then
		gp --root "$root" adopt "$name" >/dev/null
		check "$r: after adopt, no recipe line found" 0 \
			"$(recipe_findings "$root" "$name" | count_matching -E '^(recipe-lines|recipe-conflict|recipe-rule-missing) ')" || return 1
		gp --root "$root" detach "$name" >/dev/null
		[ ! -f "$dir/lxc.conf" ] || sed -i '1,3d' "$config"
	fi
	if [ -n "${GP_BLESS:-}" ]; then
		printf '%s\n' "$dry" >"$dir/adopt.expected"
		if [ "$adopted" = 1 ]; then cp "$config" "$dir/adopted.conf"; else rm -f "$dir/adopted.conf"; fi
		return 0
	fi
	check "$r: adopt --dry-run" "$(cat "$dir/adopt.expected")" "$dry" || return 1
	check "$r: adopted (or refused) as expected" "$([ -f "$dir/adopted.conf" ] && echo 1 || echo 0)" "$adopted" || return 1
	[ "$adopted" = 0 ] || cmp "$dir/adopted.conf" "$config" || { diff "$dir/adopted.conf" "$config" | head -5; return 1; }
}

test_recipe_corpus() {
	local dir tag=v2 failed=0 n=0
	[ "$(enforced_key)" = lxc.cgroup2.devices.allow ] || tag=v1
	make_root b200x8-590-open-hmm "$WORK/rcp"
	mkdir -p "$WORK/rcp/etc/pve/lxc"
	make_root b200x8-590-open-hmm "$WORK/rcl"
	for dir in "$RECIPES"/[0-9]*/; do
		n=$((n + 1))
		recipe_one "${dir%/}" "$tag" || failed=$((failed + 1))
	done
	check "recipes" "at least 10" "$([ "$n" -ge 10 ] && echo "at least 10" || echo "$n")"
	check "recipes failed" 0 "$failed"
}

# recipe_start_one DIR: the LXC recipe in DIR, on a busybox container of this machine
# (unprivileged where the recipe maps ids), adopted and started: each GPU adopt chose opens
# past the device cgroup (ENXIO: no driver here), the others are not there, and in a
# privileged container one made by hand is stopped by the cgroup (EPERM); where adopt
# injects the driver (the recipe's hook gave it), nvidia-smi runs from it.
recipe_start_one() {
	local dir=$1 nn name mode=privileged gpus index minor failed=0 seen=0
	nn=$(basename "$dir")
	nn=$((10#${nn%%-*}))
	name=rst$nn
	grep -q '^lxc.idmap' "$dir/lxc.conf" && mode=unprivileged
	new_container "$P" "$name" "$mode"
	grep -v '^lxc.idmap' "$dir/lxc.conf" >>"$P/$name/config"
	gp --root "$WORK/rst" adopt "$name" >/dev/null || { echo "    $name: adopt failed"; return 1; }
	gpus=$(sed -n 's/^devices = //p' "$CONF/$name.ini")
	start "$name" || {
		echo "    $name: did not start after adopt:"
		grep -e ERROR -e gpu-hook "$P/$name.log" | head -5
		return 1
	}
	while read -r index minor; do
		seen=$((seen + 1))
		case ",$gpus," in
		*",$index,"* | ",all,")
			check "$name: GPU $index (adopt chose $gpus)" ENXIO \
				"$(open_result "$P" "$name" "/dev/nvidia$minor")" || failed=1
			continue
			;;
		esac
		check "$name: GPU $index (adopt chose $gpus)" absent \
			"$(node_of "$name" "/dev/nvidia$minor")" || failed=1
		[ "$mode" = privileged ] || continue
		in_ct "$P" "$name" "mknod /tmp/gpu$minor c 195 $minor"
		check "$name: GPU $index made by hand" EPERM "$(open_result "$P" "$name" "/tmp/gpu$minor")" ||
			failed=1
	done < <(gp --root "$WORK/rst" host --json | jq -r '.gpus[] | "\(.index) \(.minor)"')
	check "$name: GPUs looked at" 8 "$seen" || failed=1
	check "$name: nvidiactl" ENXIO "$(open_result "$P" "$name" /dev/nvidiactl)" || failed=1
	if grep -qx "inject = yes" "$CONF/$name.ini"; then # the driver its hook gave, injected
		in_ct "$P" "$name" nvidia-smi | grep -qF "nvmlInit_v2 0" ||
			{ echo "    $name: nvidia-smi of the injected driver failed"; failed=1; }
	fi
	stop "$name"
	return "$failed"
}

# Every LXC recipe of the corpus that adopt takes over, started for real. Not 18: adopt
# leaves its pre-start hook that chowns the host's /dev/nvidia0, which this machine lacks,
# so LXC refuses the start (check says hook-changes-host-nodes).
test_recipe_lxc_adopted_start() {
	local dir n=0 failed=0
	make_root b200x8-590-open-hmm "$WORK/rst"
	echo Y >"$WORK/rst/sys/module/nvidia_uvm/parameters/uvm_disable_hmm" # prepare's doing
	add_host_userspace "$WORK/rst" 590.48.01 # for those whose hook gave the driver: injected
	for dir in "$RECIPES"/[0-9]*/; do
		[ -f "$dir/lxc.conf" ] && [ -f "$dir/adopted.conf" ] || continue
		case $(basename "$dir") in 18-*) continue ;; esac
		n=$((n + 1))
		recipe_start_one "${dir%/}" || failed=$((failed + 1))
	done
	check "LXC recipes started" "at least 6" "$([ "$n" -ge 6 ] && echo "at least 6" || echo "$n")"
	check "recipes failed" 0 "$failed"
}

# Proxmox rewrites the whole file at any write of its own (pct set, a migration): comment
# lines move to the top, keys are sorted, "lxc.x = v" becomes "lxc.x: v". attach's record
# and a recipe's lines are still found: adopt, a rewrite, detach gives the rewritten
# config without the recipe's lines.
test_pve_rewrite_between_adopt_and_detach() {
	local pve=$WORK/rw/etc/pve/lxc/312.conf want=$WORK/rw-want/etc/pve/lxc/312.conf
	make_root b200x8-590-open-hmm "$WORK/rw"
	mkdir -p "${pve%/*}"
	cp "$GP_FIXTURES/pve-lxc-conf/test-debian-005.conf" "$pve"
	{
		echo "# GPU passthrough from the wiki"
		recipe_lines "$WORK/rw" lxc.cgroup2.devices.allow ,optional
		echo "lxc.environment = TZ=UTC"
	} >>"$pve"
	mkdir -p "${want%/*}"
	grep -v -e 'nvidia' -e 'c 195:' -e 'c 243:' -e 'c 511:' "$pve" >"$want"
	GP_FAKE_PVE_ROOT=$WORK/rw "$GP_TOP/tests/fakes/pct" set 312 --cores 3
	gp --root "$WORK/rw" adopt 312 >/dev/null
	GP_FAKE_PVE_ROOT=$WORK/rw "$GP_TOP/tests/fakes/pct" set 312 --memory 1024
	grep -q '^lxc.hook.pre-start: .*gpu-hook' "$pve"
	gp --root "$WORK/rw" detach 312 >/dev/null
	GP_FAKE_PVE_ROOT=$WORK/rw-want "$GP_TOP/tests/fakes/pct" set 312 --cores 3 --memory 1024
	cmp "$want" "$pve" || { diff "$want" "$pve" | head; return 1; }
	check "attach's record after a rewrite" 0 "$(count_matching -e gpu-hook -e 'c 511:0' "$pve")"
}

# check --all: the containers with an ini, and those a recipe gave GPUs; not the others.
test_check_all_includes_recipe_containers() {
	local out names
	gpca() { "$GP" --confdir "$WORK/rca.conf" --lxcpath "$P" --root "$WORK/rca" "$@"; }
	mkdir -p "$WORK/rca.conf"
	pve_root "$WORK/rca" test-debian-005.conf 321
	cp "$GP_FIXTURES/pve-lxc-conf/test-debian-005.conf" "$WORK/rca/etc/pve/lxc/322.conf"
	cp "$GP_FIXTURES/pve-lxc-conf/test-debian-005.conf" "$WORK/rca/etc/pve/lxc/323.conf"
	gpca attach 321 --gpus all >/dev/null
	echo "lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,optional,create=file" >>"$WORK/rca/etc/pve/lxc/322.conf"
	set +e
	out=$(gpca check --all --json)
	set -e
	names=$(jq -r '[.containers[].name] | join(" ")' <<<"$out")
	check "containers checked" "321 322" "$names"
	check "322's recipe said" recipe-lines \
		"$(jq -r '.containers[] | select(.name == "322") | .findings[] | select(.id == "recipe-lines") | .id' <<<"$out")"
}
