#!/usr/bin/env bash
# Kafka benchmarks (issue 5): the broker's own ceiling next to Weir's
# Kafka → from_json → filter → to_json → Kafka pipeline, and the pipeline's end-to-end latency.
#
#   bench/kafka-bench.sh            # everything; prints a summary with the ratios
#   RECORDS=2000000 bench/kafka-bench.sh
#
# Without KAFKA_BOOTSTRAP it starts an independent single-node KRaft broker with
# scripts/kafka-broker.sh (WEIR_KAFKA_RUN: its own state dir and ports) and stops it at the end,
# so it neither uses nor stops the broker other tests share. Steps:
#   1. a topic with PARTITIONS partitions, filled by Kafka's ProducerPerformance with RECORDS
#      ~100-byte JSON records (payload file of distinct records): the producer ceiling;
#   2. Kafka's ConsumerPerformance reading them all: the consumer ceiling;
#   3. a consumer + a producer doing the same I/O at once (RECORDS in, RECORDS/2 out);
#   4. BenchmarkKafkaCopy (the same I/O with franz-go, no parsing) and
#      BenchmarkKafkaPipelineThroughput, both reading that same topic (KAFKA_BENCH_INPUT);
#   5. BenchmarkKafkaLatency at RATE records/s.
# Output: $OUT (default bench/kafka-bench.out) gets the raw tool output.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export GOFLAGS="${GOFLAGS:--tags=pebblegozstd}"
RECORDS="${RECORDS:-1000000}"
PARTITIONS="${PARTITIONS:-2}"
RATE="${RATE:-10000}"
SECONDS_LAT="${SECONDS_LAT:-10}"
OUT="${OUT:-${TMPDIR:-/tmp}/weir-kafka-bench.out}"
libs=$(scripts/kafka-broker.sh jars | tail -1)
cp="$libs/*"
work=$(mktemp -d "${TMPDIR:-/tmp}/weir-kafka-bench.XXXXXX")
own_broker=""

