"""Collations (UTF8_BINARY, UTF8_LCASE, UNICODE, UNICODE_CI, ICU locales, _AI, _RTRIM) through the
pyspark.sql.functions API and SQL, with the answers Apache Spark 4.2's own Connect server gives
for the same DataFrames (compared side by side; the expression-level cases are in
sql/expr/testdata/collations, the ICU orders in sql/collation's tests)."""
import pytest
from pyspark.errors import AnalysisException, PySparkException
from pyspark.sql import Window
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

WORDS = ["b", "a", "B", "A", "ä", "Ä"]


@pytest.fixture
def words(spark):
    return spark.createDataFrame([(w,) for w in WORDS], "x string")


@pytest.fixture
def lcase(spark):
    schema = StructType([StructField("s", StringType("UTF8_LCASE"))])
    return spark.createDataFrame([("Hello",), ("hello",), ("world",)], schema)


def test_collate_and_collation_functions(spark, words):
    df = words.select(F.collate("x", "UNICODE_CI").alias("c"), F.collation(F.collate("x", "utf8_lcase")))
    assert df.schema[0].dataType == StringType("UNICODE_CI")
    assert df.columns == ["c", "collation(collate(x, utf8_lcase))"]
    assert df.first()[1] == "SYSTEM.BUILTIN.UTF8_LCASE"
    assert words.select(F.collate("x", "UNICODE_CI"), F.collation("x")).columns == \
        ["collate(x, UNICODE_CI)", "collation(x)"]
    row = spark.sql("select collation('a'), collation('a' collate de_ci_ai), collation('a' collate UNICODE_AI_CI), "
                    "typeof('a' collate sr_Cyrl), collation('a' collate system.builtin.unicode_ci)").first()
    assert tuple(row) == ("SYSTEM.BUILTIN.UTF8_BINARY", "SYSTEM.BUILTIN.de_CI_AI", "SYSTEM.BUILTIN.UNICODE_CI_AI",
                          "string collate sr_Cyrl", "SYSTEM.BUILTIN.UNICODE_CI")
    with pytest.raises(PySparkException, match="COLLATION_INVALID_NAME"):
        spark.sql("select 'a' collate xx_bogus").collect()


def test_collations_table_function(spark):
    df = spark.sql("select * from collations()")
    assert df.columns == ["CATALOG", "SCHEMA", "NAME", "LANGUAGE", "COUNTRY", "ACCENT_SENSITIVITY",
                          "CASE_SENSITIVITY", "PAD_ATTRIBUTE", "ICU_VERSION"]
    assert df.count() == 1164
    rows = df.limit(5).collect()
    assert [r.NAME for r in rows] == ["UTF8_BINARY", "UTF8_LCASE", "UTF8_BINARY_RTRIM", "UTF8_LCASE_RTRIM", "UNICODE"]
    assert tuple(rows[1]) == ("SYSTEM", "BUILTIN", "UTF8_LCASE", None, None, "ACCENT_SENSITIVE",
                              "CASE_INSENSITIVE", "NO_PAD", None)
    de = spark.sql("select * from collations() where NAME = 'de_CI_AI'").first()
    assert tuple(de) == ("SYSTEM", "BUILTIN", "de_CI_AI", "German", None, "ACCENT_INSENSITIVE",
                         "CASE_INSENSITIVE", "NO_PAD", "78.3.0.0")


def test_schema_with_collated_strings(spark, lcase):
    assert lcase.schema == StructType([StructField("s", StringType("UTF8_LCASE"), True)])
    assert lcase.dtypes == [("s", "string collate UTF8_LCASE")]
    assert lcase.select(F.typeof("s")).first()[0] == "string collate UTF8_LCASE"
    ddl = spark.createDataFrame([("a",)], "s string collate unicode_ci")
    assert ddl.schema[0].dataType == StringType("UNICODE_CI")
    assert spark.sql("select cast('a' as string collate unicode_ci) c").schema[0].dataType == StringType("UNICODE_CI")


