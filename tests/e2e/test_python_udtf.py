"""Stock PySpark Python user-defined table functions (@udtf) on Weir's Python workers: a UDTF call
as a DataFrame and a registered UDTF in SQL FROM, pickled (SQL_TABLE_UDF) and Arrow
(SQL_ARROW_TABLE_UDF)."""
import datetime

import pytest
from pyspark.errors import AnalysisException, ParseException, PythonException
from pyspark.sql import Row
from pyspark.sql import functions as F
from pyspark.sql.functions import udtf


# The handler classes are made inside functions: cloudpickle pickles such a class by value (a
# module-level one by reference, which the server's workers could not import).
def squares_class():
    class Squares:
        """eval yields several rows per call; terminate one more (the number of calls)."""

        def __init__(self):
            self.calls = 0

        def eval(self, start: int, end: int):
            self.calls += 1
            for n in range(start, end + 1):
                yield n, n * n

        def terminate(self):
            yield -1, self.calls

    return Squares


def types_class():
    class Types:
        def eval(self, word: str):
            yield word, len(word), datetime.date(2024, 2, 29), 2.5, [1, 2]
            yield None, None, None, None, None

    return Types


def fails_class():
    class Fails:
        def eval(self, n: int):
            if n > 1:
                raise ValueError(f"too big: {n}")
            yield (n,)

    return Fails


@pytest.mark.parametrize("arrow", [False, True])
def test_udtf_dataframe(spark, arrow):
    sq = udtf(squares_class(), returnType="num: int, squared: int", useArrow=arrow)
    assert sq.evalType == (301 if arrow else 300)
    df = sq(F.lit(1), F.lit(3))
    assert df.columns == ["num", "squared"]
    assert df.collect() == [Row(num=1, squared=1), Row(num=2, squared=4), Row(num=3, squared=9),
                            Row(num=-1, squared=1)]
    # keyword arguments and expressions over constants
    assert sq(start=F.lit(2) + 1, end=F.lit(4)).collect() == [
        Row(num=3, squared=9), Row(num=4, squared=16), Row(num=-1, squared=1)]
    # a UDTF DataFrame composes with the rest of the API
    assert sq(F.lit(1), F.lit(10)).filter("num > 8").agg(F.sum("squared")).first()[0] == 181


@pytest.mark.parametrize("arrow", [False, True])
def test_udtf_types(spark, arrow):
    t = udtf(types_class(), returnType="w string, n int, d date, x double, a array<int>", useArrow=arrow)
    assert t(F.lit("héllo")).collect() == [
        Row(w="héllo", n=5, d=datetime.date(2024, 2, 29), x=2.5, a=[1, 2]),
        Row(w=None, n=None, d=None, x=None, a=None),
    ]


@pytest.mark.parametrize("arrow", [False, True])
def test_udtf_register_sql(spark, arrow):
    sq = udtf(squares_class(), returnType="num: int, squared: int", useArrow=arrow)
    spark.udtf.register("weir_squares", sq)
    got = spark.sql("SELECT * FROM weir_squares(2, 3)").collect()
    assert got == [Row(num=2, squared=4), Row(num=3, squared=9), Row(num=-1, squared=1)]
    got = spark.sql(
        "SELECT s.n + 100 AS m FROM WEIR_SQUARES(1, 1 + 1) AS s(n, sq) WHERE sq > 0 ORDER BY m").collect()
    assert got == [Row(m=99), Row(m=101), Row(m=102)]
    with pytest.raises(AnalysisException, match="ASSIGNMENT_ARITY_MISMATCH"):
        spark.sql("SELECT * FROM weir_squares(1, 2) AS s(a)").collect()


@pytest.mark.parametrize("arrow", [False, True])
def test_udtf_exception(spark, arrow):
    f = udtf(fails_class(), returnType="n int", useArrow=arrow)
    assert f(F.lit(1)).collect() == [Row(n=1)]
    with pytest.raises(PythonException) as e:
        f(F.lit(5)).collect()
    msg = str(e.value)
    assert "Traceback" in msg
    assert "ValueError: too big: 5" in msg


