# shellcheck shell=bash
# The layers' rule (tools/check-layers.sh, lib/README.md), each part broken once in a copy of
# the sources: the check names the file and line and fails, and the build stops at it.

LAYERS_ALL="base host config plan start driver diagnose check cluster ops"
LAYERS_HOOK="base host config plan start"

# layers_copy: a copy of what the check reads, in $WORK/layers; prints its path.
layers_copy() {
	local d=$WORK/layers
	rm -rf "$d" && mkdir -p "$d/tools"
	cp -r "$GP_TOP/lib" "$GP_TOP/probe" "$GP_TOP/provision" "$GP_TOP/hooks" "$d/"
	cp "$GP_TOP/tools/check-layers.sh" "$d/tools/"
	echo "$d"
}

# layers_fails DIR PATTERN: the whole check fails in DIR, saying PATTERN.
layers_fails() {
	local out rc=0
	out=$("$1/tools/check-layers.sh" all "$LAYERS_ALL" "$LAYERS_HOOK" 2>&1) || rc=$?
	check "exit" 1 "$rc"
	if ! grep -qF -- "$2" <<<"$out"; then
		echo "    expected [$2] in:"
		sed 's/^/      /' <<<"$out"
		return 1
	fi
}

test_layers_hold_today() {
	local d
	d=$(layers_copy)
	"$d/tools/check-layers.sh" all "$LAYERS_ALL" "$LAYERS_HOOK"
}

test_layers_upward_include_refused() {
	local d
	d=$(layers_copy)
	sed -i '0,/^#include "/s||#include "ops/attach.h"\n#include "|' "$d/lib/base/util.c"
	layers_fails "$d" 'lib/base/util.c:'
	layers_fails "$d" '#include "ops/attach.h": ops is above the layer base'
}

# The hook's boundary: its own file and a header of its layers declaring the driver's.
test_layers_hook_boundary() {
	local d
	d=$(layers_copy)
	sed -i '0,/^#include "/s||#include "driver/kmod.h"\n#include "|' "$d/hooks/gpu-hook.c"
	layers_fails "$d" "#include \"driver/kmod.h\": driver is above the hook's layers"
	d=$(layers_copy)
	sed -i 's|^#endif|int gp_module_remove(struct kmod_ctx *ctx, const char *name);\n#endif|' \
		"$d/lib/host/modules.h"
	layers_fails "$d" 'lib/host/modules.h: declares what lib/driver/modload.c defines, which the hook does not link'
}

test_layers_bare_include_refused() {
	local d
	d=$(layers_copy)
	sed -i 's|#include "plan/plan.h"|#include "plan.h"|' "$d/lib/plan/plan.c"
	layers_fails "$d" '#include "plan.h" names no layer'
}

# Two files of one layer that use each other: plan.c calling planfile.c, which uses
# plan.h's types.
test_layers_circle_found() {
	local d
	d=$(layers_copy)
	sed -i 's|#include "plan/plan.h"|#include "plan/planfile.h"|' "$d/lib/plan/plan.c"
	printf 'char *gp_plan_text(void);\nchar *gp_plan_text(void) { return gp_plan_format(NULL); }\n' \
		>>"$d/lib/plan/plan.c"
	layers_fails "$d" 'a circle:'
	layers_fails "$d" 'lib/plan/plan'
}

test_layers_header_comment_held() {
	local d
	d=$(layers_copy)
	sed -i 's| and lib/start/injectmount.c (bound by the mount hook)||; s|lib/start/injectstage.c (staged by|lib/start/injectstage.c (staged by)|' \
		"$d/lib/start/inject.h"
	layers_fails "$d" 'lib/start/inject.h: its first comment names'
	d=$(layers_copy)
	sed -i 's|Header only: ||' "$d/lib/host/facts.h"
	layers_fails "$d" 'lib/host/facts.h: declares nothing a file defines'
}

# A function that takes the context's words loose, not the context, is named.
test_layers_context_held() {
	local d
	d=$(layers_copy)
	sed -i 's|^int gp_ini_load(const struct gp_ctx \*ctx, |int gp_ini_load(const char *root, const char *confdir, |' \
		"$d/lib/config/ini.h"
	layers_fails "$d" 'lib/config/ini.h:'
	layers_fails "$d" 'gp_ini_load takes where it works word by word'
}

test_layers_folders_held() {
	local d
	d=$(layers_copy)
	touch "$d/lib/stray.c"
	mkdir "$d/lib/extra"
	layers_fails "$d" 'lib/stray.c: lib/ holds layers only'
	layers_fails "$d" 'lib/extra/: a folder that is no layer'
	d=$(layers_copy)
	rm "$d/lib/plan/README.md"
	layers_fails "$d" 'lib/plan/: no README.md'
}

# The build runs the include part before it archives lib/: make stops there.
test_layers_stop_the_build() {
	local d out rc=0
	d=$(layers_copy)
	cp "$GP_TOP/Makefile" "$d/"
	sed -i '0,/^#include "/s||#include "ops/attach.h"\n#include "|' "$d/lib/start/mount.c"
	out=$(make -j1 -C "$d" BUILD="$d/build" "$d/build/libgp-hook.a" 2>&1) || rc=$?
	check "make" 2 "$rc"
	grep -qF 'lib/start/mount.c:' <<<"$out"
	[ ! -e "$d/build/libgp-hook.a" ]
}
