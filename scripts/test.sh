#!/usr/bin/env bash
# Runs every Weir test on a fresh machine: installs what it needs (Go modules, a Python venv with
# the pinned PySpark client and pytest), builds the server, runs the Go tests (race detector on
# the concurrent packages) and the PySpark end-to-end suite against the real server.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# Pure-Go zstd for Pebble: builds faster on small machines than the cgo variant.
export GOFLAGS="${GOFLAGS:-} -tags=pebblegozstd"

echo "== installing Go modules"
go mod download

echo "== installing the Python test environment (.venv)"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install --disable-pip-version-check -q -r scripts/python-requirements.txt

echo "== building weir"
mkdir -p bin
go build -o bin/weir ./cmd/weir

echo "== go vet"
go vet ./...

echo "== go test"
race_pkgs="./flow/... ./barrier/... ./connect/... ./query/... ./sources/... ./sinks/... ./state/... ./checkpoints/..."
go test -count=1 ./...
go test -count=1 -race $race_pkgs

echo "== fuzzing the SQL parser (bounded)"
go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 15s ./sql

echo "== starting a Kafka broker (scripts/kafka-broker.sh) for tests/e2e/test_kafka.py"
trap '"$root/scripts/kafka-broker.sh" stop' EXIT
KAFKA_BOOTSTRAP=$("$root/scripts/kafka-broker.sh" start)
export KAFKA_BOOTSTRAP

echo "== pytest (PySpark end to end)"
WEIR_BIN="$root/bin/weir" .venv/bin/python -m pytest -q -p no:cacheprovider tests/e2e
