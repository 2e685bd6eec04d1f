"""The TIME type and its functions through stock PySpark: off by default (UNSUPPORTED_TIME_TYPE, as
Spark 4.2), and with spark.sql.timeType.enabled the values Apache Spark 4.2's own Connect server
gives for the same queries (checked side by side)."""
import datetime
import decimal

import pytest
from pyspark.errors import AnalysisException, DateTimeException, IllegalArgumentException
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType, TimeType

TIME_CONF = "spark.sql.timeType.enabled"


@pytest.fixture
def time_on(spark):
    spark.conf.set(TIME_CONF, "true")
    yield spark
    spark.conf.unset(TIME_CONF)


def test_time_is_off_by_default(spark):
    assert spark.conf.get(TIME_CONF) == "false"
    for q in ["SELECT TIME'12:00'", "SELECT make_time(1, 2, 3)", "SELECT cast('1:00' AS TIME)",
              "SELECT time_to_micros('12:00')"]:
        with pytest.raises(AnalysisException) as e:
            spark.sql(q).collect()
        assert e.value.getCondition() == "UNSUPPORTED_TIME_TYPE", q
    with pytest.raises(AnalysisException) as e:
        spark.range(1).select(F.make_time(F.lit(1), F.lit(2), F.lit(3))).collect()
    assert e.value.getCondition() == "UNSUPPORTED_TIME_TYPE"
    # A TIME column no expression makes (a local relation) is refused too.
    with pytest.raises(AnalysisException) as e:
        spark.createDataFrame([(datetime.time(1, 2, 3),)], StructType([StructField("t", TimeType())])).collect()
    assert e.value.getCondition() == "UNSUPPORTED_TIME_TYPE"


def test_collect_time_column(time_on):
    df = time_on.sql("SELECT TIME'12:34:56.5' AS t, cast('1:2:3' AS TIME(3)) AS t3, "
                     "cast(TIME'12:34:56.987654' AS TIME(0)) AS t0, CAST(NULL AS TIME) AS n")
    assert df.schema == StructType([
        StructField("t", TimeType(6), False), StructField("t3", TimeType(3), True),
        StructField("t0", TimeType(0), False), StructField("n", TimeType(6), True)])
    assert tuple(df.collect()[0]) == (datetime.time(12, 34, 56, 500000), datetime.time(1, 2, 3),
                                      datetime.time(12, 34, 56), None)
    row = time_on.sql("SELECT typeof(TIME'12:00'), cast(TIME'12:34:56.5' AS STRING), "
                      "cast(TIME'12:34:56.5' AS INT), TIME'12:00' < TIME'13:00', hash(TIME'12:00')").collect()[0]
    assert tuple(row) == ("time(6)", "12:34:56.5", 45296, True, -1984942870)
    # A TIME literal from the client (Literal.Time) comes back as the same value.
    t = datetime.time(23, 59, 59, 999999)
    assert time_on.range(1).select(F.lit(t).alias("t")).collect()[0].t == t


def test_time_functions(time_on):
    df = time_on.range(1).select(
        F.make_time(F.lit(6), F.lit(30), F.lit(45.887)).alias("make"),
        F.time_from_micros(F.lit(52200500000)).alias("from_us"),
        F.time_from_millis(F.lit(52200500)).alias("from_ms"),
        F.time_from_seconds(F.lit(52200.5)).alias("from_s"),
        F.time_to_micros(F.lit(datetime.time(14, 30, 0, 500000))).alias("to_us"),
        F.time_to_millis(F.lit(datetime.time(23, 59, 59, 999900))).alias("to_ms"),
        F.time_to_seconds(F.lit(datetime.time(14, 30, 0, 500000))).alias("to_s"),
        F.time_trunc(F.lit("HOUR"), F.lit(datetime.time(9, 32, 5, 359000))).alias("trunc"),
        F.time_diff(F.lit("MINUTE"), F.lit(datetime.time(20, 30, 29)), F.lit(datetime.time(12, 0))).alias("diff"),
        F.to_time(F.lit("12.10.05"), F.lit("HH.mm.ss")).alias("to_time"),
        F.try_to_time(F.lit("foo")).alias("try_to_time"),
    )
    assert [f.dataType.simpleString() for f in df.schema.fields] == [
        "time(6)", "time(6)", "time(6)", "time(6)", "bigint", "bigint", "decimal(14,6)", "time(6)",
        "bigint", "time(6)", "time(6)"]
    assert tuple(df.collect()[0]) == (
        datetime.time(6, 30, 45, 887000), datetime.time(14, 30, 0, 500000), datetime.time(14, 30, 0, 500000),
        datetime.time(14, 30, 0, 500000), 52200500000, 86399999, decimal.Decimal("52200.500000"),
        datetime.time(9, 0), -510, datetime.time(12, 10, 5), None)
    names = time_on.sql("SELECT make_time(1, 2, 3), time_diff('HOUR', TIME'20:30:29', '12:00'), "
                        "current_time, current_time(3), try_to_time('1:00')").columns
    assert names == ["make_time(1, 2, 3)", "time_diff(HOUR, TIME '20:30:29', 12:00)", "current_time(6)",
                     "current_time(3)", "try_to_time(to_time(1:00))"]