def test_udtf_refusals(spark):
    sq = udtf(squares_class(), returnType="num: int, squared: int")
    with pytest.raises(Exception, match="UNRESOLVED_COLUMN|cannot be resolved"):
        sq(F.col("id"), F.lit(1)).collect()


def stats_class():
    class Stats:
        """eval echoes its argument; terminate yields the count and sum of the partition's calls."""

        def __init__(self):
            self.count = 0
            self.total = 0

        def eval(self, x: int):
            self.count += 1
            self.total += x
            yield "input", float(x)

        def terminate(self):
            yield "count", float(self.count)
            yield "avg", self.total / self.count

    return Stats


def odd_class():
    class Odd:
        def eval(self, x: int):
            if x % 2:
                yield (x,)

    return Odd


@pytest.mark.parametrize("arrow", [False, True])
def test_udtf_lateral_join(spark, arrow):
    pairs = udtf(squares_class(), returnType="num: int, squared: int", useArrow=arrow)
    spark.udtf.register("weir_lat_squares", pairs)
    # per-row arguments from the outer relation; terminate's row follows the last input row
    got = spark.sql(
        "SELECT t.a, t.b, f.* FROM VALUES (1, 2), (5, 5) t(a, b), LATERAL weir_lat_squares(a, b) f"
    ).collect()
    assert got == [Row(a=1, b=2, num=1, squared=1), Row(a=1, b=2, num=2, squared=4),
                   Row(a=5, b=5, num=5, squared=25), Row(a=5, b=5, num=-1, squared=2)]
    # JOIN LATERAL with an alias, column names and an ON condition
    got = spark.sql(
        "SELECT id, n FROM range(0, 3) JOIN LATERAL weir_lat_squares(id, id + 1) AS s(n, sq) "
        "ON n > 0 ORDER BY id, n").collect()
    assert got == [Row(id=0, n=1), Row(id=1, n=1), Row(id=1, n=2), Row(id=2, n=2), Row(id=2, n=3)]
    # terminate runs once per partition of the outer relation (Spark's semantics)
    st = udtf(stats_class(), returnType="key: string, value: float", useArrow=arrow)
    spark.udtf.register("weir_lat_stats", st)
    got = spark.sql("SELECT id, key, value FROM range(0, 10, 1, 2), LATERAL weir_lat_stats(id) "
                    "WHERE key != 'input'").collect()
    assert sorted(got) == [Row(id=4, key="avg", value=2.0), Row(id=4, key="count", value=5.0),
                           Row(id=9, key="avg", value=7.0), Row(id=9, key="count", value=5.0)]
    # Spark 4.2 answers LEFT JOIN LATERAL without ON as the inner join
    odd = udtf(odd_class(), returnType="o: int", useArrow=arrow)
    spark.udtf.register("weir_lat_odd", odd)
    assert spark.sql("SELECT * FROM range(4) LEFT JOIN LATERAL weir_lat_odd(id)").collect() == [
        Row(id=1, o=1), Row(id=3, o=3)]
    with pytest.raises(Exception, match="LEFT JOIN LATERAL with an ON condition"):
        spark.sql("SELECT * FROM range(4) LEFT JOIN LATERAL weir_lat_odd(id) ON o > 1").collect()


def test_builtin_generator_lateral_join(spark):
    got = spark.sql("SELECT k, v FROM VALUES (1, array(10, 20)), (2, array()) t(k, arr), "
                    "LATERAL explode(arr) AS e(v)").collect()
    assert got == [Row(k=1, v=10), Row(k=1, v=20)]
    got = spark.sql("SELECT k, v FROM VALUES (1, array(10)), (2, array()) t(k, arr) "
                    "LEFT JOIN LATERAL explode(arr) AS e(v)").collect()
    assert got == [Row(k=1, v=10)]