def test_comparisons_and_string_functions(spark, lcase):
    assert lcase.filter(F.col("s") == "HELLO").count() == 2
    assert lcase.filter(F.col("s").contains("ELL")).count() == 2
    assert lcase.filter(F.col("s").startswith("WOR")).count() == 1
    assert lcase.filter(F.col("s").isin("HELLO", "x")).count() == 2
    assert tuple(lcase.agg(F.min("s"), F.max("s")).first()) == ("Hello", "world")
    row = spark.sql("select 'a' collate unicode_ci = 'A', 'a' collate unicode = 'A', 'A  ' collate unicode_ci_rtrim = 'a', "
                    "replace('aBcAb' collate utf8_lcase, 'ab', 'x'), locate('b', 'aBcAb' collate unicode_ci), "
                    "'ABC' collate utf8_lcase like 'ab%', endswith('ABC' collate unicode_ci, 'bc')").first()
    assert tuple(row) == (True, False, True, "xcx", 2, True, True)


def test_order_group_distinct_join_window(spark, words, lcase):
    assert [r[0] for r in words.orderBy(F.collate("x", "UNICODE_CI"), "x").collect()] == ["A", "a", "Ä", "ä", "B", "b"]
    assert [r[0] for r in words.orderBy(F.collate("x", "UNICODE"), "x").collect()] == ["a", "A", "ä", "Ä", "b", "B"]
    assert [r[0] for r in words.orderBy(F.collate("x", "UTF8_LCASE"), "x").collect()] == ["A", "a", "B", "b", "Ä", "ä"]
    grouped = words.groupBy(F.collate("x", "UTF8_LCASE").alias("k")).count()
    assert grouped.schema[0].dataType == StringType("UTF8_LCASE")
    # Each group keeps the first of its values, as Spark's does.
    assert sorted(tuple(r) for r in grouped.collect()) == [("a", 2), ("b", 2), ("ä", 2)]
    assert words.select(F.collate("x", "UNICODE_CI_AI").alias("k")).distinct().count() == 2
    assert words.withColumn("k", F.collate("x", "UTF8_LCASE")).dropDuplicates(["k"]).count() == 3
    assert sorted(tuple(r) for r in lcase.select("s", F.count("*").over(Window.partitionBy("s")).alias("n")).collect()) == \
        [("Hello", 2), ("hello", 2), ("world", 1)]
    joined = spark.sql("select * from values ('a'), ('B') t(x) join values ('A'), ('b') u(y) on x collate utf8_lcase = y")
    assert sorted(tuple(r) for r in joined.collect()) == [("B", "b"), ("a", "A")]
    k = spark.sql("select x collate utf8_lcase k, count(*) from values ('b'), ('a'), ('B'), ('A') t(x) group by 1 order by 1")
    assert [tuple(r) for r in k.collect()] == [("a", 2), ("b", 2)]
    assert tuple(words.agg(F.count_distinct(F.collate("x", "UTF8_LCASE")), F.count_distinct("x")).first()) == (3, 6)
    assert tuple(words.agg(F.min(F.collate("x", "UTF8_LCASE")), F.max(F.collate("x", "UNICODE"))).first()) == ("a", "B")
    parts = spark.sql("select split_part('aXbxc' collate utf8_lcase, 'x', 2), substring_index('aXbxc' collate utf8_lcase, 'x', -2)")
    assert tuple(parts.first()) == ("b", "bxc")


def test_collation_mismatch_errors(spark, words, lcase):
    with pytest.raises(AnalysisException, match="COLLATION_MISMATCH.EXPLICIT"):
        words.select(F.collate("x", "UNICODE") == F.collate("x", "UTF8_LCASE")).collect()
    with pytest.raises(AnalysisException, match="COLLATION_MISMATCH.EXPLICIT"):
        spark.sql("select concat('a' collate unicode, 'b' collate utf8_lcase)").collect()
    other = spark.createDataFrame([("HELLO", 1)], "t string, n int")
    with pytest.raises(AnalysisException, match="INDETERMINATE_COLLATION_IN_EXPRESSION"):
        lcase.join(other, F.col("s") == F.col("t")).collect()
    with pytest.raises(AnalysisException, match="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"):
        spark.sql("select 'a' collate unicode_ci like 'A%'").collect()
    with pytest.raises(AnalysisException, match="DATATYPE_MISMATCH.UNSUPPORTED_INPUT_TYPE"):
        words.agg(F.collect_set(F.collate("x", "UTF8_LCASE"))).collect()
    with pytest.raises(AnalysisException, match="INCOMPATIBLE_COLUMN_TYPE"):
        spark.sql("select 'a' collate unicode_ci x union all select 'b'").collect()