def test_current_time_is_the_session_zone_time_of_day(time_on):
    before = datetime.datetime.now(datetime.timezone.utc)
    row = time_on.range(1).select(F.current_time().alias("t"), F.current_timestamp().alias("ts")).collect()[0]
    assert time_on.range(1).select(F.current_time()).schema.fields[0].dataType == TimeType(6)
    assert row.t is not None and abs((datetime.datetime.combine(before.date(), row.t) -
                                      before.replace(tzinfo=None)).total_seconds()) < 60


def test_time_errors(time_on):
    with pytest.raises(DateTimeException) as e:
        time_on.sql("SELECT make_time(24, 0, 0)").collect()
    assert e.value.getCondition() == "DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION"
    assert e.value.getMessageParameters() == {"rangeMessage": "Invalid value for HourOfDay (valid values 0 - 23): 24"}
    with pytest.raises(DateTimeException) as e:
        time_on.sql("SELECT time_from_micros(-1)").collect()
    assert e.value.getMessageParameters() == {"rangeMessage": "Invalid TIME value: must be between 00:00:00 and "
                                              "23:59:59.999999999, but got -1000 nanoseconds"}
    with pytest.raises(DateTimeException) as e:
        time_on.sql("SELECT to_time('abc')").collect()
    assert e.value.getCondition() == "CANNOT_PARSE_TIME"
    assert e.value.getMessageParameters() == {"input": "'abc'", "format": "'HH:mm:ss.SSSSSS'"}
    with pytest.raises(IllegalArgumentException) as e:
        time_on.sql("SELECT time_trunc('DAY', TIME'01:00')").collect()
    assert e.value.getCondition() == "INVALID_PARAMETER_VALUE.TIME_UNIT"
    with pytest.raises(AnalysisException) as e:
        time_on.sql("SELECT time_to_micros('14:30')").collect()
    assert e.value.getCondition() == "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"
    with pytest.raises(AnalysisException) as e:
        time_on.sql("SELECT cast(TIMESTAMP'2024-01-01 12:00:00' AS TIME)").collect()
    assert e.value.getCondition() == "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION"


def test_group_distinct_join_order_on_time(time_on):
    left = time_on.sql("SELECT cast(t AS TIME) AS t, v FROM VALUES ('12:00', 1), ('08:30:00.5', 2), "
                       "('12:00:00', 3), (NULL, 4) AS x(t, v)")
    grouped = left.groupBy("t").agg(F.sum("v").alias("s")).orderBy("t").collect()
    assert [tuple(r) for r in grouped] == [(None, 4), (datetime.time(8, 30, 0, 500000), 2), (datetime.time(12, 0), 4)]
    assert left.select("t").distinct().count() == 3
    right = time_on.sql("SELECT cast('12:00' AS TIME) AS t, 'noon' AS name")
    joined = left.join(right, "t").orderBy("v").collect()
    assert [(r.v, r.name) for r in joined] == [(1, "noon"), (3, "noon")]
    ordered = left.orderBy(F.col("t").desc_nulls_last()).collect()
    assert [r.v for r in ordered][:2] in ([1, 3], [3, 1]) and [r.v for r in ordered][2:] == [2, 4]


def test_create_dataframe_with_time(time_on):
    schema = StructType([StructField("t", TimeType(), True), StructField("n", LongType(), True)])
    df = time_on.createDataFrame([(datetime.time(1, 2, 3, 4000), 1), (None, 2)], schema)
    assert [tuple(r) for r in df.collect()] == [(datetime.time(1, 2, 3, 4000), 1), (None, 2)]
    assert df.select(F.time_to_micros("t")).collect()[0][0] == 3723004000