@pytest.mark.parametrize("arrow", [False, True])
def test_udtf_dataframe_lateral_join(spark, arrow):
    odd = udtf(odd_class(), returnType="o: int", useArrow=arrow)
    df = spark.range(4)
    want = [Row(id=1, o=1), Row(id=3, o=3)]
    assert df.lateralJoin(odd(F.col("id").outer())).collect() == want
    assert df.lateralJoin(odd(F.col("id").outer()), how="cross").collect() == want
    # as Spark 4.2: a left lateral join without condition is the inner one
    assert df.lateralJoin(odd(F.col("id").outer()), how="left").collect() == want
    assert df.lateralJoin(odd(F.col("id").outer()), F.col("o") > 1).collect() == [Row(id=3, o=3)]
    got = df.alias("t").lateralJoin(odd(F.col("t.id").outer()).alias("f")).select("f.*").collect()
    assert got == [Row(o=1), Row(o=3)]
    pairs = udtf(squares_class(), returnType="num: int, squared: int", useArrow=arrow)
    t = spark.createDataFrame([(0, 1), (4, 4)], "a int, b int")
    assert t.lateralJoin(pairs(F.col("a").outer(), F.col("b").outer())).collect() == [
        Row(a=0, b=1, num=0, squared=0), Row(a=0, b=1, num=1, squared=1),
        Row(a=4, b=4, num=4, squared=16), Row(a=4, b=4, num=-1, squared=2)]
    with pytest.raises(Exception, match="left lateralJoin with a join condition"):
        df.lateralJoin(odd(F.col("id").outer()), F.col("o") > 1, how="left").collect()


def partition_sum_class():
    class PartitionSum:
        """Sums input per partition; eval must see the table's columns only, one partition's rows."""

        def __init__(self):
            self.total = 0
            self.key = None

        def eval(self, row):
            assert sorted(row.asDict()) == ["input", "k"], row
            if self.key is not None and self.key != row["k"]:
                raise ValueError(f"partition {self.key} met row {row}")
            self.key = row["k"]
            self.total += row["input"]

        def terminate(self):
            yield self.key, self.total

    return PartitionSum


def ordered_class():
    class Ordered:
        def __init__(self):
            self.seen = []

        def eval(self, row):
            self.seen.append(row["v"])

        def terminate(self):
            yield len(self.seen), ",".join(str(v) for v in self.seen)

    return Ordered


@pytest.mark.parametrize("arrow", [False, True])
def test_udtf_table_argument(spark, arrow):
    class Above:
        def eval(self, limit: int, row):
            if row["id"] > limit:
                yield (row["id"],)

    spark.udtf.register("weir_tbl_above", udtf(Above, returnType="a: int", useArrow=arrow))
    spark.range(8).createOrReplaceTempView("weir_tbl_v")
    for q in ["SELECT * FROM weir_tbl_above(5, TABLE(weir_tbl_v))",
              "SELECT * FROM weir_tbl_above(row => TABLE (SELECT id FROM range(0, 8)), limit => 5)",
              "WITH t AS (SELECT id FROM range(0, 8)) SELECT * FROM weir_tbl_above(5, TABLE(t))"]:
        assert sorted(spark.sql(q).collect()) == [Row(a=6), Row(a=7)], q
    # PARTITION BY: a handler per partitioning value, terminate at each boundary
    spark.udtf.register("weir_tbl_psum", udtf(partition_sum_class(), returnType="k: int, total: int",
                                              useArrow=arrow))
    t = ("WITH t AS (SELECT id % 5 AS k, 1 AS input FROM range(0, 20) UNION ALL "
         "SELECT id % 5 AS k, 2 AS input FROM range(0, 20)) ")
    want = [Row(k=k, total=12) for k in range(5)]
    for arg in ["TABLE(t) PARTITION BY k", "TABLE(t) PARTITION BY k + 1 ORDER BY input DESC",
                "TABLE(t) DISTRIBUTE BY (k) SORT BY (input, k)"]:
        got = spark.sql(t + f"SELECT * FROM weir_tbl_psum({arg}) ORDER BY k").collect()
        assert got == want, arg
    # WITH SINGLE PARTITION ... ORDER BY: one handler sees every row, in order
    spark.udtf.register("weir_tbl_ord", udtf(ordered_class(), returnType="n: int, vs: string",
                                             useArrow=arrow))
    got = spark.sql("SELECT * FROM weir_tbl_ord(TABLE(SELECT id % 7 AS v FROM range(0, 14, 1, 3)) "
                    "WITH SINGLE PARTITION ORDER BY v DESC)").collect()
    assert got == [Row(n=14, vs="6,6,5,5,4,4,3,3,2,2,1,1,0,0")]
    with pytest.raises(ParseException, match="INVALID_TABLE_FUNCTION_IDENTIFIER_ARGUMENT_MISSING_PARENTHESES"):
        spark.sql("SELECT * FROM weir_tbl_above(5, TABLE weir_tbl_v)").collect()
    with pytest.raises(AnalysisException, match="TABLE_VALUED_FUNCTION_TOO_MANY_TABLE_ARGUMENTS"):
        spark.sql("SELECT * FROM weir_tbl_above(TABLE(weir_tbl_v), TABLE(weir_tbl_v))").collect()


