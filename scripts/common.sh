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

# The new files this project adds to the tree: "SOURCE DEST" per line,
# SOURCE relative to the repo, DEST to the tree root.  block/ and include/
# map to themselves; the KUnit suites in tests/kunit/ go to block/, where
# the scheduler's files include them.
new_files() {
	local d
	for d in block include Documentation; do
		[ -d "$REPO/$d" ] || continue
		(cd "$REPO" && find "$d" -type f) | while read -r f; do
			echo "$f $f"
		done
	done
	if [ -d "$REPO/tests/kunit" ]; then
		(cd "$REPO" && find tests/kunit -name '*.c') | while read -r f; do
			echo "$f block/${f##*/}"
		done
	fi | LC_ALL=C sort
}
