#!/bin/bash
# Holds lib/ to the architecture lib/README.md draws: one folder a layer, lowest first.
#
#   tools/check-layers.sh includes "LAYERS" "HOOK_LAYERS"   the build's check (grep only)
#   tools/check-layers.sh all "LAYERS" "HOOK_LAYERS"        make check's (universal-ctags)
#
# includes: every file of lib/LAYER/ includes headers of its own layer and of those before
# it, by "layer/name.h", and no other (but the probe's protocol, probe/protocol.h, outside
# the hook); hooks/ only the hook's layers, which come first. So no arrow between folders
# points up and none closes a circle.
# all: that, and between files: no circle of files using each other's functions, variables
# or types (a file and its header are one), and each header's first comment names the files
# that define what it declares ("Implemented in lib/x/y.c ..."; "Header only" for none), and
# no function takes two of a context's words (root, confdir, lxcpath, pve) loose.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=$1
read -ra layers <<<"$2"
read -ra hook_layers <<<"$3"
fail=0

say() {
	echo "check-layers: $*" >&2
	fail=1
}

rank_of() {
	local i
	for i in "${!layers[@]}"; do
		[ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }
	done
	echo -1
}

# The hook's layers are the first ones, so a hook file's rule is the layers' own rule.
for i in "${!hook_layers[@]}"; do
	[ "${layers[$i]:-}" = "${hook_layers[$i]}" ] ||
		say "HOOK_LAYERS ($3) must be the first of LAYERS ($2), in that order"
done
for f in lib/*; do
	if [ -d "$f" ]; then
		[ "$(rank_of "${f#lib/}")" -ge 0 ] || say "$f/: a folder that is no layer: add it to LAYERS in Makefile, in its place"
		[ -e "$f/README.md" ] || say "$f/: no README.md saying what the layer owns and may use"
	elif [ "$f" != lib/README.md ]; then
		say "$f: lib/ holds layers only: move it into the layer it belongs to"
	fi
done

# check_includes FILE MAXRANK WHAT: each quoted include of FILE is "layer/name.h" of a layer
# at most MAXRANK (WHAT names the rule), and is there.
check_includes() {
	local file=$1 max=$2 what=$3 line n inc layer r
	while IFS=: read -r n line; do
		inc=${line#*\"}
		inc=${inc%%\"*}
		layer=${inc%%/*}
		r=$(rank_of "$layer")
		# The probe's line protocol, header only, is shared with the layers that run it.
		if [ "$inc" = probe/protocol.h ] && [ "$max" -ge "${#hook_layers[@]}" ]; then
			continue
		fi
		if [ "$layer" = "$inc" ] || [ "$r" -lt 0 ]; then
			say "$file:$n: #include \"$inc\" names no layer: write it \"layer/${inc##*/}\""
		elif [ "$r" -gt "$max" ]; then
			say "$file:$n: #include \"$inc\": $layer is above $what (lib/README.md)"
		elif [ ! -e "lib/$inc" ]; then
			say "$file:$n: #include \"$inc\": no lib/$inc"
		fi
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
}