@pytest.mark.parametrize("arrow", [False, True])
def test_udtf_dataframe_as_table(spark, arrow):
    spark.udtf.register("weir_tbl_psum2", udtf(partition_sum_class(), returnType="k: int, total: int",
                                               useArrow=arrow))
    fn = udtf(partition_sum_class(), returnType="k: int, total: int", useArrow=arrow)
    df = spark.sql("SELECT id % 3 AS k, id AS input FROM range(0, 12)")
    want = [Row(k=0, total=18), Row(k=1, total=22), Row(k=2, total=26)]
    assert sorted(fn(df.asTable().partitionBy("k")).collect()) == want
    assert sorted(fn(df.asTable().partitionBy(df.k).orderBy(df.input.desc())).collect()) == want
    ordered = udtf(ordered_class(), returnType="n: int, vs: string", useArrow=arrow)
    got = ordered(spark.sql("SELECT id AS v FROM range(0, 5, 1, 2)").asTable()
                  .withSinglePartition().orderBy(F.col("v").desc())).collect()
    assert got == [Row(n=5, vs="4,3,2,1,0")]


@pytest.mark.parametrize("arrow", [False, True])
def test_udtf_skip_rest_of_input_table(spark, arrow):
    from pyspark.sql.functions import SkipRestOfInputTableException

    class FirstThree:
        def __init__(self):
            self.last, self.count = None, 0

        def eval(self, row, limit: int):
            self.last, self.count = row["id"], self.count + 1
            if self.count >= limit:
                raise SkipRestOfInputTableException("enough")

        def terminate(self):
            yield self.last, self.count

    spark.udtf.register("weir_tbl_skip", udtf(FirstThree, returnType="last: int, n: int", useArrow=arrow))
    got = spark.sql("SELECT * FROM weir_tbl_skip(TABLE(SELECT id FROM range(1, 21)) "
                    "WITH SINGLE PARTITION ORDER BY id, limit => 3)").collect()
    assert got == [Row(last=3, n=3)]
    got = spark.sql("SELECT * FROM weir_tbl_skip(TABLE(SELECT id FROM range(1, 21)) "
                    "PARTITION BY floor(id / 10) ORDER BY id, limit => 4) ORDER BY last").collect()
    assert got == [Row(last=4, n=4), Row(last=13, n=4), Row(last=20, n=1)]


def test_udtf_table_argument_in_lateral_join(spark):
    spark.udtf.register("weir_tbl_psum3", udtf(partition_sum_class(), returnType="k: int, total: int"))
    got = spark.sql(
        "WITH t AS (SELECT id % 2 AS k, id AS input FROM range(0, 4)) "
        "SELECT v.a, v.b, f.k, f.total FROM VALUES (0, 1) AS v(a, b), "
        "LATERAL weir_tbl_psum3(TABLE(t) PARTITION BY k) f ORDER BY k").collect()
    assert got == [Row(a=0, b=1, k=0, total=2), Row(a=0, b=1, k=1, total=4)]


