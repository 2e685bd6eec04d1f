"""Observability from a stock PySpark client: Prometheus metrics on --metrics-listen agree
with what lastProgress/recentProgress report for a running rate query and a checkpointed file
query (end-to-end latency, checkpoint bytes, files outstanding)."""
import datetime
import os
import re
import socket
import time
import urllib.request

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from conftest import start_server, stop_server


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def scrape(url):
    """The scrape's samples as {(name, ((label, value), ...)): float}."""
    with urllib.request.urlopen(url, timeout=10) as resp:
        text = resp.read().decode()
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        assert m, line
        labels = tuple(sorted(_LABEL.findall(m.group(2) or "")))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def value(samples, metric, /, **labels):
    want = set(labels.items())
    hits = [v for (n, ls), v in samples.items() if n == metric and want <= set(ls)]
    assert len(hits) == 1, f"{metric}{labels}: {hits}"
    return hits[0]


@pytest.fixture(scope="module")
def metrics_server():
    port = _free_port()
    s = start_server(["--metrics-listen", f"127.0.0.1:{port}"])
    yield s, f"http://127.0.0.1:{port}/metrics"
    stop_server(s)


def test_metrics_follow_a_running_rate_query(metrics_server):
    server, url = metrics_server
    spark = SparkSession.builder.remote(server.url).create()
    try:
        spark.conf.set("spark.sql.shuffle.partitions", "2")
        agg = (spark.readStream.format("rate").option("rowsPerSecond", 200).load()
               .withWatermark("timestamp", "1 second").groupBy(F.window("timestamp", "1 second")).count())
        q = (agg.writeStream.format("memory").queryName("obs_rates").outputMode("append")
             .trigger(processingTime="100 milliseconds").start())
        labels = {"name": "obs_rates", "id": q.id}
        try:
            deadline = time.time() + 30
            while time.time() < deadline and len([p for p in q.recentProgress if p.numInputRows > 0]) < 3:
                time.sleep(0.1)
            first = scrape(url)
            time.sleep(1.0)
            second = scrape(url)
            # The values move while the query runs.
            for name in ("weir_query_batches_total", "weir_query_input_rows_total"):
                assert value(second, name, **labels) > value(first, name, **labels) > 0, name
            assert value(second, "weir_query_active", **labels) == 1
            assert value(second, "weir_sessions") >= 1
            assert value(second, "weir_rpcs_total", method="ExecutePlan") > 0
            assert value(second, "go_goroutines") > 0
            assert q.exception() is None
        finally:
            q.stop()
        # Stopped: every progress report was published; the series agree with them.
        progress = q.recentProgress
        last = q.lastProgress
        assert 3 <= len(progress) < 100 and progress[0].batchId == 0
        final = scrape(url)
        assert value(final, "weir_query_active", **labels) == 0
        assert value(final, "weir_query_batches_total", **labels) == len(progress) == last.batchId + 1
        assert value(final, "weir_query_batch_duration_seconds_count", **labels) == len(progress)
        assert value(final, "weir_query_input_rows_total", **labels) == sum(p.numInputRows for p in progress)
        assert value(final, "weir_query_output_rows_total", **labels) == sum(p.sink.numOutputRows for p in progress)
        assert value(final, "weir_query_last_batch_id", **labels) == last.batchId
        assert value(final, "weir_query_input_rows_per_second", **labels) == pytest.approx(last.inputRowsPerSecond)
        assert value(final, "weir_query_processed_rows_per_second", **labels) == pytest.approx(
            last.processedRowsPerSecond)
        assert value(final, "weir_query_batch_duration_seconds_sum", **labels) == pytest.approx(
            sum(p.batchDuration for p in progress) / 1000)
        op = last.stateOperators[0]
        assert value(final, "weir_query_state_rows", operator=op.operatorName, index="0", **labels) == op.numRowsTotal
        assert value(final, "weir_query_state_memory_bytes", operator=op.operatorName, index="0",
                     **labels) == op.memoryUsedBytes
        assert value(final, "weir_query_late_rows_dropped_total", **labels) == sum(
            o.numRowsDroppedByWatermark for p in progress for o in p.stateOperators)
        wm = datetime.datetime.fromisoformat(last.eventTime["watermark"].replace("Z", "+00:00")).timestamp()
        assert value(final, "weir_query_watermark_timestamp_seconds", **labels) == pytest.approx(wm)
        assert value(final, "weir_query_watermark_lag_seconds", **labels) >= 0
        # End-to-end latency: one observation per epoch that read rows, from its oldest event
        # time (the query has a watermark) to its commit, as sink.metrics reports it.
        read = [p for p in progress if p.numInputRows > 0]
        assert read and all(p.sink.metrics["endToEndLatencyFrom"] == "eventTime" for p in read)
        assert all("endToEndLatencyMs" not in p.sink.metrics for p in progress if p.numInputRows == 0)
        event_time = {"from": "event_time", **labels}
        assert value(final, "weir_query_end_to_end_latency_seconds_count", **event_time) == len(read)
        assert value(final, "weir_query_end_to_end_latency_seconds_sum", **event_time) == pytest.approx(
            sum(int(p.sink.metrics["endToEndLatencyMs"]) for p in read) / 1000)
        assert value(final, "weir_query_state_spill_bytes", operator=op.operatorName, index="0",
                     **labels) == op.customMetrics["spillBytes"] == 0
    finally:
        spark.stop()


