#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the emulated disk (tests/tools/hdd, a ublk server) into the cache
# and print its path.  It uses liburing (Debian's liburing-dev) and the
# 6.12 tree's UAPI header for ublk: Debian 12's linux-libc-dev is 6.1's,
# which lacks the ioctl-encoded commands.
set -euo pipefail
. "$(dirname "$0")/common.sh"

src=$REPO/tests/tools/hdd/hdd.c
out=$CACHE/hdd/hdd
tree=$("$REPO/scripts/get-tree.sh")
mkdir -p "$CACHE/hdd"
if [ ! -x "$out" ] || [ "$src" -nt "$out" ] || [ "$0" -nt "$out" ]; then
	note "building $out"
	gcc -O2 -g -Wall -Wextra -Werror -iquote "$tree/include/uapi/linux" \
		-o "$out.$$.tmp" "$src" -luring -lpthread -lm
	# Two builds at once (make check's two suites) each rename their own.
	mv "$out.$$.tmp" "$out"
fi
echo "$out"