# Static analyze methods (pyspark.sql.worker.analyze_udtf on a planner worker at analysis time).
def echo_analyze_class():
    class Echo:
        """analyze types the output from its arguments (constants arrive with their values);
        eval's __init__ receives the AnalyzeResult."""

        def __init__(self, analyze_result=None):
            self.width = analyze_result.schema[0].dataType.simpleString()

        @staticmethod
        def analyze(a, b=None):
            from pyspark.sql.types import IntegerType, StringType, StructType
            from pyspark.sql.udtf import AnalyzeResult

            assert a.isConstantExpression and not a.isTable
            schema = StructType().add("a", a.dataType).add("value", StringType())
            if b is not None:
                schema = schema.add("b", b.dataType)
            else:
                schema = schema.add("b", IntegerType())
            schema = schema.add("type", StringType())
            return AnalyzeResult(schema)

        def eval(self, a, b=100):
            yield a, repr(a), b, self.width

    return Echo


@pytest.mark.parametrize("arrow", [False, True])
def test_udtf_analyze(spark, arrow):
    echo = udtf(echo_analyze_class(), useArrow=arrow)
    df = echo(F.lit(7))
    assert [(f.name, f.dataType.simpleString()) for f in df.schema.fields] == [
        ("a", "int"), ("value", "string"), ("b", "int"), ("type", "string")]
    assert df.collect() == [Row(a=7, value="7", b=100, type="int")]
    df = echo(F.array(F.lit(1), F.lit(2)), b=F.lit("z"))
    assert df.schema["a"].dataType.simpleString() == "array<int>"
    assert df.collect() == [Row(a=[1, 2], value="[1, 2]", b="z", type="array<int>")]
    spark.udtf.register("echo_analyze", echo)
    rows = spark.sql("SELECT * FROM echo_analyze(b => 'x', a => 2.5D)").collect()
    assert rows == [Row(a=2.5, value="2.5", b="x", type="double")]


def analyze_table_class():
    class Totals:
        """partitions its TABLE argument by analyze's request and sums each partition in order."""

        def __init__(self, analyze_result=None):
            self.tag = analyze_result.tag
            self.key, self.seen = None, []

        @staticmethod
        def analyze(label, rows):
            from dataclasses import dataclass

            from pyspark.sql.functions import OrderingColumn, PartitioningColumn, SelectedColumn
            from pyspark.sql.types import LongType, StringType, StructType
            from pyspark.sql.udtf import AnalyzeResult

            @dataclass
            class Tagged(AnalyzeResult):
                tag: str = ""

            assert rows.isTable and not rows.isConstantExpression and rows.value is None
            assert [f.name for f in rows.dataType.fields] == ["k", "v"]
            return Tagged(
                schema=StructType().add("tag", StringType()).add("k", LongType())
                .add("seen", StringType()),
                partitionBy=[PartitioningColumn("k")],
                orderBy=[OrderingColumn("v", ascending=False)],
                select=[SelectedColumn("k"), SelectedColumn("v * 10", alias="v10")],
                tag=label.value)

        def eval(self, label, row):
            assert list(row.asDict()) == ["k", "v10"], row
            self.key = row["k"]
            self.seen.append(row["v10"])

        def terminate(self):
            yield self.tag, self.key, ",".join(map(str, self.seen))

    return Totals


@pytest.mark.parametrize("arrow", [False, True])
def test_udtf_analyze_table_argument(spark, arrow):
    spark.udtf.register("totals", udtf(analyze_table_class(), useArrow=arrow))
    spark.range(6).selectExpr("id % 2 AS k", "id AS v").createOrReplaceTempView("kv")
    rows = spark.sql("SELECT * FROM totals('t', TABLE(kv)) ORDER BY k").collect()
    assert rows == [Row(tag="t", k=0, seen="40,20,0"), Row(tag="t", k=1, seen="50,30,10")]
    with pytest.raises(AnalysisException, match="TABLE_VALUED_FUNCTION_REQUIRED_METADATA_INCOMPATIBLE_WITH_CALL"):
        spark.sql("SELECT * FROM totals('t', TABLE(kv) PARTITION BY v)").collect()


