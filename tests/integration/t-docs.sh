# shellcheck shell=bash
# The man pages (man/*.scd), --help and each COMMAND --help against the code's tables,
# and the bash completion (completion/gpu-provision) driven as bash would drive it.
# The ini keys against gpu-provision.ini(5): tests/unit/test-docs.c (the key table is C's).

DOCS_MAN=$GP_TOP/man

# scd_section FILE SECTION: the lines of "# SECTION" up to the next heading.
scd_section() {
	awk -v s="# $2" '$0 == s {on = 1; next} /^# / {on = 0} on' "$1"
}

# The commands and options --help prints (printed from commands[] and cli_options[]).
help_commands() { "$GP" --help | awk '/^Commands:/ {on = 1; next} on && /^$/ {exit} on {print $1}' | sort; }
help_options() { "$GP" "$@" --help | awk '/^Options/ {on = 1; next} on && /^  --[a-z]/ {print $1}' | sort; }

# same WHAT EXPECTED ACTUAL: two sorted lists, their difference said both ways.
same() {
	[ "$2" = "$3" ] && return 0
	echo "    $1 differ:"
	{ diff <(echo "$2") <(echo "$3") || true; } | sed -n 's/^</    only in the code:/p; s/^>/    only in the docs:/p'
	return 1
}

test_docs_man_commands_and_options() {
	local man=$DOCS_MAN/gpu-provision.8.scd
	same "commands (--help vs gpu-provision(8))" "$(help_commands)" \
		"$(scd_section "$man" COMMANDS | sed -n 's/^\*\([a-z]*\)\*.*/\1/p' | sort)"
	same "options (--help vs gpu-provision(8))" "$(help_options)" \
		"$(scd_section "$man" OPTIONS | sed -n 's/^\*\(--[a-z-]*\)\*.*/\1/p' | sort)"
	# the exit codes of exitcode.h
	check "exit codes" "0 1 2 3" \
		"$(scd_section "$man" "EXIT STATUS" | sed -n 's/^\*\([0-9]\)\*$/\1/p' | xargs)"
}

# Each command's --help: exits 0, its usage line, exactly the options its row lists, and
# gpu-provision(8) lists the same ones under the command.
test_docs_command_help() {
	local man=$DOCS_MAN/gpu-provision.8.scd cmd out all used="" listed
	all=$(help_options)
	for cmd in $(help_commands); do
		out=$("$GP" "$cmd" --help)
		check "$cmd --help usage" "Usage: gpu-provision $cmd" "$(echo "$out" | head -1 | cut -d' ' -f1-3)"
		check "--help $cmd" "$out" "$("$GP" --help "$cmd")"
		listed=$(help_options "$cmd")
		[ -n "$listed" ] || { echo "    $cmd --help lists no option"; return 1; }
		# each is an option of the full list
		same "$cmd's options not in --help" "" "$(comm -13 <(echo "$all") <(echo "$listed"))"
		same "$cmd's options (--help vs gpu-provision(8))" "$listed" \
			"$(scd_section "$man" COMMANDS |
				awk -v c="*$cmd*" 'index($0, c) == 1 {on = 1; next} /^\*/ {on = 0} on' |
				awk '/Options:/ {on = 1} on' | grep -o -- '--[a-z-]*' | sort)"
		used="$used$listed"$'\n'
	done
	same "options no command takes" "" "$(comm -23 <(echo "$all") <(echo "$used" | sort -u))"
	# spot checks of the tables
	"$GP" prepare --help | grep -q -- '--persist'
	! "$GP" prepare --help | grep -q -- '--gpus'
	"$GP" attach --help | grep -q -- '--gpus'
	! "$GP" host --help | grep -q -- '--persist'
	local rc=0
	"$GP" nosuch --help >/dev/null 2>&1 || rc=$?
	check "unknown command --help" 2 "$rc"
}

# The three pages build with scdoc and man reads them without a warning.
test_docs_man_pages_render() {
	local f out
	command -v scdoc >/dev/null || { echo "scdoc is missing: make deps"; return 77; }
	for f in "$DOCS_MAN"/*.scd; do
		scdoc <"$f" >"$WORK/page"
		out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$WORK/page" 2>&1 >/dev/null)
		check "man warnings for ${f##*/}" "" "$out"
	done
	check "pages" "gpu-hook.8.scd gpu-provision.8.scd gpu-provision.ini.5.scd" \
		"$(cd "$DOCS_MAN" && echo *.scd)"
	# gpu-hook(8): its hooks and its exit codes
	for f in pre-start autodev mount post-stop; do
		scd_section "$DOCS_MAN/gpu-hook.8.scd" HOOKS | grep -q "^\*$f\*"
	done
	check "gpu-hook exit codes" "0 1 2 3" \
		"$(scd_section "$DOCS_MAN/gpu-hook.8.scd" "EXIT STATUS" | sed -n 's/^\*\([0-9]\)\*$/\1/p' | xargs)"
}

