# SPDX-License-Identifier: GPL-2.0
# The cfq KUnit suites ran at boot and passed (KTAP via debugfs).
. "$TESTDIR/lib.sh"

total=0
for suite in cfq-queue cfq-group cfq-cgroup; do
	r=/sys/kernel/debug/kunit/$suite/results
	[ -f "$r" ] || fail "suite $suite did not run"
	cat "$r"
	grep -q 'not ok' "$r" && fail "suite $suite has failures"
	n=$(grep -Ec '^\s+ok [0-9]+ ' "$r")
	[ "$n" -gt 0 ] || fail "suite $suite: no passing case"
	tail -1 "$r" | grep -Eq "^ok [0-9]+ $suite" || fail "suite $suite: no final ok"
	total=$((total + n))
done
echo "{\"cases\": $total}" >"$RESULT"
echo "ok: $total KUnit cases passed"
