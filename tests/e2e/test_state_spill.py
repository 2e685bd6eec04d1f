"""Streaming deduplication whose state spills to disk past a tiny memory budget (exact rows, restart)."""
import os

import pytest
from pyspark.errors import IllegalArgumentException
from pyspark.sql import functions as F

BUDGET = "spark.sql.streaming.stateStore.weir.memoryBudgetBytes"
SPILL_DIR = "spark.sql.streaming.stateStore.weir.spillDir"
KEYS = 97
FILTER_BYTES = 2048


def dedup_query(spark, out, cp):
    df = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 10).option("numPartitions", 2).load()
          .select((F.col("value") % KEYS).alias("k"), "value").dropDuplicates(["k"]))
    return df.writeStream.format("parquet").option("checkpointLocation", cp).start(out)


def run_until(q, batch_id, spill=None):
    """Processes micro-batches until batch `batch_id` completed, stops the query and returns
    that batch's progress. With `spill` (the spill dir), checks the query's scratch stores are
    there while it runs."""
    try:
        for _ in range(200):
            q.processAllAvailable()
            if q.lastProgress is not None and q.lastProgress["batchId"] >= batch_id:
                break
        assert q.exception() is None
        if spill is not None:
            assert [d for d in os.listdir(spill) if d.startswith("weir-spill-")], "nothing spilled"
        return q.lastProgress
    finally:
        q.stop()


def test_drop_duplicates_spills_and_restarts(spark, tmp_path):
    out, cp, spill = str(tmp_path / "out"), str(tmp_path / "cp"), tmp_path / "spill"
    spark.conf.set(BUDGET, "1")
    spark.conf.set(SPILL_DIR, str(spill))
    try:
        # First run: a few micro-batches of 10 values each (0, 1, ...), every one a new key.
        progress = run_until(dedup_query(spark, out, cp), 2)
        first = 10 * (progress["batchId"] + 1)
        state = progress["stateOperators"][0]
        assert state["numRowsTotal"] == min(first, KEYS)
        # A one-byte budget keeps no keys in memory: every key is in the spill store, and the
        # memory used is each state store instance's filter of spilled key hashes (at its
        # smallest, 2 KiB).
        assert state["memoryUsedBytes"] == FILTER_BYTES * state["numStateStoreInstances"]
        # The scratch stores go with the query.
        assert not spill.exists() or os.listdir(spill) == []

        # Restart from the checkpoint: the keys restored (straight into the spill store) keep
        # values KEYS.. (keys 0.. again) out.
        progress = run_until(dedup_query(spark, out, cp), (KEYS + 20) // 10)
        assert 10 * (progress["batchId"] + 1) > KEYS + 10
        assert progress["stateOperators"][0]["numRowsTotal"] == KEYS
        state = progress["stateOperators"][0]
        assert state["memoryUsedBytes"] == FILTER_BYTES * state["numStateStoreInstances"]
        assert not spill.exists() or os.listdir(spill) == []
    finally:
        spark.conf.unset(BUDGET)
        spark.conf.unset(SPILL_DIR)
    rows = spark.read.parquet(out).orderBy("k").collect()
    assert [(r.k, r.value) for r in rows] == [(k, k) for k in range(KEYS)]


def assert_budget_must_be_a_number(spark, start):
    """A memory budget that is not a number is refused by spark.conf.set, as Spark's conf check
    does, and the query then starts with the budget it had (none)."""
    with pytest.raises(IllegalArgumentException) as e:
        spark.conf.set(BUDGET, "lots")
    assert f"{BUDGET} should be long, but was lots" in str(e.value)
    assert spark.conf.get(BUDGET, None) is None
    q = start()
    q.stop()


def test_drop_duplicates_budget_must_be_a_number(spark, tmp_path):
    assert_budget_must_be_a_number(spark, lambda: dedup_query(spark, str(tmp_path / "out"), str(tmp_path / "cp")))