cleanup() {
  if [ -n "$own_broker" ]; then
    WEIR_KAFKA_RUN="$work/run" scripts/kafka-broker.sh stop || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

if [ -z "${KAFKA_BOOTSTRAP:-}" ]; then
  # An independent broker (its own state dir): the shared one is neither used nor stopped.
  own_broker=1
  KAFKA_BOOTSTRAP=$(WEIR_KAFKA_RUN="$work/run" scripts/kafka-broker.sh start | tail -1)
fi
export KAFKA_BOOTSTRAP
echo "broker $KAFKA_BOOTSTRAP; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT"

topic="weir-perf-$(date +%s)"
java -cp "$cp" org.apache.kafka.tools.TopicCommand --bootstrap-server "$KAFKA_BOOTSTRAP" --create \
  --topic "$topic" --partitions "$PARTITIONS" --replication-factor 1 >/dev/null

# 10 000 distinct records of the benchmark's shape (bench/kafka_test.go kafkaRecord), half "click".
python3 - "$work/payload.txt" <<'PY'
import sys, time
ts = int(time.time() * 1e6)
with open(sys.argv[1], "w") as f:
    for i in range(10000):
        kind = "click" if i % 2 == 0 else "view"
        f.write('{"id":%d,"ts":%d,"user":"user-%05d","kind":"%s","amount":%d.%02d,"note":"note-%08d"}\n'
                % (i, ts, i % 100000, kind, i % 1000, i % 100, i * 7919 % 100000000))
PY

echo "== ProducerPerformance: $RECORDS records into $topic ($PARTITIONS partitions)" | tee -a "$OUT"
java -Xmx512m -cp "$cp" org.apache.kafka.tools.ProducerPerformance --topic "$topic" --num-records "$RECORDS" \
  --throughput -1 --payload-file "$work/payload.txt" \
  --producer-props "bootstrap.servers=$KAFKA_BOOTSTRAP" 2>/dev/null | tail -1 | tee -a "$OUT"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"

echo "== ConsumerPerformance: $RECORDS records from $topic" | tee -a "$OUT"
java -Xmx512m -cp "$cp" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$KAFKA_BOOTSTRAP" \
  --topic "$topic" --messages "$RECORDS" --timeout 60000 2>/dev/null | tail -2 | tee -a "$OUT"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"

# The pipeline reads every record and writes the half its filter keeps: the broker-only
# equivalent is a consumer reading RECORDS records while a producer writes RECORDS/2, at once.
out_topic="$topic-out"
java -cp "$cp" org.apache.kafka.tools.TopicCommand --bootstrap-server "$KAFKA_BOOTSTRAP" --create \
  --topic "$out_topic" --partitions "$PARTITIONS" --replication-factor 1 >/dev/null
echo "== Concurrent ConsumerPerformance ($RECORDS from $topic) + ProducerPerformance ($((RECORDS / 2)) into $out_topic)" | tee -a "$OUT"
began=$(date +%s.%N)
java -Xmx512m -cp "$cp" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$KAFKA_BOOTSTRAP" \
  --topic "$topic" --messages "$RECORDS" --timeout 60000 2>/dev/null | tail -1 >"$work/cons2.txt" &
cons_pid=$!
java -Xmx512m -cp "$cp" org.apache.kafka.tools.ProducerPerformance --topic "$out_topic" --num-records "$((RECORDS / 2))" \
  --throughput -1 --payload-file "$work/payload.txt" \
  --producer-props "bootstrap.servers=$KAFKA_BOOTSTRAP" 2>/dev/null | tail -1 >"$work/prod2.txt"
wait "$cons_pid"
ended=$(date +%s.%N)
cat "$work/cons2.txt" "$work/prod2.txt" | tee -a "$OUT"
python3 -c "import sys; print('concurrent wall %.2f s (JVM starts included); ' % (float(sys.argv[2]) - float(sys.argv[1])))" "$began" "$ended" | tee -a "$OUT"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"

echo "== Weir pipeline over $topic" | tee -a "$OUT"
KAFKA_BENCH_INPUT="$topic" go test -run '^$' -bench 'BenchmarkKafka(Copy|PipelineThroughput)' -benchtime 1x -timeout 30m \
  ./bench/ 2>&1 | grep -E '^(Benchmark|---|\s+kafka_test)' | tee -a "$OUT"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"

echo "== Weir pipeline latency at $RATE rec/s for ${SECONDS_LAT}s" | tee -a "$OUT"
KAFKA_BENCH_RATE="$RATE" KAFKA_BENCH_SECONDS="$SECONDS_LAT" PARTITIONS="$PARTITIONS" \
  go test -run '^$' -bench 'BenchmarkKafkaLatency' -benchtime 1x -timeout 30m ./bench/ 2>&1 |
  grep -E '^(Benchmark|---|\s+kafka_test)' | tee -a "$OUT"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"

# Summary: records/s of each and the pipeline's ratio to the broker's ceiling (the lower of the
# producer's and the consumer's rates: the pipeline both consumes and produces).
python3 - "$OUT" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
prod = re.search(r"records sent, ([0-9.]+) records/sec", text)
seq = text.split("== ConsumerPerformance", 1)[-1].split("== Concurrent", 1)[0]
cons_lines = [l for l in seq.splitlines() if re.match(r"^\d{4}-\d\d-\d\d", l)]
cons = None
if cons_lines:
    f = [x.strip() for x in cons_lines[-1].split(",")]
    cons = float(f[9]) if len(f) > 9 else float(f[5])  # fetch.nMsg.sec (excludes the group join)
print("== summary")
if prod: print(f"producer ceiling   {float(prod.group(1)):>12,.0f} rec/s")
if cons: print(f"consumer ceiling   {cons:>12,.0f} rec/s")
ceiling = min(x for x in [float(prod.group(1)) if prod else None, cons] if x) if (prod or cons) else None
# The concurrent pair: each tool's own rate (measured from its first record, so without its JVM
# start); the pipeline-equivalent input rate is limited by the slower of reading RECORDS and
# writing RECORDS/2 at once.
conc = text.split("== Concurrent", 1)[1].split("== Weir", 1)[0] if "== Concurrent" in text else ""
cl = [l for l in conc.splitlines() if re.match(r"^\d{4}-\d\d-\d\d", l)]
pm = re.search(r"records sent, ([0-9.]+) records/sec", conc)
if cl and pm:
    f = [x.strip() for x in cl[-1].split(",")]
    c2 = float(f[9]) if len(f) > 9 else float(f[5])
    p2 = float(pm.group(1))
    pair = min(c2, 2 * p2)
    print(f"concurrent pair: consumer {c2:,.0f} rec/s, producer {p2:,.0f} rec/s -> pipeline-equivalent ceiling {pair:,.0f} input rec/s")
    ceiling = pair
copy = re.search(r"^BenchmarkKafkaCopy\S*\s+\d+\s+.*?([0-9.e+]+) rec/s", text, re.M)
if copy:
    print(f"franz-go copy (read all, write every other record, no parsing) {float(copy.group(1)):>12,.0f} rec/s")
for m in re.finditer(r"^(BenchmarkKafkaPipelineThroughput\S*)\s+\d+\s+.*?([0-9.e+]+) rec/s", text, re.M):
    r = float(m.group(2))
    line = f"{m.group(1):<70} {r:>12,.0f} rec/s"
    if ceiling:
        line += f"  / perf-tool ceiling {r / ceiling:.2f}"
    if copy:
        line += f"  / franz-go copy {r / float(copy.group(1)):.2f}"
    print(line)
for m in re.finditer(r"^(BenchmarkKafkaLatency\S*).*?([0-9.]+) p50-ms\s+([0-9.]+) p99-ms", text, re.M):
    print(f"{m.group(1):<70} p50 {m.group(2)} ms  p99 {m.group(3)} ms")
PY
