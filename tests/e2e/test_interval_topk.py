"""make_interval / try_make_interval (CALENDAR INTERVAL), the approx_top_k sketch functions and
python_worker_logs / measure through PySpark, with the answers Apache Spark 4.2's own Connect
server gives for the same DataFrames (compared side by side once; SQL-level cases are in
sql/expr/testdata/calendar_interval, sql/expr/agg_approx_top_k_sketch_test.go and
sql/expr/agg_measure_test.go)."""
import datetime

import pytest
from pyspark.errors import (AnalysisException, ArithmeticException, PySparkException, PySparkTypeError,
                             SparkRuntimeException)
from pyspark.sql import functions as F
from pyspark.sql.types import CalendarIntervalType, StructField, StructType

from conftest import session_of


def test_make_interval_schema_show_and_cast(spark):
    df = spark.range(1).select(F.make_interval(
        F.lit(1), F.lit(2), F.lit(3), F.lit(4), F.lit(5), F.lit(6), F.lit(7.5)).alias("i"))
    assert df.schema == StructType([StructField("i", CalendarIntervalType(), True)])
    assert df._show_string(truncate=False).splitlines()[3] == \
        "|1 years 2 months 25 days 5 hours 6 minutes 7.5 seconds|"
    # Spark's server sends the interval as Arrow month_day_nano, which PySpark cannot convert.
    with pytest.raises(PySparkTypeError) as e:
        df.collect()
    assert e.value.getCondition() == "UNSUPPORTED_DATA_TYPE_FOR_ARROW_CONVERSION"
    r = spark.range(1).select(F.make_interval(years=F.lit(1)).cast("string"), F.make_interval().cast("string"))
    assert r.columns == ["CAST(make_interval(1, 0, 0, 0, 0, 0, 0) AS STRING)",
                         "CAST(make_interval(0, 0, 0, 0, 0, 0, 0) AS STRING)"]
    assert tuple(r.first()) == ("1 years", "0 seconds")
    t = spark.sql("select typeof(make_interval(1)) a, cast(make_interval(-1, 13, 0, 0, 25, 61, 61.000001) as string) b")
    assert tuple(t.first()) == ("interval", "1 months 26 hours 2 minutes 1.000001 seconds")
    parsed = spark.range(1).select(F.lit("interval -1 week 1.5 seconds").cast("interval").cast("string"),
                                   F.lit("1.5 days").cast("interval").cast("string"))
    assert tuple(parsed.first()) == ("-7 days 1.5 seconds", None)


def test_calendar_interval_grouping_and_ordering(spark):
    df = spark.range(3).select(F.make_interval(F.col("id").cast("int")).alias("x"))
    assert sorted(r[0] for r in df.groupBy("x").count().select("count").collect()) == [1, 1, 1]
    assert spark.sql("select hash(make_interval(1, 2, 3, 4, 5, 6, 7.5))").first()[0] == -504672070
    for bad, fn in [(lambda: df.orderBy("x"), "sortorder"), (lambda: df.select(F.max("x")), "max"),
                    (lambda: df.where(F.col("x").isin(F.col("x"))), "in")]:
        with pytest.raises(AnalysisException) as e:
            bad().schema
        assert e.value.getCondition() == "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE"
        assert f"The `{fn}` does not support ordering on type \"INTERVAL\"" in str(e.value)


def test_calendar_interval_refused_where_spark_refuses_it(spark, tmp_path):
    df = spark.range(3).select("id", F.make_interval(F.col("id").cast("int")).alias("x"))
    for fmt in ("parquet", "json", "csv"):
        with pytest.raises(AnalysisException) as e:
            df.write.format(fmt).save(str(tmp_path / fmt))
        assert e.value.getCondition() == "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE"
    with pytest.raises(AnalysisException) as e:
        df.join(df, "x").schema
    assert e.value.getCondition() == "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE"
    from pyspark.sql.window import Window
    with pytest.raises(AnalysisException) as e:
        df.select(F.count("*").over(Window.partitionBy("x"))).schema
    assert e.value.getCondition() == "EXPRESSION_TYPE_IS_NOT_ORDERABLE"
    assert df.union(df).select("x").distinct().count() == 3


