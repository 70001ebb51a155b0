#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build a test kernel out of tree: scripts/build.sh [lean|debug]
# Config = tinyconfig + tests/configs/base.config (+ debug.config).
# Prints the path of the bzImage.
set -euo pipefail
. "$(dirname "$0")/common.sh"

flavor=${1:-lean}
case $flavor in
lean) frags=(base.config) ;;
debug) frags=(base.config debug.config) ;;
*) die "unknown flavor '$flavor' (lean|debug)" ;;
esac
frag_paths=("${frags[@]/#/$REPO/tests/configs/}")

tree=$("$REPO/scripts/apply.sh")
out=$CACHE/build/$flavor
mkdir -p "$out" "$CCACHE_DIR"
kmake() {
	make -s -C "$tree" O="$out" ARCH=$KARCH CC="ccache gcc" "$@"
}

# Regenerate .config only when its inputs changed: Kconfig then touches
# just the symbols that moved, and the build stays incremental.
want=$(cat "${frag_paths[@]}" "$tree/.cfq-state/series.sha" | sha256sum)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.cfq-config.sha" 2>/dev/null)" != "$want" ]; then
	note "configuring $flavor: tinyconfig + ${frags[*]}"
	kmake tinyconfig >/dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"${frag_paths[@]}" >"$out/merge.log" 2>&1 || {
		cat "$out/merge.log" >&2
		die "merge_config failed"
	}
	kmake olddefconfig
	echo "$want" >"$out/.cfq-config.sha"
fi

# Every option a fragment asks for must have survived olddefconfig.
lost=$("$PY" "$REPO/tests/harness/kconfig_check.py" "$out/.config" "${frag_paths[@]}") || {
	echo "$lost" >&2
	die "the $flavor config lost options the tests need (see above)"
}

note "building $flavor kernel in $out"
kmake -j"$(nproc)" bzImage
echo "$out/arch/x86/boot/bzImage"
