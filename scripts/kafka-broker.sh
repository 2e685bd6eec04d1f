#!/usr/bin/env bash
# Starts a single-node Apache Kafka 4.x broker (KRaft: broker + controller) for the Kafka tests.
#   scripts/kafka-broker.sh start         -> prints the PLAINTEXT bootstrap address (127.0.0.1:<port>) on stdout
#   scripts/kafka-broker.sh stop          -> stops the broker started by `start` and deletes its data
#   scripts/kafka-broker.sh restart       -> stops the running broker and starts it again with the same
#                                            data dir and ports (topics and records survive); prints the
#                                            PLAINTEXT address
#   scripts/kafka-broker.sh address       -> prints the PLAINTEXT address of the running broker
#   scripts/kafka-broker.sh sasl-address  -> prints the SASL_PLAINTEXT address of the running broker
#   scripts/kafka-broker.sh jars          -> prints the directory holding the Kafka jars
# The SASL_PLAINTEXT listener accepts mechanism PLAIN with the test user "weir", password
# "weir-secret" (also user "admin", password "admin-secret").
# WEIR_KAFKA_RUN=<dir> keeps the state of an independent broker there (default ./.cache/kafka/run),
# so two test runs can each have their own broker.
# WEIR_KAFKA_JVM_OPTS overrides the broker JVM's heap and GC flags (default: a small heap with the
# serial collector, cheap for tests; bench/kafka-bench.sh runs the broker like Kafka's own start
# script does: a 1 GiB heap and G1).
# The jars come from Maven Central only (org.apache.kafka:kafka_2.13 and its runtime
# dependencies via `mvn dependency:copy-dependencies`), cached under ./.cache/kafka. The broker's
# state (config, logs, pid) lives in a temp dir recorded in ./.cache/kafka/run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
version="${KAFKA_VERSION:-4.0.0}"
cache="$root/.cache/kafka"
libs="$cache/libs-$version"
state="${WEIR_KAFKA_RUN:-$cache/run}"

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

# kill_broker stops the broker process (SIGTERM: a controlled shutdown, then SIGKILL after $1 s).
kill_broker() {
  local pid
  pid=$(cat "$state/pid" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 $(($1 * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
}

stop() {
  if [ -d "$state" ]; then
    kill_broker 10
    local dir
    dir=$(cat "$state/dir" 2>/dev/null || true)
    [ -n "$dir" ] && rm -rf "$dir"
    rm -rf "$state"
  fi
}

# launch runs the broker on the configuration in $state/dir and waits until both client
# listeners accept connections.
launch() {
  local dir port sport cp pid
  dir=$(cat "$state/dir")
  port=$(cat "$state/port")
  sport=$(cat "$state/sasl_port")
  cp="$libs/*"
  # shellcheck disable=SC2086 # the options are words
  nohup java ${WEIR_KAFKA_JVM_OPTS:--Xms256m -Xmx512m -XX:+UseSerialGC} -cp "$cp" kafka.Kafka "$dir/server.properties" \
    >>"$dir/broker.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$state/pid"
  for _ in $(seq 1 600); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "kafka-broker.sh: the broker exited; its log:" >&2
      tail -50 "$dir/broker.log" >&2
      exit 1
    fi
    # The jars carry no log binding (the broker logs nothing): the open ports are the signal.
    if (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && (echo >"/dev/tcp/127.0.0.1/$sport") 2>/dev/null; then
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

start() {
  command -v java >/dev/null || { echo "kafka-broker.sh: java is required" >&2; exit 1; }
  fetch_jars
  stop
  local dir port sport cport cp id
  dir=$(mktemp -d "${TMPDIR:-/tmp}/weir-kafka.XXXXXX")
  port=$(free_port)
  sport=$(free_port)
  while [ "$sport" = "$port" ]; do sport=$(free_port); done
  cport=$(free_port)
  while [ "$cport" = "$port" ] || [ "$cport" = "$sport" ]; do cport=$(free_port); done
  cat >"$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,SASL_PLAINTEXT://127.0.0.1:$sport,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port,SASL_PLAINTEXT://127.0.0.1:$sport
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT
sasl.enabled.mechanisms=PLAIN
listener.name.sasl_plaintext.sasl.enabled.mechanisms=PLAIN
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret" user_weir="weir-secret";
log.dirs=$dir/logs
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
broker.heartbeat.interval.ms=500
broker.session.timeout.ms=2000
auto.create.topics.enable=true
PROPS
  cp="$libs/*"
  id=$(java -cp "$cp" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
  java -cp "$cp" kafka.tools.StorageTool format -t "$id" -c "$dir/server.properties" >"$dir/format.log" 2>&1 || {
    cat "$dir/format.log" >&2; exit 1; }
  mkdir -p "$state"
  echo "$dir" >"$state/dir"
  echo "$port" >"$state/port"
  echo "$sport" >"$state/sasl_port"
  echo "127.0.0.1:$port" >"$state/address"
  echo "127.0.0.1:$sport" >"$state/sasl_address"
  launch
}

restart() {
  if [ ! -f "$state/dir" ] || [ ! -f "$state/sasl_port" ]; then
    echo "kafka-broker.sh: no broker to restart (run start first)" >&2
    exit 1
  fi
  kill_broker 30
  launch
}

show() {
  if [ ! -f "$state/$1" ]; then
    echo "kafka-broker.sh: no broker is running (run start first)" >&2
    exit 1
  fi
  cat "$state/$1"
}

case "${1:-start}" in
start) start ;;
stop) stop ;;
restart) restart ;;
address) show address ;;
sasl-address) show sasl_address ;;
jars) fetch_jars; echo "$libs" ;;
*) echo "usage: $0 start|stop|restart|address|sasl-address|jars" >&2; exit 2 ;;
esac
