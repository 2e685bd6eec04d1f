"""Stream-stream joins with watermarks from stock PySpark (exact rows): outer and semi joins emit
their unmatched rows once the watermark passes them, the watermark of a side without one does not
hold the others back, and spark.sql.streaming.multipleWatermarkPolicy picks min or max."""
import datetime
import time

import pytest
from pyspark.sql import functions as F

from socket_lines import Lines

EPOCH = datetime.datetime(1970, 1, 1)


def secs(n):
    return EPOCH + datetime.timedelta(seconds=n)


@pytest.fixture(autouse=True)
def utc(spark):
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    yield
    spark.conf.unset("spark.sql.streaming.multipleWatermarkPolicy")


@pytest.fixture
def sides():
    left, right = Lines(), Lines()
    yield left, right
    left.close()
    right.close()


def stream(spark, srv, key, ts, delay=None):
    """(key int, ts timestamp) rows from lines "key,seconds"; withWatermark(ts, delay) if given."""
    parts = F.split(F.col("value"), ",")
    df = (spark.readStream.format("socket").option("host", "127.0.0.1").option("port", srv.port).load()
          .select(parts[0].cast("int").alias(key),
                  F.concat(F.lit("1970-01-01 "), parts[1]).cast("timestamp").alias(ts)))
    if delay is not None:
        df = df.withWatermark(ts, delay)
    return df


def hms(n):
    return secs(n).strftime("%H:%M:%S")


class Run:
    """A running join query fed step by step: each step sends rows to both sides and waits until
    the query read them all (processAllAvailable, as often as it takes)."""

    def __init__(self, df, name, left, right):
        self.q = df.writeStream.format("memory").queryName(name).outputMode("append").start()
        self.left, self.right, self.name = left, right, name
        self.sent = 0

    def step(self, left=(), right=()):
        self.left.send(*(f"{k},{hms(t)}" for k, t in left))
        self.right.send(*(f"{k},{hms(t)}" for k, t in right))
        self.sent += len(left) + len(right)
        deadline = time.time() + 30
        while time.time() < deadline:
            self.q.processAllAvailable()
            assert self.q.exception() is None, self.q.exception()
            if sum(p.numInputRows for p in self.q.recentProgress) >= self.sent:
                return
            time.sleep(0.05)
        raise AssertionError(f"{self.name}: the rows did not arrive")

    def stop(self):
        self.q.stop()

    def dropped(self):
        """Late rows the join dropped, from progress (stateOperators[].numRowsDroppedByWatermark)."""
        return sum(op.numRowsDroppedByWatermark for p in self.q.recentProgress for op in p.stateOperators)


def rows(spark, name, *cols):
    def val(v):
        return int((v - EPOCH).total_seconds()) if isinstance(v, datetime.datetime) else v
    got = [tuple(val(r[c]) for c in cols) for r in spark.table(name).collect()]
    return sorted(got, key=lambda t: tuple((v is None, v) for v in t))


RANGE = "k = rk AND lt BETWEEN rt - INTERVAL 5 SECONDS AND rt + INTERVAL 5 SECONDS"


def test_left_outer_join_emits_unmatched_left_rows_once_the_watermark_passes(spark, sides):
    left, right = sides
    l = stream(spark, left, "k", "lt", "5 seconds")
    r = stream(spark, right, "rk", "rt", "5 seconds")
    run = Run(l.join(r, F.expr(RANGE), "left_outer"), "sj_lo", left, right)
    try:
        # Watermark min(12, 14) - 5 = 7: a left row goes once lt + 5 <= watermark.
        run.step(left=[(1, 10), (2, 11), (3, 12)], right=[(1, 14), (9, 10)])
        assert rows(spark, "sj_lo", "k", "lt", "rk", "rt") == [(1, 10, 1, 14)]
        # Watermark 25: 2 and 3 can no longer match.
        run.step(left=[(4, 30)], right=[(5, 31)])
        assert rows(spark, "sj_lo", "k", "lt", "rk", "rt") == [
            (1, 10, 1, 14), (2, 11, None, None), (3, 12, None, None)]
        run.step(left=[(6, 50)], right=[(6, 52)])
    finally:
        run.stop()
    assert rows(spark, "sj_lo", "k", "lt", "rk", "rt") == [
        (1, 10, 1, 14), (2, 11, None, None), (3, 12, None, None), (4, 30, None, None), (6, 50, 6, 52)]