def test_file_query_reports_files_outstanding_and_checkpoint_bytes(metrics_server, tmp_path):
    """A file source read one file per epoch reports the files it has left
    (sources[].metrics.numFilesOutstanding); each epoch's checkpoint bytes and latency (from
    the rows' arrival: no event time) are in sink.metrics and in the series."""
    server, url = metrics_server
    src = tmp_path / "in"
    src.mkdir()
    for i in range(3):
        (src / f"part-{i}.txt").write_text(f"line {i}\n")
    old = time.time() - 60
    for f in src.iterdir():
        os.utime(f, (old, old))
    spark = SparkSession.builder.remote(server.url).create()
    try:
        q = (spark.readStream.format("text").option("maxFilesPerTrigger", 1).load(str(src))
             .writeStream.format("memory").queryName("obs_files")
             .option("checkpointLocation", str(tmp_path / "cp")).trigger(processingTime="50 milliseconds").start())
        labels = {"name": "obs_files", "id": q.id}
        try:
            deadline = time.time() + 30
            while time.time() < deadline and sum(p.numInputRows for p in q.recentProgress) < 3:
                time.sleep(0.1)
        finally:
            q.stop()
        progress = q.recentProgress
        assert q.exception() is None and sum(p.numInputRows for p in progress) == 3
        outstanding = [int(p.sources[0].metrics["numFilesOutstanding"]) for p in progress]
        # The first listing found three files and logged one per epoch.
        assert outstanding[:3] == [2, 1, 0], outstanding
        final = scrape(url)
        assert value(final, "weir_query_source_files_outstanding", source="0", **labels) == outstanding[-1]
        written = [int(p.sink.metrics["checkpointBytesWritten"]) for p in progress]
        assert all(n > 0 for n in written)
        assert value(final, "weir_query_checkpoint_size_bytes_count", **labels) == len(progress)
        assert value(final, "weir_query_checkpoint_size_bytes_sum", **labels) == sum(written)
        read = [p for p in progress if p.numInputRows > 0]
        assert all(p.sink.metrics["endToEndLatencyFrom"] == "arrival" for p in read)
        assert value(final, "weir_query_end_to_end_latency_seconds_count", **{"from": "arrival"},
                     **labels) == len(read)
    finally:
        spark.stop()


def test_long_batch_query_reports_execution_progress(spark):
    """ExecutePlan sends ExecutionProgress while a batch query runs: PySpark's progress
    handlers see the stages, tasks and bytes, ending with every stage done."""
    calls = []

    def handler(stages, inflight_tasks, operation_id, done):
        calls.append((list(stages), inflight_tasks, operation_id, done))

    spark.conf.set("spark.connect.progress.reportInterval", "50ms")
    spark.registerProgressHandler(handler)
    try:
        started = time.time()
        n = 20_000_000
        rows = spark.range(0, n, 1, 4).groupBy((F.col("id") % 7).alias("k")).count().collect()
        took = time.time() - started
        assert sorted((r["k"], r["count"]) for r in rows) == [(k, len(range(k, n, 7))) for k in range(7)]
    finally:
        spark.removeProgressHandler(handler)
        spark.conf.unset("spark.connect.progress.reportInterval")
    reports = [c for c in calls if not c[3]]
    # One report per interval the query ran (at least two for a query of a few intervals), then
    # the last one with every stage done; the client's own final call has done=True.
    assert len(reports) >= 2, (took, calls)
    assert calls[-1][3] is True
    op_ids = {c[2] for c in reports}
    assert len(op_ids) == 1 and None not in op_ids
    first, last = reports[0], reports[-1]
    assert sum(s.num_tasks for s in first[0]) > 0 and first[1] > 0
    assert all(s.done and s.num_completed_tasks == s.num_tasks for s in last[0]) and last[1] == 0
    # The range scan's stage read something.
    assert sum(s.num_bytes_read for s in last[0]) > 0
    # A short query under the default interval (2s) sends none.
    calls.clear()
    spark.registerProgressHandler(handler)
    try:
        spark.range(10).collect()
    finally:
        spark.removeProgressHandler(handler)
    assert [c for c in calls if not c[3]] == []
