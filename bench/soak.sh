#!/usr/bin/env bash
# Crash soak (bench/soak.py): SIGKILLs a Weir server running a checkpointed windowed aggregation
# and a deduplication into file sinks, restarts it, again and again for WEIR_SOAK_SECONDS, and
# checks the sinks hold exactly the committed rows. Off unless WEIR_SOAK_SECONDS is set (CI does
# not set it). Example: WEIR_SOAK_SECONDS=600 bench/soak.sh; WEIR_SOAK_BUDGET=1 makes the state spill.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${WEIR_SOAK_SECONDS:-}" ]]; then
  echo "soak: off (set WEIR_SOAK_SECONDS, e.g. WEIR_SOAK_SECONDS=600 $0)"
  exit 0
fi
if [[ -z "${WEIR_BIN:-}" ]]; then
  GOFLAGS=-tags=pebblegozstd go build -o bin/weir ./cmd/weir
  export WEIR_BIN="$PWD/bin/weir"
fi
exec .venv/bin/python bench/soak.py