# complete_line ARGS...: COMPREPLY for the line "gpu-provision ARGS..." (the last word is
# the one being completed), one per line, sorted.
complete_line() {
	(
		# shellcheck source=/dev/null
		. "$GP_TOP/completion/gpu-provision"
		COMP_WORDS=("$GP" "$@")
		COMP_CWORD=$#
		COMP_LINE="${COMP_WORDS[*]}"
		COMP_POINT=${#COMP_LINE}
		_gpu_provision
		printf '%s\n' "${COMPREPLY[@]}" | sort
	)
}

# complete_as_bash WORD...: as bash drives it, with bash-completion loaded: the line split
# at COMP_WORDBREAKS (':' and '=' are words of their own); prints what bash would insert.
complete_as_bash() {
	(
		# shellcheck source=/dev/null
		. /usr/share/bash-completion/bash_completion
		# shellcheck source=/dev/null
		. "$GP_TOP/completion/gpu-provision"
		COMP_LINE="$GP $*"
		COMP_POINT=${#COMP_LINE}
		read -r -a COMP_WORDS <<<"$(sed -E 's/([:=])/ \1 /g' <<<"$COMP_LINE")"
		[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
		[[ $COMP_LINE == *[:=] ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_gpu_provision
		printf '%s\n' "${COMPREPLY[@]}" | sort
	)
}

test_completion() {
	local root=$WORK/docs-root lxcp=$WORK/docs-lxc fix=$GP_FIXTURES/quad-550-proprietary
	local nl=$'\n'
	# commands, from an empty word and from a prefix, also after an option
	same "commands" "$(help_commands)" "$(complete_line "")"
	check "pr" "prepare${nl}probe" "$(complete_line pr)"
	check "after --root" "check" "$(complete_line --root "$fix" ch)"
	# options per command, as its --help has them
	same "attach's options" "$( (help_options attach; echo --help) | sort)" "$(complete_line attach --)"
	check "prepare --p" "--persist" "$(complete_line prepare --p)"
	check "attach --p" "--pve" "$(complete_line attach --p)"
	same "global options" "$( (help_options; echo --help) | sort -u)" "$(complete_line --)"
	# --gpus from the host under --root: all, indexes, UUIDs, PCI addresses; comma lists
	check "--gpus" "$(printf '%s\n' all 0 1 2 3 \
		GPU-1a2b3c4d-0000-4000-8000-000000000001 GPU-1a2b3c4d-0000-4000-8000-000000000041 \
		GPU-1a2b3c4d-0000-4000-8000-000000000081 GPU-1a2b3c4d-0000-4000-8000-0000000000c1 \
		0000:01:00.0 0000:41:00.0 0000:81:00.0 0000:c1:00.0 | sort)" \
		"$(complete_line --root "$fix" attach web --gpus "")"
	check "--gpus 0,0000:8" "0,0000:81:00.0" "$(complete_line --root "$fix" attach web --gpus 0,0000:8)"
	check "--gpus 0, leaves 0 out" "$(printf '%s\n' 0,1 0,2 0,3)" "$(complete_line --root "$fix" attach web --gpus 0, | grep -E '^0,[0-9]$')"
	# as bash splits the line: after a ':' it inserts only what follows it; --root=DIR counts
	check "bash: --gpus 0000:4" "41:00.0" "$(complete_as_bash --root "$fix" attach web --gpus 0000:4)"
	# (this machine has no GPU: without --root=DIR understood, "all" would be all)
	check "bash: --root=DIR" 13 "$(complete_as_bash --root="$fix" attach x --gpus "" | wc -l)"
	check "bash: --output FILE" "$WORK/docs-out.prom" "$(: >"$WORK/docs-out.prom"; complete_as_bash check --output "$WORK/docs-out.")"
	check "--gpus GPU-...c" "GPU-1a2b3c4d-0000-4000-8000-0000000000c1" \
		"$(complete_line --root "$fix" attach web --gpus GPU-1a2b3c4d-0000-4000-8000-0000000000c)"
	check "no root, no GPUs" "all" "$(complete_line --root "$WORK/none" attach x --gpus "")"
	# --caps: the MIG caps and the instances that exist under the root
	mkdir -p "$root"
	cp -a "$fix/proc" "$root/"
	mkdir -p "$root/proc/driver/nvidia/capabilities/gpu3/mig/gi1/ci0"
	touch "$root/proc/driver/nvidia/capabilities/gpu3/mig/gi1/access" \
		"$root/proc/driver/nvidia/capabilities/gpu3/mig/gi1/ci0/access"
	check "--caps" "$(printf '%s\n' gpu3/gi1 gpu3/gi1/ci0 mig-config mig-monitor | sort)" \
		"$(complete_line --root "$root" attach web --caps "")"
	check "--caps mig-config,g" "$(printf '%s\n' mig-config,gpu3/gi1 mig-config,gpu3/gi1/ci0)" \
		"$(complete_line --root "$root" attach web --caps mig-config,g)"
	# --format, --mode
	check "check --format" "$(printf '%s\n' json prometheus text)" "$(complete_line check --format "")"
	check "findings --format" "markdown" "$(complete_line findings --format "")"
	check "--mode" "$(printf '%s\n' devn hook)" "$(complete_line attach web --mode "")"
	# plain LXC containers: the directories of --lxcpath that hold a config
	mkdir -p "$lxcp/web" "$lxcp/db" "$lxcp/notone"
	touch "$lxcp/web/config" "$lxcp/db/config"
	check "lxc names" "$(printf '%s\n' db web)" "$(complete_line --root "$root" --lxcpath "$lxcp" attach "")"
	check "lxc w" "web" "$(complete_line detach --lxcpath "$lxcp" w)"
	check "prepare --container" "db" "$(complete_line --lxcpath "$lxcp" prepare --container d)"
	# Proxmox VE: the IDs of <root>/etc/pve/lxc, hostnames beside them when there is a choice
	mkdir -p "$root/etc/pve/lxc"
	printf 'arch: amd64\nhostname: web\n' >"$root/etc/pve/lxc/101.conf"
	printf 'hostname: db\n[snap1]\nhostname: old\n' >"$root/etc/pve/lxc/102.conf"
	check "pve ids" "$(printf '%s\n' '101  (web)' '102  (db)')" "$(complete_line --root "$root" probe "")"
	check "pve one id" "102" "$(complete_line --root "$root" probe 102)"
}
