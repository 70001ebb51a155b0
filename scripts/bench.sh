#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the lean test kernel and run fairness experiments in one boot.
# Usage: scripts/bench.sh [--dynamic|--attribution] OUTDIR [options...]
# (see tests/harness/bench.py: --exp, --profile, --peer, --runs, ...;
# with --dynamic, the fairness-over-time cases of tests/harness/dynamic.py;
# with --attribution, the writeback and loop cases of harness/attribution.py)
set -euo pipefail
. "$(dirname "$0")/common.sh"

harness=harness.bench
case ${1:-} in
--dynamic) harness=harness.dynamic && shift ;;
--attribution) harness=harness.attribution && shift ;;
esac
out=${1:?usage: bench.sh [--dynamic|--attribution] OUTDIR [options]}
shift
# Paths are the caller's: the harness runs from tests/.
out=$(realpath -m "$out")
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--report) args+=("$1" "$(realpath -m "${2:?--report DIR}")") && shift 2 ;;
	*) args+=("$1") && shift ;;
	esac
done
kernel=$("$REPO/scripts/build.sh" lean)
# The report names the commit the kernel was built from.
[ "$harness" = harness.bench ] &&
	args+=(--commit "$(git -C "$REPO" describe --always --dirty --abbrev=7)")
cd "$REPO/tests"
exec "$PY" -m "$harness" --kernel "$kernel" --out "$out" "${args[@]}"