def test_try_make_interval_and_overflow(spark):
    df = spark.range(1).select(F.try_make_interval(F.lit(2147483647), F.lit(1)).alias("i"))
    assert df._show_string().splitlines()[3] == "|NULL|"
    with pytest.raises(ArithmeticException) as e:
        spark.sql("select cast(make_interval(2147483647, 1) as string)").collect()
    assert e.value.getCondition() == "ARITHMETIC_OVERFLOW"
    days = spark.sql("select cast(try_make_interval(0, 0, 0, 2147483647) as string)").first()[0]
    assert days == "2147483647 days"


def test_calendar_interval_arithmetic(spark):
    ts = F.lit("2024-01-31 10:00:00").cast("timestamp")
    r = spark.range(1).select((ts + F.make_interval(months=F.lit(1))).alias("t"))
    assert r.first().t == datetime.datetime(2024, 2, 29, 10, 0)
    q = spark.sql("select timestamp'2024-01-31 10:00:00' + make_interval(0,1,0,1,2,0,0.5) a, "
                  "date'2024-01-31' + make_interval(0,1,0,1,0,0,0) b, "
                  "timestamp_ntz'2024-01-31 10:00:00' - make_interval(0,1) c")
    assert tuple(q.first()) == (datetime.datetime(2024, 3, 1, 12, 0, 0, 500000), datetime.date(2024, 3, 1),
                                datetime.datetime(2023, 12, 31, 10, 0))
    with pytest.raises(Exception) as e:
        spark.sql("select date'2024-01-31' + make_interval(0,1,0,1,1,0,0)").collect()
    assert e.value.getCondition() == "INVALID_INTERVAL_WITH_MICROSECONDS_ADDITION"
    with pytest.raises(AnalysisException) as e:
        spark.sql("select make_interval(1) = make_interval(1)").schema
    assert e.value.getCondition() == "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE"


def test_approx_top_k_accumulate_combine_estimate(spark):
    # pyspark 4.2 has no wrappers: call_function sends the functions by name, as wrappers do.
    df = spark.createDataFrame([(1,), (1,), (2,), (3,), (3,), (3,), (None,)], "x int")
    acc = df.select(F.call_function("approx_top_k_accumulate", "x").alias("s"))
    assert acc.schema.simpleString() == \
        "struct<s:struct<sketch:binary,maxItemsTracked:int,itemDataType:int,itemDataTypeDDL:string>>"
    s = acc.first().s
    assert (s.sketch.hex(), s.maxItemsTracked, s.itemDataType, s.itemDataTypeDDL) == (
        "04010a0e030000000300000000000000060000000000000000000000000000000200000000000000030000000000000001"
        "000000000000000901000000090300000009020000000000000000000001", 10000, None, "item INT NOT NULL")
    est = acc.select(F.call_function("approx_top_k_estimate", "s", F.lit(3)).alias("t"))
    assert [(r.item, r["count"]) for r in est.first().t] == [(3, 3), (1, 2), (2, 1)]
    parts = [spark.createDataFrame([(v,) for v in vs], "x int").select(
        F.call_function("approx_top_k_accumulate", "x").alias("s")) for vs in ([1, 1, 2], [2, 2, 3])]
    comb = parts[0].union(parts[1]).select(F.call_function("approx_top_k_combine", "s").alias("c"))
    assert comb.columns == ["c"]
    c = comb.first().c
    assert c.sketch.hex().startswith("04010a15") and c.maxItemsTracked == 10000
    top = comb.select(F.call_function("approx_top_k_estimate", "c").alias("t")).first().t
    assert [(r.item, r["count"]) for r in top] == [(2, 3), (1, 2), (3, 1)]
    named = spark.range(1).select(F.call_function("approx_top_k_accumulate", "id"))
    assert named.columns == ["approx_top_k_accumulate(id, 10000)"]


