"""Shared by the crash test (test_exactly_once.py) and the soak (bench/soak.py): checkpointed
rate-micro-batch → file sink queries, the sessions that survive a SIGKILLed server, and the
check that the sink holds exactly the rows of its committed epochs."""
import json
import os
from urllib.parse import unquote, urlparse

from pyspark.sql import functions as F

ROWS_PER_BATCH = 50


def session(server):
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(server.url).create()
    # Plain (non-reattachable) executions: no ReleaseExecute calls left to retry against a
    # killed server when the session is dropped.
    spark.client.disable_reattachable_execute()
    return spark


def drop(spark):
    """Forgets a session whose server was killed, without calls to it."""
    spark.client._channel.close()
    spark.client._closed = True


def rate(spark):
    # Batch b holds values 50b .. 50b+49, all stamped b seconds.
    return (spark.readStream.format("rate-micro-batch")
            .option("rowsPerBatch", ROWS_PER_BATCH).option("numPartitions", 2)
            .option("startTimestamp", 0).option("advanceMillisPerBatch", 1000).load())


def select_query(spark):
    return rate(spark).selectExpr("value", "value * 2 AS twice")


def window_query(spark):
    return (rate(spark).withWatermark("timestamp", "0 seconds")
            .groupBy(F.window("timestamp", "2 seconds"))
            .agg(F.count("*").alias("n"), F.sum("value").alias("s"))
            .select(F.col("window.start").cast("long").alias("start"), "n", "s"))


def dedup_query(spark):
    return rate(spark).selectExpr("value DIV 3 AS k").dropDuplicates(["k"])


def check_select(rows, last_epoch):
    assert all(r["twice"] == 2 * r["value"] for r in rows)
    return [r["value"] for r in rows], list(range(ROWS_PER_BATCH * (last_epoch + 1)))


def check_window(rows, last_epoch):
    # Window [2k, 2k+2) holds batches 2k and 2k+1; the watermark after epoch e is e seconds,
    # which closes (and emits, once) the windows ending at or before it.
    def expected(k):
        lo, hi = ROWS_PER_BATCH * 2 * k, ROWS_PER_BATCH * (2 * k + 2)
        return (2 * k, hi - lo, sum(range(lo, hi)))
    return [(r["start"], r["n"], r["s"]) for r in rows], [expected(k) for k in range(last_epoch // 2)]


def check_dedup(rows, last_epoch):
    n = ROWS_PER_BATCH * (last_epoch + 1)
    return [r["k"] for r in rows], list(range((n + 2) // 3))


CASES = {"select": (select_query, check_select), "window": (window_query, check_window),
         "dedup": (dedup_query, check_dedup)}


def start_query(spark, out, cp, build=select_query, name=None):
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    w = build(spark).writeStream.format("json").option("checkpointLocation", cp)
    if name:
        w = w.queryName(name)
    return w.trigger(processingTime="50 milliseconds").start(out)


def committed(out):
    """The sink's commit log: committed epochs and the files they hold (Spark's
    _spark_metadata format; compactions repeat earlier entries)."""
    log_dir = os.path.join(out, "_spark_metadata")
    if not os.path.isdir(log_dir):
        return [], set()
    epochs, files = [], set()
    for name in os.listdir(log_dir):
        if name.startswith("."):
            continue
        epochs.append(int(name.removesuffix(".compact")))
        with open(os.path.join(log_dir, name)) as f:
            lines = f.read().split("\n")
        assert lines[0] == "v1", f"log entry {name}: {lines[0]!r}"
        for line in lines[1:]:
            if line.strip():
                entry = json.loads(line)
                assert entry["action"] == "add"
                files.add(unquote(urlparse(entry["path"]).path))
    return sorted(epochs), files


def sink_rows(files):
    rows = []
    for path in files:
        with open(path) as f:
            rows.extend(json.loads(line) for line in f if line.strip())
    return rows


def verify(out, check, label):
    """Asserts the sink at out holds exactly the rows of its committed epochs (no gap in the
    commit log, no row missing, none twice, none unexpected); returns (last epoch, rows)."""
    epochs, files = committed(out)
    assert epochs, f"{label}: nothing was committed"
    assert epochs == list(range(epochs[-1] + 1)), f"{label}: gaps in the sink's commit log: {epochs}"
    got, expected = check(sink_rows(files), epochs[-1])
    dupes = len(got) - len(set(got))
    missing = sorted(set(expected) - set(got))[:5]
    extra = sorted(set(got) - set(expected))[:5]
    assert dupes == 0, f"{label}: {dupes} rows twice"
    assert not missing, f"{label}: missing rows, first {missing}"
    assert not extra, f"{label}: unexpected rows, first {extra}"
    assert sorted(got) == expected
    return epochs[-1], len(got)
