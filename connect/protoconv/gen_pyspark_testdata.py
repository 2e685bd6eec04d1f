# Generates testdata/pyspark for protoconv's golden tests: real Spark Connect messages built
# by the PySpark client (pyspark-client 4.2.0 in /work/main/.venv), printed in protobuf text
# format. No server is needed: plans are built client-side and the config RPC is faked.
#
#   cd connect/protoconv && SPARK_CONNECT_MODE_ENABLED=1 ../../.venv/bin/python gen_pyspark_testdata.py
#   go test ./connect/protoconv -run TestGolden -rewrite   # then review the diff
import datetime
import decimal
import os

from google.protobuf import text_format

from pyspark.sql.connect.session import SparkSession
from pyspark.sql.connect.client import core
from pyspark.sql.connect import plan as P
from pyspark.sql.connect.column import Column
from pyspark.sql.connect.expressions import LiteralExpression
import pyspark.sql.connect.functions as F
from pyspark.sql.types import (
    ArrayType, BinaryType, BooleanType, ByteType, DateType, DayTimeIntervalType, DecimalType,
    DoubleType, FloatType, IntegerType, LongType, MapType, NullType, ShortType, StringType,
    StructField, StructType, TimestampNTZType, TimestampType,
)
from pyspark.sql.window import Window

CONF = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.session.localRelationCacheThreshold": str(1 << 30),
    "spark.sql.session.localRelationSizeLimit": str(1 << 30),
    "spark.sql.session.localRelationChunkSizeRows": str(1 << 30),
    "spark.sql.session.localRelationChunkSizeBytes": str(1 << 30),
    "spark.sql.session.localRelationBatchOfChunksSizeBytes": str(1 << 30),
    "spark.sql.execution.pandas.convertToArrowArraySafely": "false",
    "spark.sql.pyspark.inferNestedDictAsStruct.enabled": "false",
    "spark.sql.pyspark.legacy.inferArrayTypeFromFirstElement.enabled": "false",
    "spark.sql.pyspark.legacy.inferMapTypeFromFirstPair.enabled": "false",
    "spark.sql.timestampType": "TIMESTAMP_LTZ",
    "spark.sql.ansi.enabled": "true",
}


def fake_config(self, operation):
    kind = operation.WhichOneof("op_type")
    if kind == "get_with_default":
        pairs = [(p.key, CONF.get(p.key, p.value if p.HasField("value") else None))
                 for p in operation.get_with_default.pairs]
    elif kind in ("get", "get_option"):
        pairs = [(k, CONF.get(k)) for k in getattr(operation, kind).keys]
    else:
        pairs = []
    return core.ConfigResult(pairs, [])


def no_server(self, *args, **kwargs):
    raise RuntimeError("generator needs a server for this call")


core.SparkConnectClient.config = fake_config
core.SparkConnectClient._analyze = no_server
core.SparkConnectClient._execute_and_fetch = no_server

spark = SparkSession.builder.remote("sc://localhost:1").getOrCreate()
client = spark._client

cases = []  # (comment, command, message)


def rel(comment, df_or_plan):
    p = df_or_plan._plan if hasattr(df_or_plan, "_plan") else df_or_plan
    cases.append((comment, "relation", p.plan(client)))


def expr(comment, column):
    cases.append((comment, "expression", column.to_plan(client)))


def cmd(comment, command):
    cases.append((comment, "command", command))


def lit(value, dt):
    return Column(LiteralExpression(value, dt))


r = spark.range(10)

