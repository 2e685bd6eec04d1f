#!/usr/bin/env bash
# Load test (bench/load.py): 32 PySpark sessions running small queries for WEIR_LOAD_SECONDS
# (default 60) while 8 sessions start and stop a streaming query WEIR_LOAD_CYCLES times (default
# 50); then the server's goroutines, fds and RSS must be back within 10% of before. Not part of
# the test command (it takes minutes); run it by hand and record the row in bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${WEIR_BIN:-}" ]]; then
  GOFLAGS=-tags=pebblegozstd go build -o bin/weir ./cmd/weir
  export WEIR_BIN="$PWD/bin/weir"
fi
exec .venv/bin/python bench/load.py
