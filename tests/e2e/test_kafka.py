"""Kafka source and sink against a real Apache Kafka broker (scripts/kafka-broker.sh).

The broker's address comes from KAFKA_BOOTSTRAP (set by scripts/test.sh); without it the
fixture starts a broker itself and stops it at the end. Records are produced with the broker's
own console producer (kafka-tools jars) and with Weir's Kafka sink.
"""
import glob
import os
import socket
import subprocess
import tempfile
import time
import uuid

import pytest
from pyspark.errors import StreamingQueryException

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
SCRIPT = os.path.join(ROOT, "scripts", "kafka-broker.sh")


@pytest.fixture(scope="module")
def kafka():
    addr = os.environ.get("KAFKA_BOOTSTRAP")
    if addr:
        yield addr
        return
    out = subprocess.run([SCRIPT, "start"], check=True, capture_output=True, text=True, timeout=900)
    addr = out.stdout.strip().splitlines()[-1]
    try:
        yield addr
    finally:
        subprocess.run([SCRIPT, "stop"], check=False, timeout=60)


def _classpath() -> str:
    libs = subprocess.run([SCRIPT, "jars"], check=True, capture_output=True, text=True, timeout=900).stdout.strip()
    return os.path.join(libs.splitlines()[-1], "*")


def produce(kafka: str, topic: str, lines):
    """Produces key:value lines with Kafka's console producer (creating the topic)."""
    subprocess.run(
        ["java", "-cp", _classpath(), "org.apache.kafka.tools.ConsoleProducer",
         "--bootstrap-server", kafka, "--topic", topic,
         "--property", "parse.key=true", "--property", "key.separator=:"],
        input="\n".join(lines) + "\n", text=True, check=True, capture_output=True, timeout=120)


def topic_name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def drain(q, rows: int, timeout: float = 60):
    """processAllAvailable until the query has read `rows` input rows: a topic created a moment
    ago may not be visible to the first offset request, and then processAllAvailable has nothing
    to wait for yet."""
    deadline = time.time() + timeout
    while True:
        q.processAllAvailable()
        seen = sum(p.numInputRows for p in q.recentProgress)
        if seen >= rows or time.time() > deadline:
            return seen
        time.sleep(0.2)


def read_topic(spark, kafka: str, topic: str, name: str, committed=False, expect=0):
    """Reads a topic from the beginning with a streaming query into a memory table, until at
    least `expect` records (data records; transaction markers are not rows) have been read."""
    reader = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka)
              .option("subscribe", topic).option("startingOffsets", "earliest"))
    if committed:
        reader = reader.option("kafka.isolation.level", "read_committed")
    q = (reader.load().selectExpr("CAST(key AS STRING) AS k", "CAST(value AS STRING) AS v", "topic", "partition",
                                  "`offset`", "timestampType")
         .writeStream.format("memory").queryName(name).start())
    try:
        drain(q, expect)
    finally:
        q.stop()
    return spark.sql(f"SELECT * FROM {name} ORDER BY `offset`").collect()


def test_kafka_source_reads_exact_rows(spark, kafka):
    topic = topic_name("src")
    produce(kafka, topic, ["k1:a", "k2:b", "k3:c"])
    rows = read_topic(spark, kafka, topic, "kafka_src_rows", expect=3)
    assert [(r.k, r.v, r.topic, r.partition, r.offset, r.timestampType) for r in rows] == [
        ("k1", "a", topic, 0, 0, 0), ("k2", "b", topic, 0, 1, 0), ("k3", "c", topic, 0, 2, 0)]


def test_kafka_source_schema(spark, kafka):
    df = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka)
          .option("subscribe", "whatever").option("includeHeaders", "true").load())
    assert [(f.name, f.dataType.simpleString()) for f in df.schema.fields] == [
        ("key", "binary"), ("value", "binary"), ("topic", "string"), ("partition", "int"), ("offset", "bigint"),
        ("timestamp", "timestamp"), ("timestampType", "int"),
        ("headers", "array<struct<key:string,value:binary>>")]


def test_kafka_options_are_validated(spark, kafka):
    with pytest.raises(Exception, match="One of the following options must be specified for Kafka source"):
        spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka).load() \
            .writeStream.format("memory").queryName("kafka_bad").start()


def test_unreachable_kafka_fails_the_query_in_bounded_time(spark):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    began = time.time()
    q = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", f"127.0.0.1:{port}")
         .option("subscribe", "t").option("kafka.default.api.timeout.ms", "5000").load()
         .writeStream.format("memory").queryName("kafka_unreachable").start())
    with pytest.raises(StreamingQueryException, match="127.0.0.1"):
        q.awaitTermination(60)
    assert time.time() - began < 40
    assert q.exception() is not None


def test_kafka_to_kafka_exactly_once(spark, kafka):
    src, out = topic_name("in"), topic_name("out")
    produce(kafka, src, ["a:one", "b:two", "c:three"])
    cp = tempfile.mkdtemp(prefix="weir-kafka-cp-")
    q = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka).option("subscribe", src)
         .option("startingOffsets", "earliest").load()
         .selectExpr("key", "upper(CAST(value AS STRING)) AS value")
         .writeStream.format("kafka").option("kafka.bootstrap.servers", kafka).option("topic", out)
         .option("checkpointLocation", cp).start())
    try:
        assert drain(q, 3) == 3
    finally:
        q.stop()
    rows = read_topic(spark, kafka, out, "kafka_out_rows", committed=True, expect=3)
    assert sorted((r.k, r.v) for r in rows) == [("a", "ONE"), ("b", "TWO"), ("c", "THREE")]


def test_kafka_to_kafka_restart_from_checkpoint_writes_each_row_once(spark, kafka):
    src, out = topic_name("rin"), topic_name("rout")
    cp = tempfile.mkdtemp(prefix="weir-kafka-cp-")

    def run(rows):
        q = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka).option("subscribe", src)
             .option("startingOffsets", "earliest").load()
             .selectExpr("key", "concat(CAST(value AS STRING), '!') AS value")
             .writeStream.format("kafka").option("kafka.bootstrap.servers", kafka).option("topic", out)
             .option("checkpointLocation", cp).start())
        try:
            assert drain(q, rows) == rows
        finally:
            q.stop()

    produce(kafka, src, ["a:1", "b:2"])
    run(2)
    produce(kafka, src, ["c:3"])
    run(1)  # the restarted run reads only what the checkpoint has not committed
    rows = read_topic(spark, kafka, out, "kafka_restart_rows", committed=True, expect=3)
    assert sorted((r.k, r.v) for r in rows) == [("a", "1!"), ("b", "2!"), ("c", "3!")]


def test_kafka_from_json_parses_values(spark, kafka):
    from pyspark.sql.functions import col, from_json

    topic = topic_name("json")
    produce(kafka, topic, ['k1:{"id":1,"name":"a"}', 'k2:{"id":2}', "k3:not json"])
    parsed = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka)
              .option("subscribe", topic).option("startingOffsets", "earliest").load()
              .select(from_json(col("value").cast("string"), "id INT, name STRING"), col("offset")))
    assert parsed.columns == ["from_json(CAST(value AS STRING))", "offset"]
    q = (parsed.select(col("from_json(CAST(value AS STRING))").alias("j"), "offset")
         .select("j.id", "j.name", "offset")
         .writeStream.format("memory").queryName("kafka_from_json").start())
    try:
        drain(q, 3)
    finally:
        q.stop()
    rows = spark.sql("SELECT * FROM kafka_from_json ORDER BY `offset`").collect()
    assert [(r.id, r.name) for r in rows] == [(1, "a"), (2, None), (None, None)]
