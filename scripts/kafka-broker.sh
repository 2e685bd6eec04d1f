#!/usr/bin/env bash
# Starts a single-node Apache Kafka 4.x broker (KRaft: broker + controller) for the Kafka tests.
#   scripts/kafka-broker.sh start   -> prints the bootstrap address (127.0.0.1:<port>) on stdout
#   scripts/kafka-broker.sh stop    -> stops the broker started by `start`
# The jars come from Maven Central only (org.apache.kafka:kafka_2.13 and its runtime
# dependencies via `mvn dependency:copy-dependencies`), cached under ./.cache/kafka. The broker's
# state (config, logs, pid) lives in a temp dir recorded in ./.cache/kafka/run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
version="${KAFKA_VERSION:-4.0.0}"
cache="$root/.cache/kafka"
libs="$cache/libs-$version"
state="$cache/run"

fetch_jars() {
  if [ -f "$libs/.complete" ]; then return; fi
  mkdir -p "$cache"
  local pomdir
  pomdir=$(mktemp -d)
  cat >"$pomdir/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>weir</groupId><artifactId>kafka-broker</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$version</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$version</version></dependency>
  </dependencies>
</project>
POM
  rm -rf "$libs.tmp"
  mvn -q -B -f "$pomdir/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$libs.tmp" >&2
  rm -rf "$pomdir" "$libs"
  mv "$libs.tmp" "$libs"
  touch "$libs/.complete"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

stop() {
  if [ -f "$state/pid" ]; then
    local pid
    pid=$(cat "$state/pid")
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    local dir
    dir=$(cat "$state/dir" 2>/dev/null || true)
    [ -n "$dir" ] && rm -rf "$dir"
    rm -rf "$state"
  fi
}

start() {
  command -v java >/dev/null || { echo "kafka-broker.sh: java is required" >&2; exit 1; }
  fetch_jars
  stop
  local dir port cport cp id
  dir=$(mktemp -d "${TMPDIR:-/tmp}/weir-kafka.XXXXXX")
  port=$(free_port)
  cport=$(free_port)
  while [ "$cport" = "$port" ]; do cport=$(free_port); done
  cat >"$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$dir/logs
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
PROPS
  cp="$libs/*"
  id=$(java -cp "$cp" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
  java -cp "$cp" kafka.tools.StorageTool format -t "$id" -c "$dir/server.properties" >"$dir/format.log" 2>&1 || {
    cat "$dir/format.log" >&2; exit 1; }
  nohup java -Xms256m -Xmx512m -XX:+UseSerialGC -cp "$cp" kafka.Kafka "$dir/server.properties" \
    >"$dir/broker.log" 2>&1 </dev/null &
  local pid=$!
  mkdir -p "$state"
  echo "$pid" >"$state/pid"
  echo "$dir" >"$state/dir"
  echo "127.0.0.1:$port" >"$state/address"
  for _ in $(seq 1 600); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "kafka-broker.sh: the broker exited; its log:" >&2
      tail -50 "$dir/broker.log" >&2
      exit 1
    fi
    # The jars carry no log binding (the broker logs nothing): the open port is the signal.
    if (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "127.0.0.1:$port"
      return
    fi
    sleep 0.2
  done
  echo "kafka-broker.sh: the broker did not start within 120 s; its log:" >&2
  tail -50 "$dir/broker.log" >&2
  stop
  exit 1
}

case "${1:-start}" in
start) start ;;
stop) stop ;;
jars) fetch_jars; echo "$libs" ;;
*) echo "usage: $0 start|stop|jars" >&2; exit 2 ;;
esac
