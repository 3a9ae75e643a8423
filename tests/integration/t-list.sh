# shellcheck shell=bash
# gpu-provision list: one row per container with an ini, in its columns. Sourced by run.sh.

# A running container with a probe behind it, a stopped one with caps: each column.
test_list_columns() {
	local out=$WORK/list.txt
	make_root h200-580-open "$WORK/lst.root"
	new_container "$P" lsta
	new_container "$P" lstb
	gp --root "$WORK/lst.root" attach lsta --gpus all >/dev/null
	gp --root "$WORK/lst.root" attach lstb --gpus 0 --caps mig-config >/dev/null
	add_fake_cuda "$P" lsta 580.159.04
	set_fake_cuda "$P" lsta "device 0000:00:06.0 GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460"
	start lsta
	gp --root "$WORK/lst.root" list >"$out"
	check "header" "NAME GPUS MODE STATE LAST PROBE" "$(head -1 "$out" | tr -s ' ')"
	check "lsta before a probe" "lsta all lxc-hook RUNNING never probed" \
		"$(grep '^lsta ' "$out" | tr -s ' ')"
	check "lstb" "lstb 0 caps mig-config lxc-hook STOPPED never probed" \
		"$(grep '^lstb ' "$out" | tr -s ' ')"
	gp --root "$WORK/lst.root" probe lsta >/dev/null
	gp --root "$WORK/lst.root" list >"$out"
	check "lsta after a probe" "lsta all lxc-hook RUNNING ok, 0 min ago" \
		"$(grep '^lsta ' "$out" | tr -s ' ')"
	gp --root "$WORK/lst.root" list --json >"$WORK/list.json"
	check "json row" '{"name":"lstb","gpus":"0 caps mig-config","mode":"lxc-hook","state":"STOPPED","probe":"never probed","deep":null,"restart":"no"}' \
		"$(jq -c '.[] | select(.name == "lstb")' "$WORK/list.json")"
	stop lsta
}
