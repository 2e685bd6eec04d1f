"""Exactly-once across crashes: a checkpointed rate-micro-batch → file sink query survives
repeated SIGKILLs of the server; the sink ends up with every value exactly once.

The seed of the kill schedule is printed (and can be fixed with WEIR_CRASH_SEED); the number of
kills is WEIR_CRASH_KILLS (default 20)."""
import json
import os
import random
import signal
import time
from urllib.parse import unquote, urlparse

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


def _start_query(spark, out, cp):
    return (spark.readStream.format("rate-micro-batch")
            .option("rowsPerBatch", ROWS_PER_BATCH).option("numPartitions", 2).load()
            .selectExpr("value", "value * 2 AS twice")
            .writeStream.format("json").option("checkpointLocation", cp)
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


def _sink_values(files):
    values = []
    for path in files:
        with open(path) as f:
            for line in f:
                if line.strip():
                    row = json.loads(line)
                    assert row["twice"] == 2 * row["value"], row
                    values.append(row["value"])
    return values


def test_sigkill_loop_keeps_the_file_sink_exact(tmp_path):
    seed = int(os.environ.get("WEIR_CRASH_SEED", random.randrange(1 << 30)))
    kills = int(os.environ.get("WEIR_CRASH_KILLS", "20"))
    print(f"crash test seed={seed} kills={kills}")
    rng = random.Random(seed)
    out, cp = str(tmp_path / "out"), str(tmp_path / "cp")
    query_id, batches, run_ids = None, [], set()
    for i in range(kills + 1):
        server = start_server()
        try:
            spark = _session(server)
            q = _start_query(spark, out, cp)
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
    values = _sink_values(files)
    expected = ROWS_PER_BATCH * (epochs[-1] + 1)
    dupes = len(values) - len(set(values))
    missing = sorted(set(range(expected)) - set(values))[:10]
    assert dupes == 0, f"seed={seed}: {dupes} values twice"
    assert not missing, f"seed={seed}: missing values, first {missing}"
    assert sorted(values) == list(range(expected)), f"seed={seed}: unexpected values"
    # More than one epoch per run on average: the kills did interrupt a moving query.
    assert epochs[-1] >= kills, f"only {epochs[-1] + 1} epochs over {kills + 1} runs"
