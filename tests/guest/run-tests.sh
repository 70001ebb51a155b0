#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side: run guest tests one after another in one boot.
# Usage: run-tests.sh OUTDIR TEST...   (TEST = name of tests/guest/t/NAME.sh)
# For each test: OUTDIR/NAME.log (its output), NAME.rc (exit status),
# NAME.dmesg (the kernel messages printed while it ran), NAME.json if the
# test wrote one (through $RESULT).  The host judges each one.
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
dmesg -C
for t in "$@"; do
	echo "guest-test: $t" >/dev/console
	start=$(date +%s.%N)
	RESULT=$out/$t.json TESTDIR=$here timeout 900 \
		bash "$here/t/$t.sh" >"$out/$t.log" 2>&1
	rc=$?
	dmesg -c >"$out/$t.dmesg"
	echo "$rc" >"$out/$t.rc"
	printf 'guest-test: %s rc=%s %.1fs\n' "$t" "$rc" \
		"$(echo "$(date +%s.%N) - $start" | bc)" >/dev/console
done
exit 0
