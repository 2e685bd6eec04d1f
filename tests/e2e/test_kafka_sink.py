"""Exactly-once Kafka → transform → Kafka against a real broker, checked with Kafka's own
console consumer reading with isolation.level=read_committed:

- the weir server is SIGKILLed several times mid-stream and the query restarted from its
  checkpoint on a new server: every input record is in the output topic exactly once (the
  restarted producers, whose transactional ids derive from the query id kept in the
  checkpoint, fence the killed run's open transactions);
- the broker restarts mid-stream (scripts/kafka-broker.sh restart on a broker of this test's
  own): the query rides it out without failing (the source and the sink retry the broker's
  transient errors, as the Java client does, within default.api.timeout.ms; a commit left
  unconfirmed is sent again at its producer epoch), and the output is again exact.

The kill schedule's seed is printed (fix it with WEIR_CRASH_SEED); WEIR_KAFKA_KILLS sets the
number of kills (default 5)."""
import json
import os
import random
import signal
import subprocess
import tempfile
import time

import pytest

from conftest import start_server, stop_server
from crash_harness import drop as _drop, session as _session
from test_kafka import SCRIPT, _classpath, kafka, produce, topic_name  # noqa: F401  (the broker fixture)
from test_kafka_source import SASL_PASSWORD, broker, sasl_options  # noqa: F401  (the SASL broker fixture)
from test_write import consume


def create_topic(kafka, topic, partitions):
    subprocess.run(["java", "-cp", _classpath(), "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", kafka,
                    "--create", "--topic", topic, "--partitions", str(partitions), "--replication-factor", "1"],
                   check=True, capture_output=True, text=True, timeout=120)


def start_pipeline(spark, kafka, src, out, cp):
    """Kafka → transform → Kafka, exactly-once (the sink's default), small epochs."""
    return (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka).option("subscribe", src)
            .option("startingOffsets", "earliest").option("maxOffsetsPerTrigger", 20).load()
            .selectExpr("key", "concat(upper(CAST(value AS STRING)), '!') AS value")
            .writeStream.format("kafka").option("kafka.bootstrap.servers", kafka).option("topic", out)
            .option("checkpointLocation", cp).trigger(processingTime="100 milliseconds").start())


def check_exact(kafka, out, n, expected_values):
    """The read_committed output holds exactly the expected values: none missing, none twice.
    (The consumer waits for one record more than expected, so extras would show.)"""
    got = consume(kafka, out, n + 1, committed=True, timeout_ms=15000)
    values = sorted(line.split("|", 1)[1] for line in got)  # drop the output partition
    dupes = len(values) - len(set(values))
    missing = sorted(set(expected_values) - set(values))[:5]
    extra = sorted(set(values) - set(expected_values))[:5]
    assert dupes == 0, f"{dupes} records twice"
    assert not missing, f"missing records, first {missing}"
    assert not extra, f"unexpected records, first {extra}"
    assert values == sorted(expected_values)


def read_so_far(q):
    """Input records the query has read up to its last epoch (its end offsets), or None."""
    last = q.lastProgress
    ends = last["sources"][0]["endOffset"] if last else None
    if isinstance(ends, str):  # PySpark's SourceProgress.endOffset is the offsets' JSON
        try:
            ends = json.loads(ends)
        except ValueError:
            return None
    if not isinstance(ends, dict):
        return None
    return sum(sum(offsets.values()) for offsets in ends.values())


def finish(spark, kafka, src, out, cp, n):
    """A clean last run: the restarted query processes what is left of the n input records,
    then stops. (processAllAvailable waits for all the records available at the call, however
    many maxOffsetsPerTrigger epochs that takes; it is called until the end offsets reach n in
    case records were still arriving.) A run that finds nothing left has no progress at all."""
    q = start_pipeline(spark, kafka, src, out, cp)
    try:
        began = time.time()
        while time.time() - began < 120:
            q.processAllAvailable()
            seen = read_so_far(q)
            if (seen is not None and seen >= n) or (seen is None and time.time() - began > 5):
                break
            time.sleep(0.2)
        else:
            pytest.fail(f"the query did not read {n} records: {q.lastProgress}")
    finally:
        q.stop()
    assert q.exception() is None
    return q


def values_of(lines):
    """Expected output values "key|VALUE!" of "key:value" input lines."""
    return [f"{k}|{v.upper()}!" for k, v in (line.split(":", 1) for line in lines)]


def test_sigkills_of_the_server_keep_kafka_to_kafka_exact(kafka, tmp_path):
    seed = int(os.environ.get("WEIR_CRASH_SEED", random.randrange(1 << 30)))
    kills = int(os.environ.get("WEIR_KAFKA_KILLS", "5"))
    print(f"kafka crash test: seed={seed} kills={kills}")
    rng = random.Random(seed)
    src, out = topic_name("eo-in"), topic_name("eo-out")
    print(f"topics {src} -> {out}")
    create_topic(kafka, src, 2)
    lines = [f"k{i}:v{i}" for i in range(300 * (kills + 1))]  # more than the runs read before their kills
    produce(kafka, src, lines)
    cp = str(tmp_path / "cp")
    query_id, progressed = None, 0
    for i in range(kills):
        server = start_server()
        try:
            spark = _session(server)
            q = start_pipeline(spark, kafka, src, out, cp)
            if query_id is None:
                query_id = q.id
            assert q.id == query_id, "the restarted query has another id than its checkpoint"
            time.sleep(rng.uniform(0.5, 2.0))
            last = q.lastProgress
            print(f"run {i}: killed after batch {last['batchId'] if last else None}")
            if last is not None:
                progressed += 1
            os.kill(server.proc.pid, signal.SIGKILL)
            server.proc.wait(timeout=10)
            _drop(spark)
        finally:
            if server.proc.poll() is None:
                stop_server(server)
    assert progressed > 0, "no run got to a committed epoch before its kill"
    server = start_server()
    try:
        spark = _session(server)
        q = finish(spark, kafka, src, out, cp, len(lines))
        last = q.lastProgress
        print(f"last run: ended at batch {last['batchId'] if last else None}")
        assert last is not None, "the kills left nothing for the last run: they did not interrupt a moving query"
        spark.stop()
    finally:
        stop_server(server)
    check_exact(kafka, out, len(lines), values_of(lines))
    # Records of transactions the kills cut short (aborted when the next run's producers
    # fenced them) are visible to read_uncommitted readers only.
    uncommitted = consume(kafka, out, 2 * len(lines), timeout_ms=8000)
    print(f"read_uncommitted sees {len(uncommitted) - len(lines)} records of aborted transactions")


