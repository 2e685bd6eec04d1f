"""Built-in functions through stock PySpark, with the values Apache Spark 4.2's own Connect
server gives for the same calls (checked side by side once; the expression-level cases live in
sql/expr/testdata/functions_42)."""
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F


def test_string_literal_doubled_quote(spark):
    row = spark.sql("SELECT 'it''s' AS a, \"a\"\"b\" AS b, 'a' 'b' AS c, r'x''y' AS d").collect()[0]
    assert tuple(row) == ("it's", 'a"b', "ab", "xy")


def test_xxhash64_matches_spark(spark):
    row = spark.sql(
        "SELECT xxhash64(CAST(1.5 AS DECIMAL(20,2))), xxhash64(DATE'2024-01-01'), xxhash64(1.5D), "
        "xxhash64('Spark', array(123), 2)").collect()[0]
    assert tuple(row) == (-194698251525976593, 3242891694566951137, 7738255526519901366, 5602566077635097486)
    df = spark.range(3).select(F.xxhash64("id").alias("h"))
    assert [r.h for r in df.collect()] == [
        spark.sql(f"SELECT xxhash64({i}L)").collect()[0][0] for i in range(3)]
    with pytest.raises(AnalysisException, match="HASH_MAP_TYPE"):
        spark.sql("SELECT xxhash64(map('a', 1))").collect()


def test_new_scalar_functions(spark):
    row = spark.sql(
        "SELECT quote('Don''t'), dayname(DATE'2024-01-01'), monthname(DATE'2024-12-25'), "
        "elt(2, 'a', 'b'), find_in_set('ab', 'abc,b,ab'), luhn_check('79927398713'), "
        "regexp_count('Steven and Stephen', 'Ste(v|ph)en'), regexp_extract_all('1-2, 3-4', '(\\\\d+)-(\\\\d+)', 2), "
        "url_encode('a b&c'), parse_url('http://u@h.org:80/p?q=1#r', 'QUERY', 'q'), width_bucket(5.3, 0.2, 10.6, 5), "
        "map_from_entries(array(struct(1, 'a'))), bit_count(-1), current_database()").collect()[0]
    assert tuple(row) == ("'Don\\'t'", "Mon", "Dec", "b", 3, True, 2, ["2", "4"], "a+b%26c", "1", 3, {1: "a"}, 64,
                          "default")
    assert spark.sql("SELECT current_database()").columns == ["current_schema()"]


def test_column_with_field_and_drop_fields(spark):
    # Values, names and errors as Apache Spark 4.2's Connect server gives them.
    df = spark.sql("SELECT named_struct('a', 1, 'b', named_struct('c', 2, 'd', 'x')) AS s, 5 AS n "
                   "UNION ALL SELECT NULL, 6 UNION ALL SELECT named_struct('a', 3, 'b', NULL), 7")
    out = df.select(F.col("s").withField("e", F.lit(9)))
    assert out.columns == ["update_fields(s, WithField(9))"]
    assert out.schema.simpleString() == "struct<update_fields(s, WithField(9)):struct<a:int,b:struct<c:int,d:string>,e:int>>"
    assert [r[0] and r[0].asDict(recursive=True) for r in out.collect()] == [
        {"a": 1, "b": {"c": 2, "d": "x"}, "e": 9}, None, {"a": 3, "b": None, "e": 9}]
    rows = df.select(F.col("s").withField("A", F.col("n")).withField("b.c", F.lit(10)).alias("t")).collect()
    assert [r.t and r.t.asDict(recursive=True) for r in rows] == [
        {"A": 5, "b": {"c": 10, "d": "x"}}, None, {"A": 7, "b": None}]
    out = df.select(F.col("s").dropFields("b.c", "a"))
    assert out.columns == ["update_fields(s, WithField(update_fields(s.b, dropfield())), dropfield())"]
    assert [r[0] and r[0].asDict(recursive=True) for r in out.collect()] == [{"b": {"d": "x"}}, None, {"b": None}]
    assert df.select(F.col("s").dropFields("zz")).schema.simpleString() == \
        "struct<update_fields(s, dropfield()):struct<a:int,b:struct<c:int,d:string>>>"
    with pytest.raises(AnalysisException) as e:
        df.select(F.col("s").dropFields("a", "b")).collect()
    assert "DATATYPE_MISMATCH.CANNOT_DROP_ALL_FIELDS" in str(e.value)
    with pytest.raises(AnalysisException) as e:
        df.select(F.col("n").withField("x", F.lit(1))).collect()
    assert 'Cannot resolve "update_fields(n, WithField(1))"' in str(e.value)
    with pytest.raises(AnalysisException) as e:
        df.select(F.col("s").withField("q.z", F.lit(1))).collect()
    assert "FIELD_NOT_FOUND" in str(e.value)


