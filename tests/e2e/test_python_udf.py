"""Python UDFs with stock PySpark against the real server: each kind runs on the server's pool of
PySpark workers (--python), and a stopped session leaves no worker behind."""
import json
import os
import time
from typing import Iterator

import pandas as pd
import pyarrow as pa
import pytest
from pyspark.errors import AnalysisException, PythonException
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.functions import pandas_udf, udf


def children(pid):
    """Pids of pid's child processes (by each process's parent in /proc/PID/stat)."""
    out = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            out.append(int(p))
    return out


def python_workers(server_pid):
    """The server's pyspark.daemon processes and the workers they forked."""
    out = []
    for pid in children(server_pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"pyspark.daemon" in cmd:
            out.append(pid)
            out.extend(children(pid))
    return sorted(out)


def test_arrow_udf(spark):
    @udf("long", useArrow=True)
    def plus_one(x):
        return x + 1

    df = spark.range(5).select(plus_one("id").alias("y"), F.col("id"))
    assert [(r.id, r.y) for r in df.orderBy("id").collect()] == [(i, i + 1) for i in range(5)]


def test_pandas_scalar_udf(spark):
    @pandas_udf("string")
    def label(a: pd.Series, b: pd.Series) -> pd.Series:
        return a.astype(str) + ":" + b

    df = spark.createDataFrame([(1, "a"), (2, "b"), (3, None)], "k INT, v STRING")
    rows = df.select("k", label("k", F.coalesce("v", F.lit("-"))).alias("l")).orderBy("k").collect()
    assert [(r.k, r.l) for r in rows] == [(1, "1:a"), (2, "2:b"), (3, "3:-")]


def test_pandas_scalar_iterator_udf(spark):
    @pandas_udf("double")
    def scaled(it: Iterator[pd.Series]) -> Iterator[pd.Series]:
        # state set up once per task, then applied to every batch
        factor = 2.5
        for s in it:
            yield s * factor

    rows = spark.range(0, 6, 1, 2).select(scaled("id").alias("s")).collect()
    assert sorted(r.s for r in rows) == [0.0, 2.5, 5.0, 7.5, 10.0, 12.5]


def test_chained_and_filtered_udfs(spark):
    @pandas_udf("long")
    def double(s: pd.Series) -> pd.Series:
        return s * 2

    @pandas_udf("long")
    def inc(s: pd.Series) -> pd.Series:
        return s + 1

    df = spark.range(6).where(double("id") > 4).select("id", inc(double("id")).alias("y"))
    assert sorted((r.id, r.y) for r in df.collect()) == [(3, 7), (4, 9), (5, 11)]

    # directly nested calls of one eval type run as one chained function on the worker
    @udf("string", useArrow=True)
    def wrap(s):
        return "<" + s + ">"

    rows = spark.range(2).select(F.col("id"), wrap(wrap(F.col("id").cast("string"))).alias("w")).orderBy("id").collect()
    assert [(r.id, r.w) for r in rows] == [(0, "<<0>>"), (1, "<<1>>")]


def test_grouped_agg_pandas_udf(spark):
    @pandas_udf("double")
    def mean_v(v: pd.Series) -> float:
        return float(v.mean())

    @pandas_udf("long")
    def count_v(v: pd.Series) -> int:
        return len(v)

    df = spark.createDataFrame([(1, 1.0), (1, 2.0), (2, 3.0), (2, 5.0), (2, 10.0), (3, 7.0)], "k INT, v DOUBLE")
    rows = df.groupBy("k").agg(mean_v("v").alias("m"), count_v(df.v).alias("n")).orderBy("k").collect()
    assert [(r.k, r.m, r.n) for r in rows] == [(1, 1.5, 2), (2, 6.0, 3), (3, 7.0, 1)]
    # without grouping: one row over everything
    [total] = df.agg(mean_v("v").alias("m")).collect()
    assert total.m == pytest.approx(28.0 / 6)
    # registered, in SQL, with HAVING
    spark.udf.register("mean_v", mean_v)
    df.createOrReplaceTempView("agg_udf_t")
    rows = spark.sql("SELECT k, mean_v(v) AS m FROM agg_udf_t GROUP BY k HAVING mean_v(v) > 2 ORDER BY k").collect()
    assert [tuple(r) for r in rows] == [(2, 6.0), (3, 7.0)]
    with pytest.raises(AnalysisException, match="The group aggregate pandas UDF `mean_v` cannot be invoked together with as other, non-pandas aggregate functions."):
        df.groupBy("k").agg(mean_v("v"), F.sum("v")).collect()


def test_map_in_pandas_sees_column_names(spark):
    def f(it):
        for pdf in it:
            yield pd.DataFrame({"id": pdf["id"], "name": pdf["name"].str.upper(), "cols": ",".join(pdf.columns)})

    df = spark.createDataFrame([(1, "a"), (2, "b"), (3, "c")], "id LONG, name STRING")
    rows = df.mapInPandas(f, "id LONG, name STRING, cols STRING").orderBy("id").collect()
    assert [tuple(r) for r in rows] == [(1, "A", "id,name"), (2, "B", "id,name"), (3, "C", "id,name")]


def test_map_in_arrow(spark):
    def f(it):
        for batch in it:
            t = pa.Table.from_batches([batch])
            doubled = pa.compute.multiply(t.column("x"), 2)
            yield pa.RecordBatch.from_arrays([t.column("x").combine_chunks(), doubled.combine_chunks()], names=["x", "x2"])

    df = spark.range(4).withColumnRenamed("id", "x")
    rows = df.mapInArrow(f, "x LONG, x2 LONG").orderBy("x").collect()
    assert [tuple(r) for r in rows] == [(0, 0), (1, 2), (2, 4), (3, 6)]


def test_apply_in_pandas(spark):
    def normalize(pdf: pd.DataFrame) -> pd.DataFrame:
        return pdf.assign(v=pdf.v - pdf.v.mean())

    df = spark.createDataFrame([(1, 1.0), (1, 3.0), (2, 5.0), (2, 6.0), (2, 10.0)], "id INT, v DOUBLE")
    rows = df.groupBy("id").applyInPandas(normalize, "id INT, v DOUBLE").orderBy("id", "v").collect()
    assert [tuple(r) for r in rows] == [(1, -1.0), (1, 1.0), (2, -2.0), (2, -1.0), (2, 3.0)]

    def with_key(key, pdf):
        return pd.DataFrame({"id": [key[0]], "n": [len(pdf)]})

    rows = df.groupBy("id").applyInPandas(with_key, "id INT, n LONG").orderBy("id").collect()
    assert [tuple(r) for r in rows] == [(1, 2), (2, 3)]


def test_cogroup_apply_in_pandas(spark):
    left = spark.createDataFrame([(1, 10), (1, 11), (2, 20), (4, 40)], "k INT, a INT")
    right = spark.createDataFrame([(1, "x"), (3, "z"), (2, "y"), (2, "yy")], "k INT, b STRING")

    def merge(l: pd.DataFrame, r: pd.DataFrame) -> pd.DataFrame:
        k = l.k.iloc[0] if len(l) else r.k.iloc[0]
        return pd.DataFrame({"k": [k], "na": [len(l)], "nb": [len(r)], "bs": [",".join(sorted(r.b))]})

    rows = (left.groupBy("k").cogroup(right.groupBy("k"))
            .applyInPandas(merge, "k INT, na LONG, nb LONG, bs STRING").orderBy("k").collect())
    assert [tuple(r) for r in rows] == [(1, 2, 1, "x"), (2, 1, 2, "y,yy"), (3, 0, 1, "z"), (4, 1, 0, "")]


def test_registered_udf_in_sql(spark):
    @pandas_udf("string")
    def shout(s: pd.Series) -> pd.Series:
        return s.str.upper() + "!"

    spark.udf.register("shout", shout)
    spark.createDataFrame([("hi",), ("yo",)], "w STRING").createOrReplaceTempView("words_udf")
    rows = spark.sql("SELECT w, SHOUT(w) AS s FROM words_udf WHERE shout(w) <> 'YO!' ").collect()
    assert [tuple(r) for r in rows] == [("hi", "HI!")]

    @udf("int", useArrow=True)
    def plus_ten(x):
        return x + 10

    spark.udf.register("plus_ten", plus_ten)
    assert spark.sql("SELECT plus_ten(5) AS v").collect()[0].v == 15


def test_udf_in_streaming_query(spark, tmp_path):
    src = tmp_path / "src"
    src.mkdir()

    def write(name, rows):
        tmp = src / f".{name}.tmp"
        tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
        os.rename(tmp, src / name)

    @pandas_udf("string")
    def tag(s: pd.Series) -> pd.Series:
        return "v" + s.astype(str)

    write("a.json", [{"k": 1}, {"k": 2}])
    stream = spark.readStream.format("json").schema("k INT").load(str(src))
    q = (stream.select("k", tag("k").alias("t")).writeStream.format("memory")
         .queryName("udf_stream_out").outputMode("append").start())
    try:
        q.processAllAvailable()
        write("b.json", [{"k": 3}])
        q.processAllAvailable()
    finally:
        q.stop()
    assert q.exception() is None
    rows = spark.sql("SELECT k, t FROM udf_stream_out ORDER BY k").collect()
    assert [tuple(r) for r in rows] == [(1, "v1"), (2, "v2"), (3, "v3")]


def test_raising_udf_is_python_exception(spark):
    @pandas_udf("long")
    def boom(s: pd.Series) -> pd.Series:
        raise ValueError("weir-udf-boom")

    with pytest.raises(PythonException) as e:
        spark.range(3).select(boom("id")).collect()
    msg = str(e.value)
    assert "ValueError: weir-udf-boom" in msg
    assert "Traceback" in msg
    assert "in boom" in msg
    # the session and its pool still work afterwards
    assert spark.range(2).select(F.col("id") + 1).count() == 2


def test_small_pool_session_and_its_workers(server):
    """A session whose pool has 2 workers: plans whose partitions can take turns run with more
    partitions than that, one whose partitions must all run at once runs alone; once stopped, the session's workers
    are gone."""
    before = python_workers(server.proc.pid)
    s = SparkSession.builder.remote(server.url).create()
    s.conf.set("spark.weir.python.maxWorkers", "2")
    s.conf.set("spark.sql.shuffle.partitions", "8")

    @pandas_udf("long")
    def inc(v: pd.Series) -> pd.Series:
        return v + 1

    @udf("long", useArrow=True)
    def neg(v):
        return -v

    # 8 independent partitions, one Python node: each waits its turn for one of 2 workers
    assert sorted(r[0] for r in s.range(0, 16, 1, 8).select(inc("id")).collect()) == list(range(1, 17))
    # applyInPandas on 8 shuffle partitions takes its workers at end of data
    rows = (s.range(0, 16, 1, 4).withColumn("k", F.col("id") % 5).groupBy("k")
            .applyInPandas(lambda pdf: pdf.head(1)[["k"]].assign(n=len(pdf)), "k LONG, n LONG").collect())
    assert sorted(tuple(r) for r in rows) == [(0, 4), (1, 3), (2, 3), (3, 3), (4, 3)]
    started = set(python_workers(server.proc.pid)) - set(before)
    assert started, "the session's UDFs ran on no worker of its own"
    # two Python nodes (of two eval types) in one pipeline over 4 partitions need 8 workers at
    # once: the plan runs alone with them
    assert sorted(r[0] for r in s.range(0, 16, 1, 4).select(inc(neg("id"))).collect()) == [1 - i for i in range(15, -1, -1)]

    s.stop()
    # ReleaseSession closes the session's pool: its daemon and workers are killed and reaped
    # (a reaped child has no /proc entry).
    deadline = time.time() + 10
    while any(os.path.exists(f"/proc/{p}") for p in started) and time.time() < deadline:
        time.sleep(0.05)
    assert [p for p in started if os.path.exists(f"/proc/{p}")] == []


def test_thirty_python_operators_past_the_worker_bound(server):
    """PySpark's test_mixed_udf shape: 30 Python operators × 2 partitions in one select need 60
    workers at once; at spark.weir.python.maxWorkers = 4 the plan runs alone with them, and the
    session keeps at most 4 workers afterwards (the bound holds again)."""
    s = SparkSession.builder.remote(server.url).create()
    before = set(python_workers(server.proc.pid))
    try:
        s.conf.set("spark.weir.python.maxWorkers", "4")

        @pandas_udf("long")
        def inc(v: pd.Series) -> pd.Series:
            return v + 1

        @udf("long")
        def dbl(v):
            return v * 2

        col = F.col("id")
        for i in range(30):  # alternating eval types: 30 Python nodes, none fused with the next
            col = inc(col) if i % 2 == 0 else dbl(col)
        want = []
        for x in range(6):
            for i in range(30):
                x = x + 1 if i % 2 == 0 else x * 2
            want.append(x)
        rows = s.range(0, 6, 1, 2).select(col.alias("v")).collect()
        assert sorted(r.v for r in rows) == want
        # and a plan within the bound still runs beside nothing
        assert s.range(0, 4, 1, 2).select(inc("id")).count() == 4
        deadline = time.time() + 10
        while time.time() < deadline:
            mine = set(python_workers(server.proc.pid)) - before
            if len(mine) <= 5:  # the daemon and at most 4 idle workers
                break
            time.sleep(0.05)
        assert len(mine) <= 5, f"{len(mine)} processes stay after the plan, bound 4 workers + daemon"
    finally:
        s.stop()


def test_java_udfs_cannot_be_loaded_as_spark_says(spark):
    """Weir has no JVM: every Java class is one Spark could not load, with Spark's error."""
    from pyspark.errors import AnalysisException

    for register, cls in ((spark.udf.registerJavaFunction, "com.example.Udf"),
                          (spark.udf.registerJavaUDAF, "com.example.Udaf")):
        with pytest.raises(AnalysisException) as e:
            register("f_" + cls.rsplit(".", 1)[1].lower(), cls)
        assert f"Can not load class {cls}, please make sure it is on the classpath." in str(e.value)


def test_two_scalar_iterator_pandas_udfs_in_one_select(spark):
    from typing import Iterator

    import pandas as pd
    from pyspark.sql.types import LongType

    @pandas_udf(LongType())
    def plus_one(it: Iterator[pd.Series]) -> Iterator[pd.Series]:
        for s in it:
            yield s + 1

    @pandas_udf(LongType())
    def times_ten(it: Iterator[pd.Series]) -> Iterator[pd.Series]:
        for s in it:
            yield s * 10

    rows = spark.range(4).select(plus_one("id").alias("p"), times_ten("id").alias("t")).collect()
    assert sorted((r.p, r.t) for r in rows) == [(1, 0), (2, 10), (3, 20), (4, 30)]
