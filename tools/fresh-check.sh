#!/bin/bash
# The README's first commands on a fresh Debian userland, as a new admin runs them.
#
# The commands of the README's first ```sh block run in order, as root, each from a clone
# of the committed tree in a fresh minbase SUITE (nothing but apt and the essentials: no
# make, no compiler, no LXC), with sudo left out (we are root, and minbase has no sudo);
# LXC containers start there in the cgroup LAYOUT given. tools/platform.sh makes the tree,
# enters it and caches what it downloads; it says what SUITE and LAYOUT mean.
#
# Usage: tools/fresh-check.sh [SUITE [LAYOUT]]   (default: bookworm hybrid)
# Exit: 0 every command passed; else the failing one's; 2 bad usage.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
suite=${1:-bookworm} layout=${2:-hybrid}
[ $# -le 2 ] || { echo "usage: tools/fresh-check.sh [bookworm|trixie|sid [hybrid|v2]]" >&2; exit 2; }

# The README's first ```sh block, comments and blank lines aside.
commands=$(awk '/^```sh$/ && !seen { inblock = 1; seen = 1; next }
	inblock && /^```$/ { exit }
	inblock { sub(/[ \t]*#.*/, ""); if (length($0)) print }' "$top/README.md")
[ -n "$commands" ] || { echo "fresh: no \`\`\`sh block in README.md" >&2; exit 2; }
mapfile -t run < <(sed -E 's/(^|&& *)sudo /\1/g' <<<"$commands")

"$top/tools/platform.sh" "$suite" "$layout" "${run[@]}"
echo "fresh: all ${#run[@]} commands of the README passed on a fresh $suite, cgroup layout $layout"