def test_time_arithmetic_and_fields(time_on):
    row = time_on.sql("SELECT TIME'12:34:56' - TIME'10:00', TIME'12:34:56' + INTERVAL '1' HOUR, "
                      "TIME'12:34:56' - INTERVAL '90' MINUTE, hour(TIME'12:34:56'), minute(TIME'12:34:56'), "
                      "second(TIME'12:34:56.5'), extract(SECOND FROM TIME'12:34:56.5')").collect()[0]
    assert tuple(row) == (datetime.timedelta(seconds=9296), datetime.time(13, 34, 56), datetime.time(11, 4, 56),
                          12, 34, 56, decimal.Decimal("56.500000"))
    with pytest.raises(Exception) as e:
        time_on.sql("SELECT TIME'23:34:56' + INTERVAL '1' HOUR").collect()
    assert e.value.getCondition() == "DATETIME_OVERFLOW"


@pytest.mark.parametrize("fmt", ["parquet", "csv", "json"])
def test_time_column_round_trips_through_files(time_on, tmp_path, fmt):
    df = time_on.sql("SELECT cast(t AS TIME) AS t, v FROM VALUES ('12:00', 1), ('08:30:00.5', 2), (NULL, 3) AS x(t, v)")
    path = str(tmp_path / fmt)
    df.write.format(fmt).save(path)
    back = [tuple(r) for r in time_on.read.format(fmt).load(path).collect()]
    want = {"parquet": [(None, 3), (datetime.time(8, 30, 0, 500000), 2), (datetime.time(12, 0), 1)],
            "csv": [(None, "3"), ("08:30:00.5", "2"), ("12:00:00", "1")],
            "json": [(None, 3), ("08:30:00.5", 2), ("12:00:00", 1)]}[fmt]
    assert sorted(back, key=str) == sorted(want, key=str)


def test_time_bucket(spark):
    # time_bucket buckets TIMESTAMP and TIMESTAMP_NTZ (not TIME): no conf needed.
    df = spark.range(1).select(
        F.time_bucket(F.expr("INTERVAL '15' MINUTE"), F.lit(datetime.datetime(2024, 1, 1, 11, 27))).alias("m"),
        F.time_bucket(F.expr("INTERVAL '1' MONTH"), F.expr("TIMESTAMP '2024-07-20 14:30:00'"),
                      F.expr("TIMESTAMP '2024-06-15 09:00:00'")).alias("mo"),
        F.time_bucket(F.expr("INTERVAL '1' DAY"), F.expr("TIMESTAMP_NTZ '2024-01-01 11:27:00'")).alias("ntz"))
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["timestamp", "timestamp", "timestamp_ntz"]
    assert tuple(df.collect()[0]) == (datetime.datetime(2024, 1, 1, 11, 15), datetime.datetime(2024, 7, 15, 9, 0),
                                      datetime.datetime(2024, 1, 1, 0, 0))
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT time_bucket(INTERVAL '0' MINUTE, TIMESTAMP '2024-01-01 11:27:00')").collect()
    assert e.value.getCondition() == "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE"
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT time_bucket(INTERVAL '1' DAY, DATE '2024-01-01')").collect()
    assert e.value.getCondition() == "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"


def test_streaming_aggregate_keyed_by_time(time_on, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.json").write_text("".join('{"v": %d}\n' % v for v in range(30)))
    df = time_on.readStream.schema("v INT").json(str(src))
    agg = df.select(F.time_from_seconds(F.col("v") % 3).alias("t")).groupBy("t").count()
    q = (agg.writeStream.outputMode("complete").format("memory").queryName("time_keys")
         .option("checkpointLocation", str(tmp_path / "cp")).trigger(availableNow=True).start())
    q.awaitTermination(60)
    rows = sorted(tuple(r) for r in time_on.sql("SELECT * FROM time_keys").collect())
    assert rows == [(datetime.time(0, 0), 10), (datetime.time(0, 0, 1), 10), (datetime.time(0, 0, 2), 10)]


def test_python_udf_over_time(time_on):
    # Python UDFs see datetime.time values and may return them (pickled as nanoseconds since
    # midnight, TimeType's internal form), with and without Arrow.
    df = time_on.sql("SELECT TIME'12:34:56.5' AS t")
    shown = F.udf(lambda t: repr(t), StringType())
    shifted = F.udf(lambda t: t.replace(hour=t.hour + 1), TimeType())
    arrow_shown = F.udf(lambda t: repr(t), StringType(), useArrow=True)
    row = df.select(shown("t"), shifted("t"), arrow_shown("t")).collect()[0]
    assert tuple(row) == ("datetime.time(12, 34, 56, 500000)", datetime.time(13, 34, 56, 500000),
                          "datetime.time(12, 34, 56, 500000)")
