#!/usr/bin/env bash
# Client-compatibility smoke: runs tests/e2e/test_client_compat.py once per PySpark Connect client
# that Weir supports, each in its own venv under .cache/clients/NAME (made from
# tests/compat/NAME.txt when missing or when that file changed), with the server's Python workers
# on the same venv, and its foreachBatch and listener tests again with the workers on the main
# venv (.venv, PySpark 4.2: workers at least as new as the client run its pickled functions);
# then the Go client smoke (tests/compat/goclient, its own module). The 4.2 client is the main
# venv's, whose full e2e suite runs the same file.
#
# Usage: scripts/client-compat.sh [NAME...]   (NAME: pyspark-3.5, pyspark-4.0, ..., goclient;
#        default: all). WEIR_BIN is the server (default bin/weir, built by the caller).
# A cold run downloads about 850 MB (the 3.5 and 4.3 clients are whole pyspark sdists with Spark's
# jars; the 4.0/4.1 clients 1.5 MB each, plus an older numpy and pyarrow for 3.5) and builds two
# wheels; later runs reuse the venvs (and pip's cache). Each client's smoke takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export WEIR_BIN="${WEIR_BIN:-$root/bin/weir}"
export GOFLAGS="${GOFLAGS:-} -tags=pebblegozstd"

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in tests/compat/*.txt; do names+=("$(basename "$f" .txt)"); done
  names+=(goclient)
fi

for name in "${names[@]}"; do
  if [ "$name" = goclient ]; then
    echo "== client compatibility: Go client (tests/compat/goclient)"
    (cd tests/compat/goclient && go test -count=1 ./...)
    continue
  fi
  req="tests/compat/$name.txt"
  venv=".cache/clients/$name"
  if [ ! -f "$req" ]; then
    echo "client-compat.sh: no $req" >&2
    exit 2
  fi
  if ! cmp -s "$req" "$venv/requirements.txt" 2>/dev/null; then
    echo "== client compatibility: installing $name into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --disable-pip-version-check -q -r "$req"
    cp "$req" "$venv/requirements.txt"
  fi
  version=$("$venv/bin/python" -c 'import pyspark; print(pyspark.__version__)')
  echo "== client compatibility: PySpark $version ($name)"
  # The 3.5 client uses distutils' LooseVersion, deprecated on this Python: silence only that.
  "$venv/bin/python" -m pytest -q -p no:cacheprovider -W ignore::DeprecationWarning \
    tests/e2e/test_client_compat.py
  # One server serves every client with one --python: its workers (here the main venv's 4.2)
  # run this client's pickled foreachBatch function and listener.
  if [ -x .venv/bin/python ]; then
    echo "== client compatibility: PySpark $version with the main venv's Python workers"
    WEIR_WORKER_PYTHON="$root/.venv/bin/python" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
      -W ignore::DeprecationWarning tests/e2e/test_client_compat.py -k "foreach_batch or listener"
  fi
done