def test_approx_top_k_sketch_errors(spark):
    sized = [spark.range(1).select(F.call_function("approx_top_k_accumulate", "id", F.lit(n)).alias("s"))
             for n in (100, 200)]
    with pytest.raises(SparkRuntimeException) as e:
        sized[0].union(sized[1]).select(F.call_function("approx_top_k_combine", "s")).collect()
    assert e.value.getCondition() == "APPROX_TOP_K_SKETCH_SIZE_NOT_MATCH"
    with pytest.raises(SparkRuntimeException) as e:
        sized[0].select(F.call_function("approx_top_k_estimate", "s", F.lit(0))).collect()
    assert e.value.getCondition() == "APPROX_TOP_K_NON_POSITIVE_ARG"
    with pytest.raises(AnalysisException) as e:
        spark.range(1).select(F.call_function("approx_top_k_estimate", F.lit(1))).schema
    assert e.value.getCondition() == "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"


def test_measure_outside_a_metric_view(spark):
    df = spark.range(3).select(F.call_function("measure", "id"))
    assert df.schema.simpleString() == "struct<measure(id):bigint>"
    with pytest.raises(PySparkException) as e:
        df.collect()
    assert e.value.getCondition() == "INTERNAL_ERROR"


@pytest.fixture
def own_session(server):
    yield from session_of(server)


def test_python_worker_logs(own_session):
    spark = own_session
    with pytest.raises(AnalysisException) as e:
        spark.tvf.python_worker_logs().collect()
    assert e.value.getCondition() == "FEATURE_NOT_ENABLED"
    with pytest.raises(AnalysisException) as e:
        spark.sql("select python_worker_logs()").collect()
    assert e.value.getCondition() == "NOT_A_SCALAR_FUNCTION"
    spark.conf.set("spark.sql.pyspark.worker.logging.enabled", "true")
    logs = spark.sql("select * from python_worker_logs()")
    assert logs.schema.simpleString() == (
        "struct<ts:timestamp,level:string,msg:string,context:map<string,string>,exception:struct<class:string,"
        "msg:string,stacktrace:array<struct<class:string,method:string,file:string,line:string>>>,logger:string>")
    assert logs.collect() == []
    # (Spark's server here has no pyarrow for Arrow-optimized UDFs: the comparison ran pickled.)
    spark.conf.set("spark.sql.execution.pythonUDF.arrow.enabled", "false")

    @F.udf("int")
    def logged(x):
        import logging
        logging.getLogger("mylog").warning("hello %s", x)
        print("printed", x)
        if x == 0:
            try:
                1 / 0
            except ZeroDivisionError:
                logging.getLogger("exc").exception("boom")
        return x + 1

    assert spark.range(1).select(logged("id")).collect()[0][0] == 1
    rows = spark.tvf.python_worker_logs().select(
        "level", "msg", "context", "logger", "exception.class", "exception.msg", F.col("ts").isNotNull()).collect()
    # Apache Spark 4.2's server gives these rows for the same UDF.
    assert [tuple(r) for r in rows] == [
        ("WARNING", "hello 0", {"func_name": "logged"}, "mylog", None, None, True),
        ("INFO", "printed", {"func_name": "logged"}, "stdout", None, None, True),
        ("INFO", "0", {"func_name": "logged"}, "stdout", None, None, True),
        ("ERROR", "boom", {"func_name": "logged"}, "exc", "ZeroDivisionError", "division by zero", True)]
    spark.conf.set("spark.sql.pyspark.worker.logging.enabled", "false")
    with pytest.raises(AnalysisException):
        spark.tvf.python_worker_logs().collect()
