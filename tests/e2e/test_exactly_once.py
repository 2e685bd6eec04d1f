"""Exactly-once across crashes: checkpointed rate-micro-batch → file sink queries (stateless,
windowed aggregation with a watermark, deduplication) survive repeated SIGKILLs of the server;
the sink ends up with exactly the rows of the committed epochs, none missing, none twice.

The seed of the kill schedule is printed (and can be fixed with WEIR_CRASH_SEED); the number of
kills per query is WEIR_CRASH_KILLS (default 20)."""
import json
import os
import random
import signal
import time
from urllib.parse import unquote, urlparse

import pytest
from pyspark.sql import functions as F

from conftest import start_server, stop_server

ROWS_PER_BATCH = 50


def _session(server):
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(server.url).create()
    # Plain (non-reattachable) executions: no ReleaseExecute calls left to retry against a
    # killed server when the session is dropped.
    spark.client.disable_reattachable_execute()
    return spark


def _drop(spark):
    """Forgets a session whose server was killed, without calls to it."""
    spark.client._channel.close()
    spark.client._closed = True


def _rate(spark):
    # Batch b holds values 50b .. 50b+49, all stamped b seconds.
    return (spark.readStream.format("rate-micro-batch")
            .option("rowsPerBatch", ROWS_PER_BATCH).option("numPartitions", 2)
            .option("startTimestamp", 0).option("advanceMillisPerBatch", 1000).load())


def _select(spark):
    return _rate(spark).selectExpr("value", "value * 2 AS twice")


def _window(spark):
    return (_rate(spark).withWatermark("timestamp", "0 seconds")
            .groupBy(F.window("timestamp", "2 seconds"))
            .agg(F.count("*").alias("n"), F.sum("value").alias("s"))
            .select(F.col("window.start").cast("long").alias("start"), "n", "s"))


def _dedup(spark):
    return _rate(spark).selectExpr("value DIV 3 AS k").dropDuplicates(["k"])


def _check_select(rows, last_epoch):
    assert all(r["twice"] == 2 * r["value"] for r in rows)
    return [r["value"] for r in rows], list(range(ROWS_PER_BATCH * (last_epoch + 1)))


def _check_window(rows, last_epoch):
    # Window [2k, 2k+2) holds batches 2k and 2k+1; the watermark after epoch e is e seconds,
    # which closes (and emits, once) the windows ending at or before it.
    def expected(k):
        lo, hi = ROWS_PER_BATCH * 2 * k, ROWS_PER_BATCH * (2 * k + 2)
        return (2 * k, hi - lo, sum(range(lo, hi)))
    return [(r["start"], r["n"], r["s"]) for r in rows], [expected(k) for k in range(last_epoch // 2)]


def _check_dedup(rows, last_epoch):
    n = ROWS_PER_BATCH * (last_epoch + 1)
    return [r["k"] for r in rows], list(range((n + 2) // 3))


CASES = {"select": (_select, _check_select), "window": (_window, _check_window), "dedup": (_dedup, _check_dedup)}


def _start_query(spark, out, cp, build=_select):
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    return (build(spark).writeStream.format("json").option("checkpointLocation", cp)
            .trigger(processingTime="50 milliseconds").start(out))


def _committed(out):
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


def _sink_rows(files):
    rows = []
    for path in files:
        with open(path) as f:
            rows.extend(json.loads(line) for line in f if line.strip())
    return rows


@pytest.mark.parametrize("case", list(CASES))
def test_sigkill_loop_keeps_the_file_sink_exact(tmp_path, case):
    build, check = CASES[case]
    seed = int(os.environ.get("WEIR_CRASH_SEED", random.randrange(1 << 30)))
    kills = int(os.environ.get("WEIR_CRASH_KILLS", "20"))
    print(f"crash test {case}: seed={seed} kills={kills}")
    rng = random.Random(seed)
    out, cp = str(tmp_path / "out"), str(tmp_path / "cp")
    query_id, batches, run_ids = None, [], set()
    for i in range(kills + 1):
        server = start_server()
        try:
            spark = _session(server)
            q = _start_query(spark, out, cp, build)
            if query_id is None:
                query_id = q.id
            assert q.id == query_id, f"run {i}: query id {q.id}, the checkpoint's is {query_id}"
            assert q.runId not in run_ids
            run_ids.add(q.runId)
            if i == kills:
                # The last run ends cleanly after one more batch.
                q.processAllAvailable()
                progress = q.lastProgress
                assert progress is not None and progress["batchId"] >= max(batches, default=-1)
                q.stop()
                assert q.exception() is None
                spark.stop()
                break
            # Kill at a random moment: before the first batch, in the middle of one, between.
            time.sleep(rng.uniform(0.0, 1.2))
            progress = q.lastProgress
            if progress is not None:
                # Batch ids continue across restarts (a replayed batch keeps its id).
                assert not batches or progress["batchId"] >= batches[-1] - 1, (progress["batchId"], batches)
                batches.append(progress["batchId"])
            os.kill(server.proc.pid, signal.SIGKILL)
            server.proc.wait(timeout=10)
            _drop(spark)
        finally:
            if server.proc.poll() is None:
                stop_server(server)

    epochs, files = _committed(out)
    assert epochs, "nothing was committed"
    assert epochs == list(range(epochs[-1] + 1)), f"gaps in the sink's commit log: {epochs}"
    got, expected = check(_sink_rows(files), epochs[-1])
    dupes = len(got) - len(set(got))
    missing = sorted(set(expected) - set(got))[:5]
    extra = sorted(set(got) - set(expected))[:5]
    assert dupes == 0, f"{case} seed={seed}: {dupes} rows twice"
    assert not missing, f"{case} seed={seed}: missing rows, first {missing}"
    assert not extra, f"{case} seed={seed}: unexpected rows, first {extra}"
    assert sorted(got) == expected
    # More than one epoch per run on average: the kills did interrupt a moving query.
    assert epochs[-1] >= kills, f"only {epochs[-1] + 1} epochs over {kills + 1} runs"