def test_udtf_analyze_errors(spark):
    from pyspark.sql.udtf import AnalyzeResult
    from pyspark.sql.types import StructType

    class Raises:
        @staticmethod
        def analyze():
            raise ValueError("no schema today")

        def eval(self):
            yield (1,)

    with pytest.raises(AnalysisException, match="(?s)TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON.*ValueError: no schema today"):
        udtf(Raises)().collect()

    class TwoArgs:
        @staticmethod
        def analyze(a, b):
            return AnalyzeResult(StructType().add("a", a.dataType))

        def eval(self, a, b):
            yield (a,)

    with pytest.raises(AnalysisException, match="did not match the expected signature of the static 'analyze' method"):
        udtf(TwoArgs)(F.lit(1)).collect()

    class Partitions:
        @staticmethod
        def analyze(a):
            from pyspark.sql.functions import PartitioningColumn

            return AnalyzeResult(StructType().add("a", a.dataType), partitionBy=[PartitioningColumn("a")])

        def eval(self, a):
            yield (a,)

    with pytest.raises(AnalysisException, match="did not provide any table argument"):
        udtf(Partitions)(F.lit(1)).collect()
    # The planner worker that raised was replaced: the next analysis works.
    assert udtf(echo_analyze_class())(F.lit("s")).collect() == [Row(a="s", value="'s'", b=100, type="string")]


@pytest.mark.parametrize("arrow", [False, True])
def test_udtf_empty_return_struct(spark, arrow):
    @udtf(returnType="", useArrow=arrow)
    class Units:
        def eval(self):
            yield ()
            yield ()

    df = Units()
    assert df.collect() == [Row(), Row()]
    assert df.count() == 2


def test_udtf_multiple_table_arguments(spark):
    @udtf(returnType="a: bigint, b: bigint")
    class Pairs:
        def eval(self, a, b):
            yield a["id"], b["id"]

    spark.udtf.register("pairs", Pairs)
    query = "SELECT * FROM pairs(TABLE(SELECT id FROM range(2)), TABLE(SELECT id FROM range(3)))"
    with pytest.raises(AnalysisException, match="TABLE_VALUED_FUNCTION_TOO_MANY_TABLE_ARGUMENTS"):
        spark.sql(query).collect()
    spark.conf.set("spark.sql.tvf.allowMultipleTableArguments.enabled", True)
    try:
        assert sorted(spark.sql(query).collect()) == [Row(a=a, b=b) for a in range(2) for b in range(3)]
    finally:
        spark.conf.unset("spark.sql.tvf.allowMultipleTableArguments.enabled")


@pytest.mark.parametrize("arrow", [False, True])
def test_udtf_variant_input_and_output(spark, arrow):
    # PySpark's test_udtf_with_[nested_]variant_{input,output}: a VARIANT reaches eval as a
    # VariantVal and a returned VariantVal is a VARIANT (alone and inside a struct).
    from pyspark.sql.types import VariantVal

    @udtf(returnType="i int, s: string", useArrow=arrow)
    class Reads:
        def eval(self, v, w):
            yield 0, v.toJson() + "|" + w["v"].toJson()

    spark.udtf.register("reads_variant", Reads)
    rows = spark.sql("""SELECT * FROM reads_variant(parse_json('{"a":"b"}'),
                        named_struct('v', parse_json('[1,2]')))""").collect()
    assert rows == [Row(i=0, s='{"a":"b"}|[1,2]')]

    @udtf(returnType="i int, v: variant, w: struct<v1 variant>", useArrow=arrow)
    class Makes:
        def eval(self, n):
            for i in range(n):
                val = VariantVal(bytes([2, 1, 0, 0, 2, 5, 97 + i]), bytes([1, 1, 0, 1, 97]))
                yield i, val, {"v1": val}

    spark.udtf.register("makes_variant", Makes)
    rows = spark.sql("SELECT i, to_json(v) AS v, to_json(w.v1) AS w FROM makes_variant(3)").collect()
    assert rows == [Row(i=n, v=f'{{"a":"{chr(97 + n)}"}}', w=f'{{"a":"{chr(97 + n)}"}}') for n in range(3)]
