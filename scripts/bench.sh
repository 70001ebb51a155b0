#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the lean test kernel and run fairness experiments in one boot.
# Usage: scripts/bench.sh [--dynamic] OUTDIR [harness options...]
# (see tests/harness/bench.py: --exp, --profile, --peer, --runs, ...;
# with --dynamic, the fairness-over-time cases of tests/harness/dynamic.py)
set -euo pipefail
. "$(dirname "$0")/common.sh"

harness=harness.bench
if [ "${1:-}" = --dynamic ]; then
	harness=harness.dynamic
	shift
fi
out=${1:?usage: bench.sh [--dynamic] OUTDIR [options]}
shift
kernel=$("$REPO/scripts/build.sh" lean)
cd "$REPO/tests"
exec "$PY" -m "$harness" --kernel "$kernel" --out "$out" "$@"
