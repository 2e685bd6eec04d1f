#!/usr/bin/env bash
# Kafka benchmarks (issue 5): the broker's own ceiling next to Weir's
# Kafka → from_json → filter → to_json → Kafka pipeline, and the pipeline's end-to-end latency.
#
#   bench/kafka-bench.sh            # everything; prints a summary with the ratios
#   RECORDS=2000000 bench/kafka-bench.sh
#
# Without KAFKA_BOOTSTRAP it starts a private single-node KRaft broker (its own temp dir and
# ports, the jars of scripts/kafka-broker.sh) and stops it at the end, so it neither uses nor
# stops the broker other tests share. Steps:
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
OUT="${OUT:-$root/bench/kafka-bench.out}"
libs=$(scripts/kafka-broker.sh jars | tail -1)
cp="$libs/*"
work=$(mktemp -d "${TMPDIR:-/tmp}/weir-kafka-bench.XXXXXX")
broker_pid=""

cleanup() {
  if [ -n "$broker_pid" ] && kill -0 "$broker_pid" 2>/dev/null; then
    kill "$broker_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$broker_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$broker_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start_broker() {
  local port cport id
  port=$(free_port)
  cport=$(free_port)
  while [ "$cport" = "$port" ]; do cport=$(free_port); done
  cat >"$work/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$work/logs
num.partitions=$PARTITIONS
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
PROPS
  id=$(java -cp "$cp" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
  java -cp "$cp" kafka.tools.StorageTool format -t "$id" -c "$work/server.properties" >"$work/format.log" 2>&1
  # The same JVM settings as scripts/kafka-broker.sh.
  java -Xms256m -Xmx512m -XX:+UseSerialGC -cp "$cp" kafka.Kafka "$work/server.properties" \
    >"$work/broker.log" 2>&1 </dev/null &
  broker_pid=$!
  for _ in $(seq 1 600); do
    kill -0 "$broker_pid" 2>/dev/null || { tail -50 "$work/broker.log" >&2; exit 1; }
    if (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      KAFKA_BOOTSTRAP="127.0.0.1:$port"
      return
    fi
    sleep 0.2
  done
  echo "kafka-bench.sh: the broker did not start" >&2
  exit 1
}

if [ -z "${KAFKA_BOOTSTRAP:-}" ]; then
  start_broker
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
