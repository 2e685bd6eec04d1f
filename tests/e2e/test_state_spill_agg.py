"""A streaming groupBy count whose state spills to disk past a tiny memory budget: exact rows in
complete mode (memory sink), update mode (console sink) and append mode (windows closed by the
watermark, parquet sink), across restarts from the checkpoint."""
import datetime
import os
import re
import time

import pytest
from pyspark.errors import UnsupportedOperationException
from pyspark.sql import functions as F
from test_state_spill import BUDGET, SPILL_DIR, assert_budget_must_be_a_number, run_until

ROWS = 10  # rows per micro-batch
KEYS = 7
EPOCH = datetime.datetime(1970, 1, 1)


def counts(n, keys=KEYS):
    """value % keys → how many of the values 0..n-1 have it."""
    out = {}
    for v in range(n):
        out[v % keys] = out.get(v % keys, 0) + 1
    return out


def agg(spark, keys=KEYS):
    return (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", ROWS).option("numPartitions", 2).load()
            .groupBy((F.col("value") % keys).alias("k")).count())


def table_counts(spark):
    return {r.k: r["count"] for r in spark.sql("SELECT k, `count` FROM spill_agg_complete").collect()}


def spill_conf(spark, spill):
    spark.conf.set(BUDGET, "1")
    spark.conf.set(SPILL_DIR, str(spill))


def unset_conf(spark):
    spark.conf.unset(BUDGET)
    spark.conf.unset(SPILL_DIR)


def test_complete_mode_count_spills_and_restarts(spark, tmp_path):
    cp, spill = str(tmp_path / "cp"), tmp_path / "spill"
    spill_conf(spark, spill)
    try:
        def start():
            return (agg(spark).writeStream.format("memory").queryName("spill_agg_complete").outputMode("complete")
                    .option("checkpointLocation", cp).start())

        progress = run_until(start(), 3, spill)
        table = table_counts(spark)
        # The query may have completed a batch after the progress read: the table is whole
        # micro-batches, at least as many as the progress says.
        n = sum(table.values())
        assert n % ROWS == 0 and n >= ROWS * (progress["batchId"] + 1)
        assert table == counts(n)
        state = progress["stateOperators"][0]
        assert state["numRowsTotal"] == KEYS
        # The scratch stores go with the query.
        assert not spill.exists() or os.listdir(spill) == []

        # Restart from the checkpoint: the groups restored (spilled ones included) count on, and
        # the complete-mode table is whole again.
        before = n
        progress = run_until(start(), progress["batchId"] + 3, spill)
        table = table_counts(spark)
        n = sum(table.values())
        assert n % ROWS == 0 and n >= before + 2 * ROWS
        assert table == counts(n)
        assert progress["stateOperators"][0]["numRowsTotal"] == KEYS
        assert not spill.exists() or os.listdir(spill) == []
    finally:
        unset_conf(spark)


def console_batches(text):
    """Console-sink output → {batch id: sorted [(k, count)]}."""
    out = {}
    for m in re.finditer(r"-{43}\nBatch: (\d+)\n-{43}\n((?:[+|].*\n)*)", text):
        rows = []
        for line in m.group(2).splitlines()[3:-1]:
            k, c = (int(x) for x in line.strip("|").split("|"))
            rows.append((k, c))
        out[int(m.group(1))] = sorted(rows)
    return out


def wait_batches(server, start, last):
    """The console batches logged since offset `start`, once batch `last` is there."""
    deadline = time.time() + 20
    while True:
        batches = console_batches(server.log()[start:])
        if last in batches or time.time() > deadline:
            return batches
        time.sleep(0.1)