def test_right_outer_join(spark, sides):
    left, right = sides
    l = stream(spark, left, "k", "lt", "5 seconds")
    r = stream(spark, right, "rk", "rt", "5 seconds")
    run = Run(l.join(r, F.expr(RANGE), "right_outer"), "sj_ro", left, right)
    try:
        run.step(left=[(1, 10)], right=[(1, 12), (2, 13)])
        run.step(left=[(3, 40)], right=[(4, 41)])
        assert rows(spark, "sj_ro", "k", "lt", "rk", "rt") == [(1, 10, 1, 12), (None, None, 2, 13)]
        run.step(left=[(9, 60)], right=[(9, 61)])
    finally:
        run.stop()
    # Unmatched left rows (3) never come out of a right outer join.
    assert rows(spark, "sj_ro", "k", "lt", "rk", "rt") == [
        (1, 10, 1, 12), (9, 60, 9, 61), (None, None, 2, 13), (None, None, 4, 41)]


def test_full_outer_join(spark, sides):
    left, right = sides
    l = stream(spark, left, "k", "lt", "5 seconds")
    r = stream(spark, right, "rk", "rt", "5 seconds")
    run = Run(l.join(r, F.expr(RANGE), "full_outer"), "sj_fo", left, right)
    try:
        run.step(left=[(1, 10), (2, 11)], right=[(1, 12), (3, 13)])
        run.step(left=[(5, 40)], right=[(6, 41)])
        run.step(left=[(7, 70)], right=[(7, 71)])
    finally:
        run.stop()
    assert rows(spark, "sj_fo", "k", "lt", "rk", "rt") == [
        (1, 10, 1, 12), (2, 11, None, None), (5, 40, None, None), (7, 70, 7, 71),
        (None, None, 3, 13), (None, None, 6, 41)]


def test_left_semi_join(spark, sides):
    left, right = sides
    l = stream(spark, left, "k", "lt", "5 seconds")
    r = stream(spark, right, "rk", "rt", "5 seconds")
    run = Run(l.join(r, F.expr(RANGE), "left_semi"), "sj_ls", left, right)
    try:
        # Two right rows match left 1: it comes out once. Left 2 never matches.
        run.step(left=[(1, 10), (2, 11)], right=[(1, 12), (1, 13)])
        # A right row meets a left row kept in the state.
        run.step(left=[(5, 40)], right=[])
        run.step(left=[], right=[(5, 41), (1, 42)])
        run.step(left=[(8, 80)], right=[(8, 80)])
    finally:
        run.stop()
    assert rows(spark, "sj_ls", "k", "lt") == [(1, 10), (5, 40), (8, 80)]


def test_window_keys_with_the_watermark_on_one_side_only(spark, sides):
    # Equal event-time windows as a join key: the left side's watermark evicts both sides by
    # window, and the right side, which carries no watermark, does not hold it back.
    left, right = sides
    l = stream(spark, left, "k", "lt", "0 seconds").select("k", F.window("lt", "10 seconds").alias("w"))
    r = stream(spark, right, "rk", "rt").select("rk", F.window("rt", "10 seconds").alias("rw"))
    cond = (F.col("k") == F.col("rk")) & (F.col("w") == F.col("rw"))
    run = Run(l.join(r, cond, "left_outer"), "sj_one", left, right)
    try:
        run.step(left=[(1, 1), (2, 3)], right=[(1, 5)])
        assert rows(spark, "sj_one", "k", "rk") == [(1, 1)]
        # Watermark 25: window [0, 10) is closed; left 2 never matched.
        run.step(left=[(3, 25)], right=[(3, 26)])
        assert rows(spark, "sj_one", "k", "rk") == [(1, 1), (2, None), (3, 3)]
        run.step(left=[(4, 45)], right=[])
    finally:
        run.stop()
    got = spark.table("sj_one").select("k", "rk", F.col("w.start").alias("s")).collect()
    assert sorted((r.k, r.rk, int((r.s - EPOCH).total_seconds())) for r in got) == [
        (1, 1, 0), (2, None, 0), (3, 3, 20)]


