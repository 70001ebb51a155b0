# SPDX-License-Identifier: GPL-2.0
# Shared settings for the scripts; sourced, not run.
# Everything heavy (tree, build dirs, ccache) lives outside the repo.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${CFQ_CACHE:-$HOME/.cache/cfq-iosched}
DEFAULT_TREE=$CACHE/src/linux-source-6.12
TREE=${LINUX_SRC:-$DEFAULT_TREE}
KARCH=x86_64
PY=/usr/bin/python3

export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
# Fixed build identity: identical sources give identical objects, so
# ccache hits survive across clean build directories.
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=cfq
export KBUILD_BUILD_HOST=cfq-iosched

die() {
	echo "error: $*" >&2
	exit 1
}

note() {
	echo "==> $*" >&2
}

# The new files this project adds to the tree, relative to the tree root.
new_files() {
	local d dirs=()
	for d in block include; do
		[ -d "$REPO/$d" ] && dirs+=("$d")
	done
	[ ${#dirs[@]} -gt 0 ] || return 0
	(cd "$REPO" && find "${dirs[@]}" -type f | LC_ALL=C sort)
}