# Relations.
rel("spark.range(10)", r)
rel("spark.range(0, 10, 2, 3)", spark.range(0, 10, 2, 3))
rel("select and filter", spark.range(0, 10, 2).select(F.col("id"), (F.col("id") + 1).alias("x")).filter(F.col("id") > 3))
rel("where with string condition", r.where("id > 3"))
rel("limit and offset", r.limit(5).offset(2))
rel("tail", P.Tail(r._plan, 3))
rel("orderBy desc, asc_nulls_last", r.orderBy(F.col("id").desc(), F.col("id").asc_nulls_last()))
rel("sort by name", r.sort("id"))
rel("sortWithinPartitions", r.sortWithinPartitions(F.desc("id")))
g = r.withColumn("k", F.col("id") % 3)
rel("groupBy agg", g.groupBy("k").agg(F.count("*").alias("n"), F.sum("id")))
rel("global agg", r.agg(F.max("id")))
rel("count", r.groupBy().agg(F.count(F.lit(1)).alias("count")))
rel("rollup", g.rollup("k", "id").count())
rel("cube", g.cube("k").agg(F.avg("id")))
rel("pivot with values", g.groupBy("id").pivot("k", [0, 1, 2]).agg(F.sum("id")))
rel("pivot without values", g.groupBy("id").pivot("k").count())
rel("groupingSets", g.groupingSets([["k"], ["k", "id"], []], "k", "id").count())
rel("distinct", r.distinct())
rel("dropDuplicates subset", r.dropDuplicates(["id"]))
rel("dropDuplicatesWithinWatermark", r.dropDuplicatesWithinWatermark(["id"]))
r2 = spark.range(5)
rel("union", r.union(r2))
rel("unionByName allowMissingColumns", r.unionByName(r2, allowMissingColumns=True))
rel("intersect", r.intersect(r2))
rel("intersectAll", r.intersectAll(r2))
rel("subtract", r.subtract(r2))
rel("exceptAll", r.exceptAll(r2))
rel("join on condition", r.join(r2, r["id"] == r2["id"], "left"))
rel("join using", r.join(r2, "id", "outer"))
rel("join semi", r.join(r2, ["id"], "left_semi"))
rel("join anti", r.join(r2, ["id"], "anti"))
rel("crossJoin", r.crossJoin(r2))
rel("show", P.ShowString(r._plan, 20, 20, False))
rel("show vertical", P.ShowString(r._plan, 5, 0, True))
rel("toDF", r.toDF("a"))
rel("withColumn", r.withColumn("y", F.col("id") * 2))
rel("withColumns", r.withColumns({"a": F.lit(1), "b": F.lit("x")}))
rel("withColumnRenamed", r.withColumnRenamed("id", "x"))
rel("withColumnsRenamed", r.withColumnsRenamed({"id": "x", "x": "y"}))
rel("drop names", r.drop("id", "other"))
rel("drop column", r.drop(F.col("id")))
rel("alias", r.alias("t").select("t.id"))
rel("sample", r.sample(0.5, 42))
rel("sample with replacement", r.sample(True, 0.3, 7))
rel("hint", r.hint("broadcast"))
rel("to schema", r.to(StructType([StructField("id", LongType(), False)])))
rel("repartition n", r.repartition(4))
rel("coalesce", r.coalesce(2))
rel("repartition by column", r.repartition(3, "id"))
rel("repartition by column no n", r.repartition("id"))
rel("repartitionByRange", r.repartitionByRange(2, F.col("id")))
rel("withWatermark", spark.readStream.format("rate").load().withWatermark("timestamp", "10 seconds"))
rel("na.fill single", r.na.fill(0))
rel("na.fill dict", r.na.fill({"id": 1}))
rel("na.drop", r.na.drop(how="all"))
rel("dropna thresh", r.dropna(thresh=1, subset=["id"]))
rel("createDataFrame with schema", spark.createDataFrame([(1, "a"), (2, None)], StructType([StructField("a", IntegerType()), StructField("b", StringType())])))
rel("createDataFrame from rows with inferred schema", spark.createDataFrame([(1, 2.5, True, "x")], ["a", "b", "c", "d"]))
rel("createDataFrame empty with schema", spark.createDataFrame([], StructType([StructField("a", IntegerType()), StructField("b", ArrayType(StringType()))])))
rel("spark.sql relation", P.SQL("SELECT 1 AS one"))
rel("spark.sql named args", P.SQL("SELECT * FROM range(10) WHERE id > :lo", named_args={"lo": F.lit(3)}))
rel("spark.sql positional args", P.SQL("SELECT ? + ?", args=[F.lit(1), F.lit("x")]))
rel("spark.table", spark.table("db.`my.table`"))
rel("spark.read csv", spark.read.format("csv").option("header", "true").schema("a INT, b STRING").load("/tmp/x.csv"))
rel("spark.read.json", spark.read.json(["/tmp/a.json", "/tmp/b.json"]))
rel("spark.readStream rate", spark.readStream.format("rate").option("rowsPerSecond", "5").load())
rel("select star", r.select("*"))
rel("selectExpr", r.selectExpr("id + 1 AS x"))
rel("scalar subquery", r.select(F.col("id"), r2.select(F.max("id")).scalar().alias("m")))
rel("exists subquery", r.where(r2.where(F.col("id") == F.col("id").outer()).exists()))
rel("in subquery", r.where(F.col("id").isin(r2.select("id"))))

