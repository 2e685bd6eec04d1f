#!/usr/bin/env bash
# Starts Apache Iceberg's REST catalog fixture server (org.apache.iceberg.rest.RESTCatalogServer
# from the test fixtures of org.apache.iceberg:iceberg-open-api: the server of Iceberg's own REST
# compatibility kit and of its apache/iceberg-rest-fixture image) for the REST catalog tests.
#   scripts/iceberg-rest.sh start    -> prints the catalog's URI (http://127.0.0.1:<port>) on stdout
#   scripts/iceberg-rest.sh stop     -> stops the server started by `start` and deletes its warehouse
#   scripts/iceberg-rest.sh address  -> prints the URI of the running server
#   scripts/iceberg-rest.sh warehouse -> prints the server's warehouse directory
#   scripts/iceberg-rest.sh jars     -> prints the directory holding the server's jars
# The server keeps its catalog in a SQLite database in its state dir (a JdbcCatalog: deleted by stop)
# and the tables' files under a warehouse directory on the local file system (HadoopFileIO),
# which Weir and PyIceberg read and write directly.
# WEIR_ICEBERG_REST_RUN=<dir> keeps the state of an independent server there (default
# ./.cache/iceberg-rest/run), so two test runs can each have their own.
# WEIR_ICEBERG_REST_WAREHOUSE=<dir> is the warehouse directory (default: a fresh temp dir, deleted
# by stop).
# The Iceberg fixture's Maven artifact carries no dependency list of its own (Gradle publishes
# the test fixtures without one; Iceberg's Docker image bundles them in a shaded jar that is not
# on Maven Central), so the pom below names what RESTCatalogServer loads: iceberg-core and its
# test jar (RESTCatalogServlet, RESTCatalogAdapter), Jetty 11, the SQLite JDBC driver, Hadoop's
# client (Configuration, HadoopFileIO) and an SLF4J binding. The jars come from Maven Central
# only (`mvn dependency:copy-dependencies`), cached under ./.cache/iceberg-rest.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
version="${ICEBERG_VERSION:-1.10.0}"
cache="$root/.cache/iceberg-rest"
libs="$cache/libs-$version"
state="${WEIR_ICEBERG_REST_RUN:-$cache/run}"

fetch_jars() {
  if [ -f "$libs/.complete" ]; then return; fi
  mkdir -p "$cache"
  local pomdir
  pomdir=$(mktemp -d)
  cat >"$pomdir/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>weir</groupId><artifactId>iceberg-rest-fixture</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.iceberg</groupId><artifactId>iceberg-open-api</artifactId><version>$version</version><classifier>test-fixtures</classifier></dependency>
    <dependency><groupId>org.apache.iceberg</groupId><artifactId>iceberg-core</artifactId><version>$version</version></dependency>
    <dependency><groupId>org.apache.iceberg</groupId><artifactId>iceberg-core</artifactId><version>$version</version><classifier>tests</classifier></dependency>
    <dependency><groupId>org.eclipse.jetty</groupId><artifactId>jetty-servlet</artifactId><version>11.0.25</version></dependency>
    <dependency><groupId>org.xerial</groupId><artifactId>sqlite-jdbc</artifactId><version>3.49.1.0</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-simple</artifactId><version>2.0.16</version></dependency>
    <dependency><groupId>org.apache.hadoop</groupId><artifactId>hadoop-client-api</artifactId><version>3.4.1</version></dependency>
    <dependency><groupId>org.apache.hadoop</groupId><artifactId>hadoop-client-runtime</artifactId><version>3.4.1</version></dependency>
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
  if [ -d "$state" ]; then
    local pid dir
    pid=$(cat "$state/pid" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    dir=$(cat "$state/dir" 2>/dev/null || true)
    [ -n "$dir" ] && rm -rf "$dir"
    rm -rf "$state"
  fi
}

start() {
  command -v java >/dev/null || { echo "iceberg-rest.sh: java is required" >&2; exit 1; }
  fetch_jars
  stop
  local dir port wh pid
  dir=$(mktemp -d "${TMPDIR:-/tmp}/weir-iceberg-rest.XXXXXX")
  port=$(free_port)
  wh="${WEIR_ICEBERG_REST_WAREHOUSE:-$dir/warehouse}"
  mkdir -p "$wh" "$state"
  echo "$dir" >"$state/dir"
  echo "$wh" >"$state/warehouse"
  echo "http://127.0.0.1:$port" >"$state/address"
  # RESTCatalogServer reads its catalog properties from CATALOG_* variables (CATALOG_URI is "uri",
  # CATALOG_WAREHOUSE "warehouse", CATALOG_REST_PORT "rest.port"). Its default JDBC URI is an
  # in-memory SQLite database, which is one database per pooled connection: a namespace created
  # on one is missing on the next. A database file in the server's state dir is one catalog.
  CATALOG_URI="jdbc:sqlite:$dir/catalog.db" CATALOG_WAREHOUSE="$wh" CATALOG_REST_PORT="$port" nohup java -Xms64m -Xmx384m -XX:+UseSerialGC \
    -cp "$libs/*" org.apache.iceberg.rest.RESTCatalogServer >>"$dir/server.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$state/pid"
  for _ in $(seq 1 600); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "iceberg-rest.sh: the catalog server exited; its log:" >&2
      tail -50 "$dir/server.log" >&2
      exit 1
    fi
    if curl -sf "http://127.0.0.1:$port/v1/config" >/dev/null 2>&1; then
      echo "http://127.0.0.1:$port"
      return
    fi
    sleep 0.2
  done
  echo "iceberg-rest.sh: the catalog server did not start within 120 s; its log:" >&2
  tail -50 "$dir/server.log" >&2
  stop
  exit 1
}

show() {
  if [ ! -f "$state/$1" ]; then
    echo "iceberg-rest.sh: no catalog server is running (run start first)" >&2
    exit 1
  fi
  cat "$state/$1"
}

case "${1:-start}" in
start) start ;;
stop) stop ;;
address) show address ;;
warehouse) show warehouse ;;
jars) fetch_jars; echo "$libs" ;;
*) echo "usage: $0 start|stop|address|warehouse|jars" >&2; exit 2 ;;
esac
