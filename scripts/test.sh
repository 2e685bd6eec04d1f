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

# Debian's Chromium and its WebDriver for the web UI's browser test (tests/e2e/test_ui.py).
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  echo "== installing chromium and chromium-driver (apt-get)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver
fi

echo "== building weir"
mkdir -p bin
go build -o bin/weir ./cmd/weir

echo "== go vet"
go vet ./...

echo "== go test"
race_pkgs="./flow/... ./barrier/... ./connect/... ./query/... ./sources/... ./sinks/... ./connectors/... ./state/... ./checkpoints/... ./pyworker/..."
go test -count=1 ./...
go test -count=1 -race $race_pkgs

# Bounded by executions, not by time: a duration -fuzztime races Go's fuzz coordinator (go.dev/issue/75804,
# unfixed in go1.26) and fails a target with a bare "context deadline exceeded" on a loaded machine.
echo "== go fuzz (bounded: 30000 executions per target; a crasher is saved under the package's testdata/fuzz)"
fuzz_targets="./engine:FuzzConfSet ./connect/protoconv:FuzzRelation ./connect/protoconv:FuzzCommand ./connect/protoconv:FuzzLocalRelation ./sql/parser:FuzzParse ./pyworker/pickle:FuzzDecode"
for target in $fuzz_targets; do
  go test -run '^$' -fuzz "^${target#*:}\$" -fuzztime 30000x -fuzzminimizetime 1s "${target%%:*}"
done

echo "== starting a Kafka broker (scripts/kafka-broker.sh) for tests/e2e/test_kafka.py"
trap '"$root/scripts/kafka-broker.sh" stop; "$root/scripts/iceberg-rest.sh" stop' EXIT
KAFKA_BOOTSTRAP=$("$root/scripts/kafka-broker.sh" start)
export KAFKA_BOOTSTRAP

echo "== starting Apache Iceberg's REST catalog fixture (scripts/iceberg-rest.sh) for tests/e2e/test_iceberg_rest.py"
ICEBERG_REST_URI=$("$root/scripts/iceberg-rest.sh" start)
export ICEBERG_REST_URI

echo "== pytest (PySpark end to end)"
WEIR_BIN="$root/bin/weir" .venv/bin/python -m pytest -q -p no:cacheprovider tests/e2e \
  --ignore=tests/e2e/test_sandbox_safety.py

echo "== client compatibility smoke (scripts/client-compat.sh: PySpark 3.5, 4.0, 4.1, 4.3, the Go client)"
WEIR_BIN="$root/bin/weir" scripts/client-compat.sh

# Destructive requests (overwrite of /, $HOME, the state dir, …) go only to servers inside a
# private read-only mount namespace; that needs root, which CI has.
echo "== pytest in the sandbox (tests/e2e/test_sandbox_safety.py, scripts/sandbox.sh)"
if [ "$(id -u)" != 0 ]; then
  echo "test.sh: tests/e2e/test_sandbox_safety.py needs root for scripts/sandbox.sh (unshare -m); run the suite as root" >&2
  exit 1
fi
sbx=$(mktemp -d "${TMPDIR:-/tmp}/weir-sandbox.XXXXXX")
scripts/sandbox.sh "$sbx" env WEIR_BIN="$root/bin/weir" .venv/bin/python -m pytest -q -p no:cacheprovider \
  tests/e2e/test_sandbox_safety.py
rmdir "$sbx"