# Unsupported relations.
rel("sampleBy", r.sampleBy("id", {0: 0.5}))
rel("describe", r.describe())
rel("unpivot", r.withColumn("v", F.col("id")).unpivot("id", ["v"], "var", "val"))
rel("observe", r.observe("m", F.count(F.lit(1))))
rel("spark.sql with DataFrame argument", P.SQL("SELECT * FROM {df}", views=[P.SubqueryAlias(r._plan, "df")]))

# Expressions.
expr("lit(None)", F.lit(None))
expr("null int", lit(None, IntegerType()))
expr("lit(True)", F.lit(True))
expr("lit(1)", F.lit(1))
expr("lit(2**40)", F.lit(2 ** 40))
expr("byte", lit(7, ByteType()))
expr("short", lit(-300, ShortType()))
expr("lit(1.5)", F.lit(1.5))
expr("float", lit(0.25, FloatType()))
expr("lit('héllo')", F.lit("héllo"))
expr("lit(bytes)", F.lit(b"\x00\xffab"))
expr("lit(Decimal('12.345'))", F.lit(decimal.Decimal("12.345")))
expr("decimal(10,2)", lit(decimal.Decimal("-1.5"), DecimalType(10, 2)))
expr("lit(Decimal('1E+3'))", F.lit(decimal.Decimal("1E+3")))
expr("lit(date)", F.lit(datetime.date(2024, 2, 29)))
expr("lit(datetime)", F.lit(datetime.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc)))
expr("timestamp_ntz", lit(datetime.datetime(2024, 1, 2, 3, 4, 5), TimestampNTZType()))
expr("lit(timedelta)", F.lit(datetime.timedelta(days=1, seconds=2, microseconds=3)))
expr("lit([1, 2, 3])", F.lit([1, 2, 3]))
expr("lit([[1], [2, None]])", F.lit([[1], [2, None]]))
expr("array of strings typed", lit(["a", None], ArrayType(StringType())))
expr("empty array", lit([], ArrayType(DoubleType())))
expr("col('a')", F.col("a"))
expr("col('a.b')", F.col("a.b"))
expr("col('`a.b`.c')", F.col("`a.b`.c"))
expr("df['id']", r["id"])
expr("col('*')", F.col("*"))
expr("col('t.*')", F.col("t.*"))
expr("df['*']", r["*"])
expr("df.colRegex all", r.colRegex("`.*`"))
expr("df.colRegex name", r.colRegex("`id`"))
expr("df.colRegex alternation", r.colRegex("`(id|x)`"))
expr("metadataColumn", r.metadataColumn("_metadata"))
expr("arithmetic", (F.col("a") + 1) * F.col("b") - F.col("c") / 2 % 3)
expr("comparisons", (F.col("a") >= 1) & ~(F.col("b") != 2) | F.col("c").isNull())
expr("eqNullSafe", F.col("a").eqNullSafe(None))
expr("between", F.col("a").between(1, 5))
expr("isin", F.col("a").isin(1, 2, 3))
expr("like/rlike", F.col("s").like("a%") & F.col("s").rlike("^b"))
expr("when/otherwise", F.when(F.col("a") > 1, "big").when(F.col("a") < 0, "neg").otherwise("small"))
expr("count(*)", F.count("*"))
expr("countDistinct", F.countDistinct("a", "b"))
expr("sum_distinct", F.sum_distinct("a"))
expr("alias with metadata", F.col("a").alias("b", metadata={"comment": "x"}))
expr("multi-name alias", F.posexplode("arr").alias("pos", "val"))
expr("cast string type", F.col("a").cast("int"))
expr("cast DataType", F.col("a").cast(ArrayType(LongType())))
expr("try_cast", F.col("a").try_cast("bigint"))
expr("sort desc nulls first", F.col("a").desc_nulls_first())
expr("getField", F.col("s").getField("f"))
expr("getItem", F.col("arr").getItem(0))
expr("col['key']", F.col("m")["key"])
expr("transform lambda", F.transform("arr", lambda x: x + 1))
expr("aggregate lambda", F.aggregate("arr", F.lit(0), lambda acc, x: acc + x))
expr("map_filter lambda", F.map_filter("m", lambda k, v: k > v))
expr("row_number over", F.row_number().over(Window.partitionBy("a").orderBy("b")))
expr("sum over rows frame", F.sum("x").over(Window.partitionBy("a").orderBy(F.desc("b")).rowsBetween(Window.unboundedPreceding, Window.currentRow)))
expr("avg over range frame", F.avg("x").over(Window.orderBy("b").rangeBetween(-1, 1)))
expr("call_function", F.call_function("abs", F.col("a")))
expr("create_map", F.create_map(F.lit("k"), F.col("v")))
expr("struct", F.struct(F.col("a"), F.col("b").alias("c")))
expr("expr()", F.expr("a + 1"))
expr("withField", F.col("s").withField("f", F.lit(1)))
expr("udf", F.udf(lambda x: x, IntegerType())(F.col("a")))

