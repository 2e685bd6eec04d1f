"""The VARIANT type through stock PySpark: collect() gives VariantVal objects whose bytes are the
ones Apache Spark 4.2's own Connect server returns for the same parse_json (checked side by side),
and variant values sent by the client (createDataFrame) read back."""
from pyspark.sql import functions as F
from pyspark.sql.types import StructField, StructType, VariantType, VariantVal


def test_collect_variant_matches_spark_bytes(spark):
    df = spark.sql("""SELECT parse_json('{"a":1,"b":[1,2.5,"x",null,true],"c":{"d":1e10}}') AS v""")
    assert isinstance(df.schema["v"].dataType, VariantType)
    v = df.collect()[0].v
    assert isinstance(v, VariantVal)
    # Spark 4.2's server answers exactly these buffers.
    assert v.value.hex() == "0203000102000216240c0103050002080a0b0c0c012001190000000578000402010300091c000000205fa00242"
    assert v.metadata.hex() == "0104000102030461626364"
    assert v.toPython() == {"a": 1, "b": [1, 2.5, "x", None, True], "c": {"d": 1e10}}
    assert spark.sql("SELECT try_parse_json('{') AS v").collect()[0].v is None


def test_variant_functions_through_dataframe_api(spark):
    df = spark.createDataFrame([('{"a": {"b": [7, "x"]}}',), ('[1, 2]',), (None,)], "j string")
    out = df.select(
        F.parse_json("j").alias("v"),
    ).select(
        F.variant_get("v", "$.a.b[0]", "int").alias("g"),
        F.try_variant_get("v", "$.a.b[1]", "int").alias("t"),
        F.schema_of_variant("v").alias("s"),
        F.is_variant_null(F.variant_get("v", "$.zz", "variant")).alias("n"),
        F.to_json("v").alias("js"),
    ).collect()
    assert [tuple(r) for r in out] == [
        (7, None, "OBJECT<a: OBJECT<b: ARRAY<VARIANT>>>", False, '{"a":{"b":[7,"x"]}}'),
        (None, None, "ARRAY<BIGINT>", False, "[1,2]"),
        (None, None, None, False, None),
    ]
    r = spark.sql("""SELECT to_variant_object(named_struct('k', 1, 'a', array(1.5, null))) AS o,
                            CAST(date'2024-01-01' AS VARIANT) AS d""").collect()[0]
    assert r.o.toJson() == '{"a":[1.5,null],"k":1}'
    assert r.d.toPython().isoformat() == "2024-01-01"


def test_variant_errors(spark):
    import pytest
    from pyspark.errors import PySparkException
    with pytest.raises(PySparkException) as e:
        spark.sql("SELECT parse_json('{\"a\":')").collect()
    assert "MALFORMED_RECORD_IN_PARSING" in str(e.value)
    with pytest.raises(PySparkException) as e:
        spark.sql("""SELECT variant_get(parse_json('{"a":"x"}'), '$.a', 'int')""").collect()
    assert "INVALID_VARIANT_CAST" in str(e.value)
    with pytest.raises(PySparkException) as e:
        spark.sql("""SELECT variant_get(parse_json('1'), 'a', 'int')""").collect()
    assert "INVALID_VARIANT_GET_PATH" in str(e.value)


def test_create_dataframe_with_variant_val(spark):
    v = VariantVal(bytes.fromhex("0203000102000216240c0103050002080a0b0c0c012001190000000578000402010300091c000000205fa00242"),
                   bytes.fromhex("0104000102030461626364"))
    schema = StructType([StructField("v", VariantType())])
    df = spark.createDataFrame([(v,), (None,)], schema)
    rows = df.select(F.variant_get("v", "$.c.d", "double").alias("d"), F.col("v")).collect()
    assert rows[0].d == 1e10 and rows[0].v.value == v.value and rows[0].v.metadata == v.metadata
    assert rows[1].d is None and rows[1].v is None


def test_variant_explode_table_function(spark):
    import pytest
    from pyspark.errors import PySparkException
    # Spark 4.2's answers: the value shares the input's metadata; keys in dictionary order.
    rows = spark.tvf.variant_explode(F.parse_json(F.lit('{"b":[1],"a":"x"}'))).collect()
    assert [(r.pos, r.key, r.value.value, r.value.metadata) for r in rows] == [
        (0, "a", b"\x05x", b"\x01\x02\x00\x01\x02ba"),
        (1, "b", b"\x03\x01\x00\x02\x0c\x01", b"\x01\x02\x00\x01\x02ba"),
    ]
    assert [tuple(r) for r in spark.tvf.variant_explode_outer(F.parse_json(F.lit("5"))).collect()] == [(None, None, None)]
    assert [r.id for r in spark.tvf.range(2, 5).collect()] == [2, 3, 4]
    rows = spark.sql("""SELECT j, pos, key, value FROM VALUES ('[1,2]'), ('{"a":3}'), ('x') t(j),
                        LATERAL variant_explode_outer(try_parse_json(j))""").collect()
    assert [(r.j, r.pos, r.key, r.value and (r.value.value, r.value.metadata)) for r in rows] == [
        ("[1,2]", 0, None, (b"\x0c\x01", b"\x01\x00\x00")),
        ("[1,2]", 1, None, (b"\x0c\x02", b"\x01\x00\x00")),
        ('{"a":3}', 0, "a", (b"\x0c\x03", b"\x01\x01\x00\x01a")),
        ("x", None, None, None),
    ]
    with pytest.raises(PySparkException) as e:
        spark.sql("SELECT variant_explode(parse_json('[1,2]'))").collect()
    assert "NOT_A_SCALAR_FUNCTION" in str(e.value)
    with pytest.raises(PySparkException) as e:
        spark.tvf.variant_explode(F.lit(1)).collect()
    assert "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE" in str(e.value)


def test_semi_structured_extract_syntax(spark):
    df = spark.sql("""SELECT v:a.b[0]::int, v:a.b, v:['x y'], v:[1] FROM
                      (SELECT parse_json('{"a":{"b":[7,"x"]},"x y":true}') AS v)""")
    # Spark 4.2 names the columns after the path's last key.
    assert df.columns == ["b", "b", "x y", "variant_get(v, $[1])"]
    r = df.collect()[0]
    assert r[0] == 7 and r[1].toJson() == '[7,"x"]' and r[2].toPython() is True and r[3] is None


def test_variant_parquet_round_trip_and_spark_files(spark, tmp_path):
    import os
    out = str(tmp_path / "v")
    spark.sql("""SELECT id, parse_json(j) AS v FROM VALUES (1, '{"a":1,"b":[true,"x"]}'), (2, NULL) t(id, j)""") \
        .write.parquet(out)
    rows = sorted(spark.read.parquet(out).collect())
    assert rows[0].v.toJson() == '{"a":1,"b":[true,"x"]}' and rows[1].v is None
    # Files Spark 4.2 wrote (shredded) read back with the bytes Spark reads.
    spark_dir = os.path.join(os.path.dirname(__file__), "../../connectors/files/testdata/spark42_variant")
    df = spark.read.parquet(spark_dir)
    assert df.schema.simpleString() == "struct<id:int,v:variant>"
    got = sorted((r.id, r.v and (r.v.value, r.v.metadata)) for r in df.collect())
    assert got == [(1, (b"\x02\x02\x00\x01\x00\x02\n\x0c\x01\x03\x02\x00\x01\x03\x04\x05x", b"\x01\x02\x00\x01\x02ab")),
                   (2, None), (3, (b" \x01\x19\x00\x00\x00", b"\x01\x00\x00"))]
