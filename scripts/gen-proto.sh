#!/usr/bin/env bash
# Regenerates connect/sparkconnectpb from the Spark Connect descriptors shipped inside the pinned
# pyspark-client (see scripts/python-requirements.txt). Needs protoc (Debian: protobuf-compiler).
# The descriptor set and the generated Go code are committed; CI never runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
OUT=connect/sparkconnectpb
MOD=$(go list -m)
"$PY" scripts/dump_fds.py pyspark.sql.connect.proto "$OUT/spark_connect.binpb" >/dev/null 2>&1
mkdir -p bin
go build -o bin/protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go
go build -o bin/protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc
files=(common types expressions catalog ml_common relations ml pipelines commands base example_plugins)
M=""
for f in "${files[@]}"; do M="$M,Mspark/connect/$f.proto=$MOD/$OUT;sparkconnectpb"; done
M=${M#,}
rm -f "$OUT"/*.pb.go
protoc --plugin=protoc-gen-go=bin/protoc-gen-go --plugin=protoc-gen-go-grpc=bin/protoc-gen-go-grpc \
  --descriptor_set_in="$OUT/spark_connect.binpb" \
  --go_out=. --go_opt=module="$MOD,$M" --go-grpc_out=. --go-grpc_opt=module="$MOD,$M" \
  $(printf "spark/connect/%s.proto " "${files[@]}")
