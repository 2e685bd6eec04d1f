"""A stream-stream full outer join whose state spills to disk past a tiny memory budget: two
rate-micro-batch streams joined on a key and a time range with watermarks give exact rows,
null-padded outer rows included, across restarts from the checkpoint."""
import datetime
import os

import pytest
from pyspark.sql import functions as F

from test_state_spill import BUDGET, FILTER_BYTES, SPILL_DIR, assert_budget_must_be_a_number

ROWS = 10  # rows per micro-batch on each side
EPOCH = datetime.datetime(1970, 1, 1)


@pytest.fixture(autouse=True)
def utc(spark):
    spark.conf.set("spark.sql.session.timeZone", "UTC")


def side(spark, value, ts):
    """Micro-batch b holds values 10b..10b+9, all stamped b seconds."""
    return (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", ROWS).option("numPartitions", 2)
            .option("startTimestamp", 0).option("advanceMillisPerBatch", 1000).load()
            .withWatermark("timestamp", "2 seconds")
            .select(F.col("value").alias(value), F.col("timestamp").alias(ts)))


def join_query(spark, out, cp):
    # Left row v meets right row v + 10 (one micro-batch, one second later), but right rows
    # whose value is a multiple of 3 are filtered out: their left rows never match. Right rows
    # of the first micro-batch have no left row.
    left = side(spark, "lv", "lt")
    right = side(spark, "rv", "rt").where(F.col("rv") % 3 != 0)
    cond = F.expr("lv + 10 = rv AND lt BETWEEN rt - INTERVAL 2 SECONDS AND rt + INTERVAL 2 SECONDS")
    return (left.join(right, cond, "full_outer").writeStream.format("parquet")
            .option("checkpointLocation", cp).trigger(availableNow=True).start(out))


def run_once(spark, out, cp):
    """Runs the query until it has nothing more available; returns its last progress."""
    q = join_query(spark, out, cp)
    try:
        assert q.awaitTermination(120), "query did not finish"
        assert q.exception() is None
        return q.lastProgress
    finally:
        q.stop()


def secs(t):
    return int((t - EPOCH).total_seconds()) if t is not None else None


def expected(batches, watermark):
    """The join's rows after micro-batches 0..batches-1 with the final eviction watermark (s)."""
    rows = []
    for v in range(ROWS * batches):
        b = v // ROWS
        partner = v + ROWS
        if partner % 3 != 0 and partner // ROWS < batches:
            rows.append((v, b, partner, b + 1))
        elif b + 2 <= watermark:  # never matched and evicted: left row padded with NULLs
            rows.append((v, b, None, None))
    for v in range(ROWS * batches):
        b = v // ROWS
        if v % 3 != 0 and v < ROWS and b + 2 <= watermark:  # right rows of micro-batch 0: no left row
            rows.append((None, None, v, b))
    return sorted(rows, key=lambda t: tuple((x is None, x) for x in t))


def collect(spark, out):
    return sorted([(r.lv, secs(r.lt), r.rv, secs(r.rt)) for r in spark.read.parquet(out).collect()],
                  key=lambda t: tuple((x is None, x) for x in t))


def run_batches(spark, out, cp, batches, spill=None):
    """Runs the query `batches` times from its checkpoint (one micro-batch each: the rate source
    has no Trigger.AvailableNow target, so each run is one micro-batch); returns the last
    progress."""
    for run in range(batches):
        progress = run_once(spark, out, cp)
        assert progress["batchId"] == run
        if spill is not None:
            # The scratch stores go with the query.
            assert not spill.exists() or os.listdir(spill) == []
    return progress


@pytest.mark.parametrize("budget", [1, 3000])
def test_full_outer_join_spills_and_restarts(spark, tmp_path, budget):
    batches = 8
    out, cp, spill = str(tmp_path / "out"), str(tmp_path / "cp"), tmp_path / "spill"
    spark.conf.set(BUDGET, str(budget))
    spark.conf.set(SPILL_DIR, str(spill))
    try:
        progress = run_batches(spark, out, cp, batches, spill)
    finally:
        spark.conf.unset(BUDGET)
        spark.conf.unset(SPILL_DIR)
    state = progress["stateOperators"][0]
    assert state["numRowsTotal"] > 0
    if budget == 1:
        # A one-byte budget keeps no rows in memory: every row of both sides is in their spill
        # stores, and the memory used is each side's filter of spilled key hashes (2 KiB at its
        # smallest) in every state store instance.
        assert state["memoryUsedBytes"] == 2 * FILTER_BYTES * state["numStateStoreInstances"]
    else:
        # The newest rows stay in memory, the oldest spill (the left side of every instance
        # holds more than half the budget's worth): the memory used is at least one filter and
        # at most the budget (each side keeps at most half in rows) plus two filters.
        instances = state["numStateStoreInstances"]
        assert FILTER_BYTES * instances < state["memoryUsedBytes"] <= (budget + 2 * FILTER_BYTES) * instances
    # The last micro-batch's rows (stamped batches - 1 s) move the watermark to 2 s below them;
    # rows that can no longer match by then have left the state, unmatched ones padded.
    got = collect(spark, out)
    assert got == expected(batches, batches - 1 - 2)

    # The same query without a budget gives the same rows.
    plain_out, plain_cp = str(tmp_path / "plain"), str(tmp_path / "plain_cp")
    plain = run_batches(spark, plain_out, plain_cp, batches)
    assert collect(spark, plain_out) == got
    assert plain["stateOperators"][0]["numRowsTotal"] == state["numRowsTotal"]


def test_join_budget_must_be_a_number(spark, tmp_path):
    assert_budget_must_be_a_number(spark, lambda: join_query(spark, str(tmp_path / "out"), str(tmp_path / "cp")))
