"""XML functions through stock PySpark's DataFrame API, with the values Apache Spark 4.2's own
Connect server gives for the same calls (the expression-level cases live in
sql/expr/testdata/xml)."""
import math

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F


def test_xpath_family_matches_spark(spark):
    df = spark.createDataFrame([("<a><b>1</b><b>2</b></a>",), (None,), ("",), ("<a><b>x</b></a>",)], "x string")
    out = df.select(F.xpath("x", F.lit("a/b/text()")), F.xpath_int("x", F.lit("sum(a/b)")),
                    F.xpath_string("x", F.lit("a/b")), F.xpath_boolean("x", F.lit("a/b = 2")),
                    F.xpath_double("x", F.lit("a/b * 2")), F.xpath_number("x", F.lit("a/b")),
                    F.xpath_float("x", F.lit("a/b")), F.xpath_long("x", F.lit("a/b")),
                    F.xpath_short("x", F.lit("a/b")))
    assert out.columns == ["xpath(x, a/b/text())", "xpath_int(x, sum(a/b))", "xpath_string(x, a/b)",
                           "xpath_boolean(x, a/b = 2)", "xpath_double(x, a/b * 2)", "xpath_number(x, a/b)",
                           "xpath_float(x, a/b)", "xpath_long(x, a/b)", "xpath_short(x, a/b)"]
    assert out.schema.simpleString() == (
        "struct<xpath(x, a/b/text()):array<string>,xpath_int(x, sum(a/b)):int,xpath_string(x, a/b):string,"
        "xpath_boolean(x, a/b = 2):boolean,xpath_double(x, a/b * 2):double,xpath_number(x, a/b):double,"
        "xpath_float(x, a/b):float,xpath_long(x, a/b):bigint,xpath_short(x, a/b):smallint>")
    rows = [tuple(r) for r in out.collect()]
    assert rows[:3] == [(["1", "2"], 3, "1", True, 2.0, 1.0, 1.0, 1, 1), (None,) * 9, (None,) * 9]
    last = rows[3]
    assert last[:4] == (["x"], 0, "x", False) and last[7:] == (0, 0)
    assert all(math.isnan(v) for v in last[4:7])


def test_xpath_errors_match_spark(spark):
    df = spark.createDataFrame([("<a>",)], "x string")
    with pytest.raises(AnalysisException, match="NON_FOLDABLE_INPUT") as e:
        df.select(F.xpath("x", F.col("x"))).collect()
    assert "the input `path` should be a foldable \"STRING\" expression" in str(e.value)
    with pytest.raises(Exception, match="Error loading expression 'a'"):
        df.select(F.xpath_int("x", F.lit("a"))).collect()
    with pytest.raises(AnalysisException, match="UNEXPECTED_INPUT_TYPE"):
        spark.sql("SELECT xpath_int(1, 'a')").collect()


def test_sentences_matches_spark(spark):
    df = spark.createDataFrame([("Hi there! Good morning.",), (None,), ("Mr. Smith isn't here. ok",)], "x string")
    out = df.select(F.sentences("x"), F.sentences("x", F.lit("en"), F.lit("US")), F.sentences(F.col("x"), F.lit("en")))
    assert out.columns == ["sentences(x, , )", "sentences(x, en, US)", "sentences(x, en, )"]
    assert out.schema.simpleString() == (
        "struct<sentences(x, , ):array<array<string>>,sentences(x, en, US):array<array<string>>,"
        "sentences(x, en, ):array<array<string>>>")
    first = [["Hi", "there"], ["Good", "morning"]]
    third = [["Mr"], ["Smith", "isn't", "here", "ok"]]
    assert [tuple(r) for r in out.collect()] == [(first,) * 3, (None,) * 3, (third,) * 3]


def test_from_xml_schema_of_xml_to_xml_match_spark(spark):
    df = spark.createDataFrame([("<p x=\"1\"><a>1</a><a>2</a><b>hi</b></p>",), (None,), ("<p><a>z</a></p>",)], "x string")
    out = df.select(F.from_xml("x", "_x INT, a ARRAY<INT>, b STRING, _corrupt_record STRING").alias("r"))
    assert out.schema.simpleString() == "struct<r:struct<_x:int,a:array<int>,b:string,_corrupt_record:string>>"
    assert [r.r and r.r.asDict() for r in out.collect()] == [
        {"_x": 1, "a": [1, 2], "b": "hi", "_corrupt_record": None}, None,
        {"_x": None, "a": None, "b": None, "_corrupt_record": "<p><a>z</a></p>"}]
    out = df.select(F.schema_of_xml(F.lit("<p x=\"1\"><a>1</a><a>2</a><b>hi</b></p>")))
    assert out.columns == ['schema_of_xml(<p x="1"><a>1</a><a>2</a><b>hi</b></p>)']
    assert out.collect()[0][0] == "STRUCT<_x: BIGINT, a: ARRAY<BIGINT>, b: STRING>"
    out = df.select(F.to_xml(F.struct(F.lit(1).alias("_id"), F.col("x").alias("v"))).alias("t"))
    assert [r.t for r in out.collect()] == [
        '<ROW id="1">\n    <v>&lt;p x="1">&lt;a>1&lt;/a>&lt;a>2&lt;/a>&lt;b>hi&lt;/b>&lt;/p></v>\n</ROW>', '<ROW id="1"/>',
        '<ROW id="1">\n    <v>&lt;p>&lt;a>z&lt;/a>&lt;/p></v>\n</ROW>']
    assert df.select(F.to_xml(F.struct(F.lit(1).alias("a")), {"rowTag": "r"})).collect()[0][0] == "<r>\n    <a>1</a>\n</r>"
