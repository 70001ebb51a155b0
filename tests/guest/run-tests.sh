#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side: run guest tests one after another in one boot.
# Usage: run-tests.sh OUTDIR TEST...
# (TEST = NAME of tests/guest/t/NAME.sh, run by bash, or t/NAME.py, python3;
# NAME@DISK runs it with CFQ_DISK=DISK: on the emulated rotating disk,
# hdd-q1 or hdd-ncq, where the test makes its disk with gtest.nullb() or
# lib.sh's test_disk)
# For each test: OUTDIR/NAME.log (its output), NAME.rc (exit status),
# NAME.dmesg (the kernel messages printed while it ran), NAME.json if the
# test wrote one (through $RESULT), and on a kernel with kmemleak
# NAME.kmemleak: the leaks a scan found after the test, which has by then
# switched cfq out and removed its groups.  The host judges each one.
# A scan takes the debug kernel 12-15 s under TCG: with KMEMLEAK_EVERY=N
# one scan follows every N tests (and the last), and each of those N
# tests gets its report: a leak fails them all, its backtrace names it.
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
kml=/sys/kernel/debug/kmemleak
mkdir -p "$out"
dmesg -C
# Start from a clean slate: what boot left unreferenced is not ours.
if [ -w $kml ]; then
	echo scan >$kml
	echo clear >$kml
fi
every=${KMEMLEAK_EVERY:-1}
unscanned=()
cd /tmp || exit 1
for t in "$@"; do
	echo "guest-test: $t" >/dev/console
	start=$(date +%s.%N)
	name=${t%@*}
	disk=
	[ "$name" = "$t" ] || disk=${t#*@}
	if [ -f "$here/t/$name.py" ]; then
		cmd=(python3 "$here/t/$name.py")
	else
		cmd=(bash "$here/t/$name.sh")
	fi
	RESULT=$out/$t.json TESTDIR=$here PYTHONPATH=$here CFQ_DISK=$disk \
		timeout 900 "${cmd[@]}" >"$out/$t.log" 2>&1
	rc=$?
	unscanned+=("$t")
	last=
	[ "$t" = "${!#}" ] && last=1
	if [ -w $kml ] && { [ ${#unscanned[@]} -ge "$every" ] || [ "$last" ]; }
	then
		# kmemleak does not report objects younger than 5 s: a leak
		# made in a test's last seconds is reported after the next
		# scan (its backtrace names it); after the last test, wait.
		[ "$last" ] && sleep 5
		if echo scan >$kml; then
			cat $kml >"$out/kmemleak.scan"
		else
			echo "kmemleak: scan failed" >"$out/kmemleak.scan"
		fi
		echo clear >$kml
		for u in "${unscanned[@]}"; do
			cp "$out/kmemleak.scan" "$out/$u.kmemleak"
		done
		rm "$out/kmemleak.scan"
		unscanned=()
	fi
	dmesg -c >"$out/$t.dmesg"
	echo "$rc" >"$out/$t.rc"
	printf 'guest-test: %s rc=%s %.1fs\n' "$t" "$rc" \
		"$(echo "$(date +%s.%N) - $start" | bc)" >/dev/console
done
exit 0