@pytest.fixture()
def own_broker(tmp_path):
    """A broker of this test's own (its state in a temp WEIR_KAFKA_RUN), so restarting it
    disturbs no other test."""
    env = {**os.environ, "WEIR_KAFKA_RUN": str(tmp_path / "kafka-run")}
    out = subprocess.run([SCRIPT, "start"], check=True, capture_output=True, text=True, timeout=900, env=env)
    addr = out.stdout.strip().splitlines()[-1]

    def restart():
        r = subprocess.run([SCRIPT, "restart"], check=True, capture_output=True, text=True, timeout=300, env=env)
        assert r.stdout.strip().splitlines()[-1] == addr, "the restarted broker has another address"

    try:
        yield addr, restart
    finally:
        subprocess.run([SCRIPT, "stop"], check=False, timeout=120, env=env)


def test_broker_restart_mid_stream_loses_nothing(spark, own_broker):
    kafka, restart_broker = own_broker
    src, out = topic_name("br-in"), topic_name("br-out")
    create_topic(kafka, src, 2)
    first = [f"a{i}:x{i}" for i in range(400)]
    second = [f"b{i}:y{i}" for i in range(400)]
    produce(kafka, src, first)
    cp = tempfile.mkdtemp(prefix="weir-kafka-br-")
    q = start_pipeline(spark, kafka, src, out, cp)
    deadline = time.time() + 60  # a fresh broker creates its transaction log at the first commit
    while q.lastProgress is None and time.time() < deadline:
        time.sleep(0.2)
    assert q.lastProgress is not None, "the query made no progress before the broker restart"
    assert (read_so_far(q) or 0) < len(first), "the query read everything before the broker restart"
    restart_broker()
    produce(kafka, src, second)
    # The query rides the restart out and reads on: a commit the restart left unconfirmed is
    # settled by sending it again at the transaction's producer epoch (never PRODUCER_FENCED).
    deadline = time.time() + 120
    while q.isActive and time.time() < deadline and (read_so_far(q) or 0) < len(first) + len(second):
        time.sleep(0.5)
    assert q.isActive and q.exception() is None, f"the query failed across the broker restart: {q.exception()}"
    assert (read_so_far(q) or 0) >= len(first) + len(second), "the query did not read on after the broker restart"
    q.stop()
    finish(spark, kafka, src, out, cp, len(first) + len(second))
    lines = first + second
    check_exact(kafka, out, len(lines), values_of(lines))


def test_producer_options_pass_through_sasl(spark, broker):
    """kafka.* producer options reach the sink's producer: SASL_PLAINTEXT credentials, acks,
    compression, linger; streaming (exactly-once) and batch writes both; a wrong password fails
    with the Kafka client's SASL error."""
    plain, sasl = broker
    src, out, batch_out = topic_name("sasl-in"), topic_name("sasl-out"), topic_name("sasl-batch")
    produce(plain, src, ["a:one", "b:two"])
    producer = {**sasl_options(sasl, SASL_PASSWORD), "kafka.acks": "all", "kafka.compression.type": "zstd",
                "kafka.linger.ms": "5"}
    writer = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", plain).option("subscribe", src)
              .option("startingOffsets", "earliest").load()
              .selectExpr("key", "upper(CAST(value AS STRING)) AS value")
              .writeStream.format("kafka").option("topic", out)
              .option("checkpointLocation", tempfile.mkdtemp(prefix="weir-kafka-sasl-")))
    for k, v in producer.items():
        writer = writer.option(k, v)
    q = writer.start()
    try:
        deadline = time.time() + 60
        while (read_so_far(q) or 0) < 2 and time.time() < deadline:
            q.processAllAvailable()
            time.sleep(0.2)
        assert q.exception() is None
    finally:
        q.stop()
    assert consume(plain, out, 3, committed=True, timeout_ms=8000) == ["0|a|ONE", "0|b|TWO"]

    batch = spark.createDataFrame([("k1", "v1"), ("k2", "v2")], "key STRING, value STRING").write.format("kafka") \
        .option("topic", batch_out)
    for k, v in producer.items():
        batch = batch.option(k, v)
    batch.save()
    assert consume(plain, batch_out, 3, timeout_ms=8000) == ["0|k1|v1", "0|k2|v2"]

    wrong = spark.createDataFrame([("k", "v")], "key STRING, value STRING").write.format("kafka") \
        .option("topic", batch_out).option("kafka.default.api.timeout.ms", "10000")
    for k, v in sasl_options(sasl, "wrong-password").items():
        wrong = wrong.option(k, v)
    with pytest.raises(Exception) as e:
        wrong.save()
    assert "SASL authentication with kafka.bootstrap.servers" in str(e.value), str(e.value)