def test_to_number_matches_spark(spark):
    from decimal import Decimal
    df = spark.createDataFrame([("12,454.8-",), ("<1.5>",), ("x",)], "s string")
    rows = df.select(F.try_to_number("s", F.lit("99,999.9S")).alias("a"),
                     F.try_to_number("s", F.lit("99.9PR")).alias("b")).collect()
    assert [tuple(r) for r in rows] == [(Decimal("-12454.8"), None), (None, Decimal("-1.5")), (None, None)]
    assert df.select(F.to_number("s", F.lit("99,999.9S"))).schema.simpleString() == \
        "struct<to_number(s, 99,999.9S):decimal(6,1)>"
    with pytest.raises(Exception) as e:
        df.select(F.to_number("s", F.lit("99,999.9S"))).collect()
    assert "INVALID_FORMAT.MISMATCH_INPUT" in str(e.value)
    with pytest.raises(AnalysisException) as e:
        df.select(F.to_number("s", F.lit("9S9"))).collect()
    assert "INVALID_FORMAT.UNEXPECTED_TOKEN" in str(e.value)


def test_to_char_matches_spark(spark):
    df = spark.createDataFrame([(-12454.8,), (5.0,), (123456.0,)], "d double")
    rows = df.select(F.to_char("d", F.lit("99G999D9S")).alias("a"), F.to_varchar("d", F.lit("999PR")).alias("b")).collect()
    assert [tuple(r) for r in rows] == [("12,454.8-", "<###>"), ("     5.0+", "  5  "), ("## ###.#+", "###  ")]
    r = spark.sql("SELECT to_char(x'537061726b', 'base64'), to_char(date'2016-04-08', 'yyyy')").collect()[0]
    assert tuple(r) == ("U3Bhcms=", "2016")


def test_vector_and_bitmap_functions_match_spark(spark):
    # Values and names as Apache Spark 4.2's Connect server gives them (the aggregates over one
    # partition: Spark merges partitions' partial vector sums, which rounds differently).
    row = spark.sql(
        "SELECT vector_norm(array(3.0F, 4.0F)), vector_normalize(array(3.0F, -4.0F), float('inf')), "
        "vector_inner_product(array(1.0F, 2.0F), array(2.0F, 4.0F)), "
        "vector_cosine_similarity(array(0.0F, 0.0F), array(2.0F, 4.0F)), "
        "bitmap_bucket_number(32769), bitmap_bit_position(-1), bitmap_count(X'FFFF')").collect()[0]
    assert tuple(row) == (5.0, [0.75, -1.0], 10.0, None, 2, 1, 16)
    df = spark.sql(
        "SELECT vector_sum(v) AS s, vector_avg(v) AS a, bitmap_construct_agg(p) AS c, bitmap_or_agg(b) AS o "
        "FROM VALUES (array(1.0F, 2.0F), 1, X'10'), (array(3.0F, 4.0F), 3, X'20'), (NULL, 5, NULL) t(v, p, b)")
    assert df.schema.simpleString() == "struct<s:array<float>,a:array<float>,c:binary,o:binary>"
    r = df.collect()[0]
    assert (r.s, r.a) == ([4.0, 6.0], [2.0, 3.0])
    assert bytes(r.c) == b"\x2a" + bytes(4095) and bytes(r.o) == b"\x30" + bytes(4095)
    with pytest.raises(Exception, match="VECTOR_DIMENSION_MISMATCH"):
        spark.sql("SELECT vector_l2_distance(array(1.0F), array(1.0F, 2.0F))").collect()
    with pytest.raises(Exception, match="INVALID_BITMAP_POSITION"):
        spark.sql("SELECT bitmap_construct_agg(x) FROM VALUES (32768) t(x)").collect()
    with pytest.raises(AnalysisException, match="UNEXPECTED_INPUT_TYPE"):
        spark.sql("SELECT vector_norm(array(3.0D, 4.0D))").collect()
