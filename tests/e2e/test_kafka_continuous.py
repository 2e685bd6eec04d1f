"""Kafka → Kafka under continuous processing (trigger(continuous=...)), the low-latency path
Spark users have: at-least-once, rows reach the output topic as they arrive rather than at the
checkpoint interval. Needs a broker (KAFKA_BOOTSTRAP, or the test_kafka fixture starts one)."""
import time

from test_kafka import kafka, produce, topic_name  # noqa: F401 (fixture)


def output_values(spark, kafka, topic, committed=False):
    reader = (spark.read.format("kafka").option("kafka.bootstrap.servers", kafka)
              .option("subscribe", topic).option("startingOffsets", "earliest"))
    if committed:
        reader = reader.option("kafka.isolation.level", "read_committed")
    try:
        return sorted(r.v for r in reader.load().selectExpr("CAST(value AS STRING) AS v").collect())
    except Exception as e:  # the sink creates the topic with its first record
        if "UnknownTopicOrPartition" in str(e) or "does not exist" in str(e) or "UNKNOWN_TOPIC" in str(e):
            return []
        raise


def wait_values(spark, kafka, topic, want, timeout, committed=False):
    deadline = time.time() + timeout
    while True:
        got = output_values(spark, kafka, topic, committed)
        if set(want) <= set(got) or time.time() > deadline:
            return got
        time.sleep(0.2)


def start_continuous(spark, kafka, src, out, tmp_path, interval, exactly_once):
    return (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka)
            .option("subscribe", src).option("startingOffsets", "earliest").load()
            .selectExpr("CAST(key AS STRING) AS key", "upper(CAST(value AS STRING)) AS value")
            .where("value <> 'SKIP'")
            .writeStream.format("kafka").option("kafka.bootstrap.servers", kafka).option("topic", out)
            .option("exactlyOnce", str(exactly_once).lower())
            .option("checkpointLocation", str(tmp_path / "cp"))
            .trigger(continuous=interval).start())


def test_continuous_kafka_to_kafka_writes_rows_before_the_checkpoint_interval(spark, kafka, tmp_path):
    src, out = topic_name("cont-in"), topic_name("cont-out")
    produce(kafka, src, ["k1:a", "k2:skip", "k3:b"])
    began = time.time()
    q = start_continuous(spark, kafka, src, out, tmp_path, "60 seconds", exactly_once=False)
    try:
        got = wait_values(spark, kafka, out, ["A", "B"], timeout=40)
        assert got == ["A", "B"]
        produce(kafka, src, ["k4:c", "k5:d"])
        got = wait_values(spark, kafka, out, ["A", "B", "C", "D"], timeout=40)
        assert got == ["A", "B", "C", "D"]
        # All of it well before the first 60-second epoch ends: rows went out as they arrived.
        assert time.time() - began < 55
        assert q.isActive and q.exception() is None
    finally:
        q.stop()


def test_continuous_exactly_once_sink_commits_at_epochs(spark, kafka, tmp_path):
    src, out = topic_name("cont-eo-in"), topic_name("cont-eo-out")
    produce(kafka, src, ["k1:a", "k2:b"])
    q = start_continuous(spark, kafka, src, out, tmp_path, "1 second", exactly_once=True)
    try:
        assert wait_values(spark, kafka, out, ["A", "B"], timeout=40, committed=True) == ["A", "B"]
        produce(kafka, src, ["k3:c"])
        assert wait_values(spark, kafka, out, ["A", "B", "C"], timeout=40, committed=True) == ["A", "B", "C"]
        assert q.exception() is None
    finally:
        q.stop()
