#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Make a Linux 6.12.y tree available and print its path.
# Default: Debian's linux-source-6.12, extracted once into the cache.
# LINUX_SRC=/path: use that tree instead (patched in place, reversibly,
# by scripts/apply.sh).
set -euo pipefail
. "$(dirname "$0")/common.sh"

check_version() {
	local mk=$1/Makefile v p
	[ -f "$mk" ] || die "$1 is not a kernel tree (no Makefile)"
	v=$(sed -n 's/^VERSION = //p' "$mk")
	p=$(sed -n 's/^PATCHLEVEL = //p' "$mk")
	[ "$v.$p" = 6.12 ] || die "$1 is Linux $v.$p, this series is for 6.12.y"
}

if [ -z "${LINUX_SRC:-}" ] && [ ! -f "$TREE/Makefile" ]; then
	tarball=/usr/src/linux-source-6.12.tar.xz
	[ -f "$tarball" ] || die "$tarball missing: run scripts/deps.sh"
	note "extracting $tarball into $CACHE/src"
	mkdir -p "$CACHE/src"
	rm -rf "$TREE.tmp" && mkdir "$TREE.tmp"
	tar -xJf "$tarball" -C "$TREE.tmp" --strip-components=1
	mv "$TREE.tmp" "$TREE"
fi
check_version "$TREE"
echo "$TREE"