for l in "${layers[@]}"; do
	r=$(rank_of "$l")
	for f in lib/"$l"/*.[ch]; do
		[ -e "$f" ] && check_includes "$f" "$r" "the layer $l"
	done
done
for f in hooks/*.c; do
	check_includes "$f" $((${#hook_layers[@]} - 1)) "the hook's layers (${hook_layers[*]})"
done

if [ "$mode" = includes ]; then
	exit "$fail"
fi
command -v ctags >/dev/null && ctags --version 2>/dev/null | grep -q Universal ||
	{ echo "check-layers: universal-ctags is missing: run sudo make deps" >&2; exit 1; }

files=$(ls lib/*/*.[ch] probe/*.[ch] provision/*.[ch] hooks/*.c)
tags=$(mktemp)
trap 'rm -f "$tags"' EXIT
# name kind file: what each file defines for the others (a .c its functions and variables
# that are not static, a header its types and macros) and what each header declares.
# shellcheck disable=SC2086 # one file a word
# (--extras=-F leaves out what is static to its file.)
ctags -x --c-kinds=fpvstguedx --extras=-F --_xformat='%N %K %F' $files |
	awk '$3 ~ /\.c$/ && ($2 == "function" || $2 == "variable") { print $1, "def", $3 }
	     $3 ~ /\.h$/ && $2 ~ /^(struct|typedef|union|enum|enumerator|macro)$/ { print $1, "def", $3 }
	     $3 ~ /\.h$/ && ($2 == "prototype" || $2 == "externvar") { print $1, "decl", $3 }' >"$tags"

# Circles of files: FILE -> the file (.c and .h one) defining a name FILE uses (a header's
# own declarations are not uses of it).
# shellcheck disable=SC2086
loops=$(for f in $files; do
	sed -e 's/"\([^"\\]\|\\.\)*"/""/g' "$f" | gcc -fpreprocessed -dD -E -P -x c - 2>/dev/null |
		grep -o '\b[A-Za-z_][A-Za-z0-9_]*\b' | sort -u | awk -v f="$f" '{ print f, $1 }'
done | awk 'NR == FNR { if ($2 == "def") { d = $3; sub(/\.[ch]$/, "", d); def[$1] = d }
			 else decl[$3, $1] = 1; next }
	    { f = $1; sub(/\.[ch]$/, "", f) }
	    ($2 in def) && def[$2] != f && !(($1, $2) in decl) { print f, def[$2] }' "$tags" - |
	sort -u | tsort 2>&1 >/dev/null |
	awk '/input contains a loop/ { if (l) print l; l = "" ; next } { sub(/^tsort: /, ""); l = l " " $0 }
	     END { if (l) print l }' || true)
if [ -n "$loops" ]; then
	say "files that use each other (move what both need below them, or join them):"
	printf '%s\n' "$loops" | sed 's/^/  a circle:/' | sort -u >&2
fi

# Where a command or a start works travels as one struct gp_ctx (lib/base/ctx.h): no function
# takes two of its words (root, confdir, lxcpath, pve) one by one, but the one that makes it.
while read -r line; do
	say "$line"
done < <(
	# shellcheck disable=SC2086
	ctags -x --c-kinds=fp --_xformat='%N %F:%n %S' $files |
		awk '$1 != "gp_ctx_init" { n = 0
			if ($0 ~ /\* root[,)]/) n++; if ($0 ~ /\* confdir[,)]/) n++
			if ($0 ~ /\* lxcpath[,)]/) n++; if ($0 ~ /bool pve[,)]/) n++
			if (n >= 2) print $2 ": " $1 " takes where it works word by word: give it a const struct gp_ctx *" }'
)

# Each header's "Implemented in" names exactly the files defining what it declares.
for h in $(ls lib/*/*.h); do
	head=$(awk '/^#ifndef/ { exit } { print }' "$h")
	named=$(printf '%s\n' "$head" | grep -o 'lib/[a-z]*/[a-z0-9_]*\.c' | sort -u || true)
	defs=$(awk -v h="$h" '$2 == "decl" && $3 == h { print $1 }' "$tags" | sort -u |
		join - <(awk '$2 == "def" && $3 ~ /\.c$/ { print $1, $3 }' "$tags" | sort -u) |
		awk '{ print $2 }' | sort -u)
	if [ -z "$defs" ]; then
		printf '%s\n' "$head" | grep -q 'Header only' ||
			say "$h: declares nothing a file defines: say \"Header only\" in its first comment"
	elif [ "$named" != "$defs" ]; then
		say "$h: its first comment names $(echo $named) but what it declares is defined in $(echo $defs)"
	fi
	# A header of the hook's layers declares only what the hook links.
	layer=${h#lib/}
	if [ "$(rank_of "${layer%%/*}")" -lt "${#hook_layers[@]}" ]; then
		for d in $defs; do
			l=${d#lib/}
			[ "$(rank_of "${l%%/*}")" -lt "${#hook_layers[@]}" ] ||
				say "$h: declares what $d defines, which the hook does not link: give it a header of its own layer"
		done
	fi
done
exit "$fail"
