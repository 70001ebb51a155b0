#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the lean test kernel and run fairness experiments in one boot.
# Usage: scripts/bench.sh OUTDIR [harness.bench options...]
# (see tests/harness/bench.py: --exp, --profile, --peer, --runs, ...)
set -euo pipefail
. "$(dirname "$0")/common.sh"

out=${1:?usage: bench.sh OUTDIR [options]}
shift
kernel=$("$REPO/scripts/build.sh" lean)
cd "$REPO/tests"
exec "$PY" -m harness.bench --kernel "$kernel" --out "$out" "$@"