def test_update_mode_count_spills_and_restarts(spark, server, tmp_path):
    keys = 97  # more keys than one micro-batch touches
    cp, spill = str(tmp_path / "cp"), tmp_path / "spill"
    spill_conf(spark, spill)
    try:
        def start():
            return (agg(spark, keys).writeStream.format("console").outputMode("update").option("numRows", 1000)
                    .option("checkpointLocation", cp).start())

        def check(batches, first, last):
            # Update mode: each batch shows exactly the keys its rows touched, with their counts.
            for b in range(first, last + 1):
                touched = {v % keys for v in range(ROWS * b, ROWS * (b + 1))}
                total = counts(ROWS * (b + 1), keys)
                assert batches[b] == sorted((k, total[k]) for k in touched), f"batch {b}"

        offset = len(server.log())
        progress = run_until(start(), 12, spill)
        last = progress["batchId"]
        check(wait_batches(server, offset, last), 0, last)
        assert progress["stateOperators"][0]["numRowsTotal"] == min(keys, ROWS * (last + 1))
        assert not spill.exists() or os.listdir(spill) == []

        # Restart: the restored state (in the spill store) gives the next counts; nothing but the
        # keys the new batches touch is emitted again.
        offset = len(server.log())
        progress = run_until(start(), last + 3, spill)
        batches = wait_batches(server, offset, progress["batchId"])
        check(batches, min(batches), progress["batchId"])
        assert min(batches) >= last
        assert progress["stateOperators"][0]["numRowsTotal"] == min(keys, ROWS * (progress["batchId"] + 1))
        assert not spill.exists() or os.listdir(spill) == []
    finally:
        unset_conf(spark)


def test_append_mode_windowed_count_spills_and_restarts(spark, tmp_path):
    """Append mode: each (2-second window, k) group is written once, when the watermark closes
    it; the spilled groups come back through the store's event-time index, also after a restart."""
    out, cp, spill = str(tmp_path / "out"), str(tmp_path / "cp"), tmp_path / "spill"
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    spill_conf(spark, spill)
    try:
        def start():
            # Micro-batch b holds values 10b..10b+9, all stamped b seconds.
            df = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", ROWS).option("numPartitions", 2)
                  .option("startTimestamp", 0).option("advanceMillisPerBatch", 1000).load()
                  .withWatermark("timestamp", "1 second")
                  .groupBy(F.window("timestamp", "2 seconds"), (F.col("value") % 3).alias("k")).count())
            return (df.writeStream.format("parquet").outputMode("append").option("checkpointLocation", cp)
                    .start(out))

        def check():
            rows = sorted((int((r.window.start - EPOCH).total_seconds()), r.k, r["count"])
                          for r in spark.read.parquet(out).collect())
            windows = sorted({w for w, _, _ in rows})
            # Whole windows, each once, from the first on.
            assert windows == list(range(0, 2 * len(windows), 2))
            want = []
            for w in windows:
                c = {}
                for v in range(ROWS * w, ROWS * (w + 2)):
                    c[v % 3] = c.get(v % 3, 0) + 1
                want += [(w, k, n) for k, n in sorted(c.items())]
            assert rows == want
            return len(windows)

        run_until(start(), 8, spill)
        first = check()
        assert first >= 3
        assert not spill.exists() or os.listdir(spill) == []
        progress = run_until(start(), 20, spill)
        assert check() > first
        assert progress["stateOperators"][0]["numRowsTotal"] <= 2 * 3 * 2
        assert not spill.exists() or os.listdir(spill) == []
    finally:
        unset_conf(spark)
        spark.conf.unset("spark.sql.session.timeZone")


def test_aggregate_budget_must_be_a_number(spark, tmp_path):
    assert_budget_must_be_a_number(
        spark, lambda: agg(spark).writeStream.format("memory").queryName("spill_agg_bad").outputMode("complete").start())


def test_aggregate_that_cannot_spill_is_refused_at_start(spark, tmp_path):
    # approx_count_distinct keeps a sketch per group that Weir cannot move to the spill store:
    # with a budget the query is refused when it starts, not hours later when state outgrows it.
    spill_conf(spark, tmp_path / "spill")
    try:
        df = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", ROWS).load()
              .groupBy((F.col("value") % KEYS).alias("k")).agg(F.approx_count_distinct("value")))
        with pytest.raises(UnsupportedOperationException) as e:
            df.writeStream.format("memory").queryName("spill_agg_sketch").outputMode("complete").start()
        assert "spilling the streaming state of aggregate approx_count_distinct" in str(e.value)
        assert "UNSUPPORTED_FEATURE" in str(e.value)
    finally:
        unset_conf(spark)
    q = agg(spark).writeStream.format("memory").queryName("spill_agg_after").outputMode("complete").start()
    q.stop()