# Commands.
cmd("spark.sql command", P.SQL("CREATE TEMP VIEW v AS SELECT 1").command(client))
cmd("spark.sql command with args", P.SQL("SELECT :x", named_args={"x": F.lit(5)}).command(client))
cmd("createOrReplaceTempView", P.CreateView(r._plan, "v", is_global=False, replace=True).command(client))
cmd("createGlobalTempView", P.CreateView(r._plan, "gv", is_global=True, replace=False).command(client))
w = r.write.format("parquet").mode("overwrite")
wop = P.WriteOperation(r._plan)
wop.source = "parquet"
wop.path = "/tmp/out"
wop.mode = "overwrite"
cmd("df.write.parquet", wop.command(client))

# Streaming writes: DataStreamWriter builds WriteStreamOperationStart and sends it with
# execute_command, which is captured here instead.
class Captured(Exception):
    pass


def capture_command(self, command, *args, **kwargs):
    raise Captured(command)


core.SparkConnectClient.execute_command = capture_command


def stream_cmd(comment, start):
    try:
        start()
    except Captured as c:
        command = c.args[0]
        for f in ("foreach_writer", "foreach_batch"):
            w = command.write_stream_operation_start
            if w.HasField(f):
                # cloudpickle output varies between runs; only its presence matters.
                getattr(w, f).python_function.command = b"pickled"
        cmd(comment, command)
        return
    raise RuntimeError("writeStream did not send a command")


rate = spark.readStream.format("rate").option("rowsPerSecond", "5").load()
stream_cmd("writeStream memory with queryName", lambda: rate.writeStream.format("memory").queryName("q1").start())
stream_cmd("writeStream console complete processingTime", lambda: rate.groupBy("value").count().writeStream
           .format("console").outputMode("complete").option("truncate", False).trigger(processingTime=" 2 seconds ").start())
