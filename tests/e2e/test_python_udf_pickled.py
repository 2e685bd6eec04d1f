"""Stock PySpark @udf without Arrow (SQL_BATCHED_UDF): rows are pickled to the server's Python
workers and the pickled results read back with Spark's makeFromJava rules."""
import datetime
import decimal
import json
import os

import pytest
from pyspark.errors import PythonException
from pyspark.sql import Row
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)


def test_return_types(spark):
    df = spark.range(3)
    cases = [
        (LongType(), lambda i: i * 10, [0, 10, 20]),
        (IntegerType(), lambda i: i - 1, [-1, 0, 1]),
        (DoubleType(), lambda i: i / 4, [0.0, 0.25, 0.5]),
        (StringType(), lambda i: "é" * i, ["", "é", "éé"]),
        (BooleanType(), lambda i: i % 2 == 1, [False, True, False]),
        (BinaryType(), lambda i: bytes([i, 255]), [bytearray([0, 255]), bytearray([1, 255]), bytearray([2, 255])]),
        (DecimalType(5, 2), lambda i: decimal.Decimal(i) / 8, [decimal.Decimal("0.00"), decimal.Decimal("0.13"), decimal.Decimal("0.25")]),
        (DateType(), lambda i: datetime.date(2024, 2, 28) + datetime.timedelta(days=i),
         [datetime.date(2024, 2, 28), datetime.date(2024, 2, 29), datetime.date(2024, 3, 1)]),
        (ArrayType(LongType()), lambda i: list(range(i)), [[], [0], [0, 1]]),
        (MapType(StringType(), LongType()), lambda i: {"k": i}, [{"k": 0}, {"k": 1}, {"k": 2}]),
        (StructType([StructField("a", LongType()), StructField("b", StringType())]),
         lambda i: (i, str(i)), [Row(a=0, b="0"), Row(a=1, b="1"), Row(a=2, b="2")]),
    ]
    for rt, fn, want in cases:
        got = [r[0] for r in df.select(F.udf(fn, rt)("id")).collect()]
        assert got == want, f"{rt}: {got}"


def test_argument_types_and_timestamps(spark):
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    df = spark.sql(
        "SELECT DATE'2020-01-02' AS d, TIMESTAMP'2020-01-02 03:04:05.678' AS t, "
        "CAST(1.5 AS DECIMAL(3,1)) AS m, array(1, 2) AS a, named_struct('x', 1) AS s, CAST(NULL AS STRING) AS n, X'0102' AS b"
    )
    kinds = F.udf(lambda *a: ",".join(type(x).__name__ for x in a), StringType())
    # A binary argument is a bytearray: the pickled path (an Arrow-batched UDF would get bytes).
    assert kinds.evalType == 100
    assert df.select(kinds("d", "t", "m", "a", "s", "n", "b")).first()[0] == "date,datetime,Decimal,list,Row,NoneType,bytearray"
    shift = F.udf(lambda t: t + datetime.timedelta(hours=1), TimestampType())
    assert df.select(F.date_format(shift("t"), "yyyy-MM-dd HH:mm:ss.SSS")).first()[0] == "2020-01-02 04:04:05.678"


def test_none_and_wrong_typed_results_are_null(spark):
    df = spark.createDataFrame([(1, "a"), (None, "b"), (3, None)], "n INT, s STRING")
    maybe = F.udf(lambda n: None if n is None or n == 3 else n + 1, LongType())
    text_for_long = F.udf(lambda n: "not a number", LongType())
    int_for_double = F.udf(lambda n: 1, DoubleType())
    float_for_int = F.udf(lambda n: 1.5, IntegerType())
    int_for_string = F.udf(lambda n: n, StringType())  # Java's toString of the int
    rows = df.select(maybe("n"), text_for_long("n"), int_for_double("n"), float_for_int("n"), int_for_string("n")).collect()
    assert [tuple(r) for r in rows] == [
        (2, None, None, None, "1"),
        (None, None, None, None, None),
        (None, None, None, None, "3"),
    ]


def test_order_and_many_rows(spark):
    n = 2500  # several 100-row pickles, several batches
    df = spark.range(n).repartition(3)
    sq = F.udf(lambda i: i * i, LongType())
    rows = df.select("id", sq("id").alias("sq")).collect()
    assert len(rows) == n and all(r.sq == r.id * r.id for r in rows)


def test_udf_in_filter_and_nested_calls(spark):
    inc = F.udf(lambda i: i + 1, LongType())
    even = F.udf(lambda i: i % 2 == 0, BooleanType())
    rows = spark.range(6).where(even(inc("id"))).select(inc(inc("id")).alias("v")).collect()
    assert sorted(r.v for r in rows) == [3, 5, 7]


def test_registered_udf_in_sql(spark):
    spark.udf.register("py_twice", lambda s: s * 2, StringType())
    assert spark.sql("SELECT py_twice('ab') AS v").first().v == "abab"


def test_raising_udf_is_python_exception_with_traceback(spark):
    def explode(i):
        if i == 2:
            raise ValueError(f"bad row {i}")
        return i

    with pytest.raises(PythonException) as info:
        spark.range(4).select(F.udf(explode, LongType())("id")).collect()
    msg = str(info.value)
    assert "Traceback (most recent call last)" in msg
    assert "ValueError: bad row 2" in msg
    assert "in explode" in msg
    # The session goes on working after the failure.
    assert [r.v for r in spark.range(2).select(F.udf(lambda i: i + 1, LongType())("id").alias("v")).collect()] == [1, 2]


def test_udf_in_streaming_query(spark, tmp_path):
    src = tmp_path / "src"
    src.mkdir()

    def put(name, rows):
        tmp = src / f".{name}.tmp"
        tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
        os.rename(tmp, src / name)

    put("a.json", [{"k": 1, "s": "x"}, {"k": 2, "s": None}])
    label = F.udf(lambda k, s: None if s is None else f"{s}-{k * 100}", StringType())
    stream = spark.readStream.format("json").schema("k INT, s STRING").load(str(src))
    q = (stream.select("k", label("k", "s").alias("label")).writeStream
         .format("memory").queryName("pickled_udf_stream").start())
    try:
        q.processAllAvailable()
        put("b.json", [{"k": 3, "s": "y"}])
        q.processAllAvailable()
        rows = sorted(tuple(r) for r in spark.sql("SELECT * FROM pickled_udf_stream").collect())
    finally:
        q.stop()
    assert rows == [(1, "x-100"), (2, None), (3, "y-300")]
    assert q.exception() is None