def test_range_condition_with_the_watermark_on_the_right_only_keeps_left_rows(spark, sides):
    # Spark allows a left outer join with the watermark on the right only, but evicts a side's
    # rows only by that side's own watermark: unmatched left rows never come out, however far
    # the watermark goes (its guide: "optionally specify watermark on left for all state
    # cleanup"). Right rows at or below the watermark are late and dropped.
    left, right = sides
    l = stream(spark, left, "k", "lt")
    r = stream(spark, right, "rk", "rt", "5 seconds")
    run = Run(l.join(r, F.expr(RANGE), "left_outer"), "sj_right_wm", left, right)
    try:
        run.step(left=[(1, 10), (2, 11)], right=[(1, 12)])
        run.step(left=[(3, 100)], right=[(3, 101)])
        run.step(left=[], right=[(2, 12), (4, 200)])
        run.step(left=[(4, 199)], right=[])
    finally:
        run.stop()
    # Right 2 (12 s, late) was dropped, so left 2 never matched.
    assert rows(spark, "sj_right_wm", "k", "lt", "rk", "rt") == [(1, 10, 1, 12), (3, 100, 3, 101), (4, 199, 4, 200)]
    assert run.dropped() == 1
    state = run.q.lastProgress.stateOperators[0]
    assert state.numRowsTotal >= 4


@pytest.mark.parametrize("policy", ["min", "max"])
def test_multiple_watermark_policy(spark, sides, policy):
    spark.conf.set("spark.sql.streaming.multipleWatermarkPolicy", policy)
    left, right = sides
    l = stream(spark, left, "k", "lt", "5 seconds")
    r = stream(spark, right, "rk", "rt", "5 seconds")
    name = f"sj_policy_{policy}"
    run = Run(l.join(r, F.expr(RANGE), "left_outer"), name, left, right)
    try:
        run.step(left=[(1, 10)], right=[(1, 12)])
        # The left side runs ahead: the watermark is min(60, 12) - 5 = 7, or max = 55.
        run.step(left=[(3, 52), (2, 60)])
        # Right 50 is late under max only; right 58 is above both and matches left 2.
        run.step(right=[(3, 50), (2, 58)])
        run.step(right=[(9, 100)])
    finally:
        run.stop()
    got = rows(spark, name, "k", "lt", "rk", "rt")
    if policy == "min":
        assert got == [(1, 10, 1, 12), (2, 60, 2, 58), (3, 52, 3, 50)]
    else:
        # Right 50 was dropped; left 3 comes out alone once the watermark (95) passes 52 + 5.
        assert got == [(1, 10, 1, 12), (2, 60, 2, 58), (3, 52, None, None)]
    assert run.dropped() == (1 if policy == "max" else 0)
    # The last epoch's rows were judged against min(55, 53) or max(55, 53).
    assert run.q.lastProgress.eventTime["watermark"] == (
        "1970-01-01T00:00:53.000Z" if policy == "min" else "1970-01-01T00:00:55.000Z")


def test_unknown_watermark_policy_is_refused_at_set(spark):
    # As Spark's checkValue: refused when set, the previous policy stays.
    from pyspark.errors import IllegalArgumentException

    key = "spark.sql.streaming.multipleWatermarkPolicy"
    before = spark.conf.get(key)
    with pytest.raises(IllegalArgumentException) as e:
        spark.conf.set(key, "avg")
    assert "'avg' in spark.sql.streaming.multipleWatermarkPolicy is invalid" in str(e.value)
    assert spark.conf.get(key) == before