stream_cmd("writeStream availableNow with checkpoint", lambda: rate.writeStream.format("noop")
           .option("checkpointLocation", "/tmp/ck").trigger(availableNow=True).start())
stream_cmd("writeStream once", lambda: rate.writeStream.format("noop").trigger(once=True).start())
stream_cmd("writeStream continuous", lambda: rate.writeStream.format("console").trigger(continuous="1 second").start())
stream_cmd("writeStream start(path) partitionBy", lambda: rate.writeStream.partitionBy("value")
           .start("/tmp/out", format="parquet", outputMode="append"))
stream_cmd("writeStream toTable", lambda: rate.writeStream.toTable("t1"))
stream_cmd("writeStream clusterBy", lambda: rate.writeStream.clusterBy("value").toTable("t2"))
stream_cmd("writeStream foreachBatch", lambda: rate.writeStream.foreachBatch(lambda df, i: None).start())
stream_cmd("writeStream foreach", lambda: rate.writeStream.foreach(lambda row: None).start())
stream_cmd("writeStream realTime trigger", lambda: rate.writeStream.format("console").outputMode("update").trigger(realTime="5 minutes").start())
rel("readStream.table", spark.readStream.table("events"))


def strip_origins(msg):
    """Drops expression origins (Python call sites): noise for these tests."""
    if msg.DESCRIPTOR.full_name == "spark.connect.Expression" and msg.HasField("common"):
        msg.ClearField("common")
    for field, value in msg.ListFields():
        if field.message_type is None:
            continue
        if field.is_repeated:
            if field.message_type.GetOptions().map_entry:
                if field.message_type.fields_by_name["value"].message_type is not None:
                    for v in value.values():
                        strip_origins(v)
            else:
                for v in value:
                    strip_origins(v)
        else:
            strip_origins(value)


# Data types: PySpark's own proto conversion and JSON.
from pyspark.sql.connect.types import pyspark_types_to_proto_types
from pyspark.sql.types import CharType, VarcharType, YearMonthIntervalType

all_types = [
    NullType(), BooleanType(), ByteType(), ShortType(), IntegerType(), LongType(), FloatType(),
    DoubleType(), DecimalType(), DecimalType(38, 18), StringType(), CharType(3), VarcharType(5),
    BinaryType(), DateType(), TimestampType(), TimestampNTZType(), DayTimeIntervalType(),
    DayTimeIntervalType(1, 2), DayTimeIntervalType(3, 3), YearMonthIntervalType(),
    YearMonthIntervalType(1, 1), ArrayType(IntegerType()), ArrayType(StringType(), False),
    MapType(StringType(), ArrayType(DoubleType()), False),
    StructType([
        StructField("a", IntegerType(), False),
        StructField("b", StructType([StructField("c", DateType())]), True, {"comment": "nested"}),
        StructField("weird `name`.x", MapType(IntegerType(), StringType())),
    ]),
]
for t in all_types:
    cases.append((f"{t!r}", "datatype", pyspark_types_to_proto_types(t)))
json_cases = []
for t in all_types:
    json_cases.append((f"{t!r}", StructType([StructField("f", t)]).json()))


out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata", "pyspark")
with open(out, "w") as f:
    f.write("# Generated by gen_pyspark_testdata.py from PySpark's own plan builders (pyspark-client 4.2.0).\n")
    f.write("# Inputs are protobuf text; outputs are protoconv's translation (rewrite with -rewrite).\n\n")
    for comment, command, msg in cases:
        strip_origins(msg)
        text = text_format.MessageToString(msg, as_utf8=False).rstrip("\n")
        f.write(f"# {comment}\n{command}\n{text}\n----\n\n")
    for comment, js in json_cases:
        f.write(f"# {comment}\njson-type\n{js}\n----\n\n")
print(f"wrote {len(cases) + len(json_cases)} cases to {out}")
