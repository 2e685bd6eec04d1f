"""Spatial (st_*), Avro and Protobuf functions through stock PySpark: the DataFrame API forms of
pyspark.sql.functions / pyspark.sql.avro.functions / pyspark.sql.protobuf.functions, with the
values and bytes Apache Spark 4.2's own Connect server returns for the same calls (checked side by
side; Spark with the spark-avro module for Avro)."""
import pytest
from pyspark.errors import IllegalArgumentException, AnalysisException
from pyspark.sql import functions as F
from pyspark.sql.types import Geography, GeographyType, Geometry, GeometryType

POINT = bytes.fromhex("0101000000000000000000F03F0000000000000040")  # POINT(1 2), little-endian
POINT_XDR = bytes.fromhex("00000000013FF00000000000004000000000000000")


def test_spatial_types_and_values(spark):
    df = spark.createDataFrame([(POINT,), (POINT_XDR,), (None,)], "w binary")
    out = df.select(
        F.st_geomfromwkb("w").alias("g"),
        F.st_geogfromwkb("w").alias("h"),
        F.st_geomfromwkb("w", 3857).alias("m"),
    )
    assert [f.dataType for f in out.schema.fields] == [GeometryType(0), GeographyType(4326), GeometryType(3857)]
    rows = out.collect()
    g, h, m = rows[0]
    assert isinstance(g, Geometry) and isinstance(h, Geography)
    assert (g.getBytes(), g.getSrid()) == (POINT, 0)
    assert (h.getBytes(), h.getSrid()) == (POINT, 4326)
    assert (m.getBytes(), m.getSrid()) == (POINT, 3857)
    # A big-endian input is kept little-endian, as Spark's writer makes it.
    assert rows[1].g.getBytes() == POINT
    assert tuple(rows[2]) == (None, None, None)


def test_spatial_functions(spark):
    df = spark.createDataFrame([(POINT,)], "w binary")
    r = df.select(
        F.st_asbinary(F.st_geomfromwkb("w")).alias("ndr"),
        F.st_asbinary(F.st_geomfromwkb("w"), F.lit("XDR")).alias("xdr"),
        F.st_srid(F.st_geogfromwkb("w")).alias("s"),
        F.st_srid(F.st_setsrid(F.st_geomfromwkb("w"), 4326)).alias("s2"),
        F.typeof(F.st_setsrid(F.st_geomfromwkb("w"), F.lit(3857).cast("bigint"))).alias("t"),
    ).collect()[0]
    assert tuple(r) == (POINT, POINT_XDR, 4326, 4326, "geometry(any)")
    assert df.select(F.st_asbinary(F.st_geomfromwkb("w"))).columns == ["st_asbinary(st_geomfromwkb(w, 0), NDR)"]
    nested = spark.sql(
        "SELECT array(st_geomfromwkb(X'0101000000000000000000F03F0000000000000040')) a,"
        " named_struct('g', st_geogfromwkb(X'0101000000000000000000F03F0000000000000040')) b").collect()[0]
    assert nested.a[0].getBytes() == POINT and nested.b.g.getSrid() == 4326


def test_spatial_errors(spark):
    bad = spark.createDataFrame([(bytes.fromhex("0109000000"),)], "w binary")
    with pytest.raises(IllegalArgumentException) as e:
        bad.select(F.st_geomfromwkb("w")).collect()
    assert e.value.getErrorClass() == "WKB_PARSE_ERROR"
    assert e.value.getMessageParameters() == {"parseError": "Invalid or unsupported type 9", "pos": "1"}
    df = spark.createDataFrame([(POINT,)], "w binary")
    with pytest.raises(IllegalArgumentException) as e:
        df.select(F.st_setsrid(F.st_geogfromwkb("w"), 3857)).collect()
    assert e.value.getErrorClass() == "ST_INVALID_SRID_VALUE"
    with pytest.raises(IllegalArgumentException) as e:
        df.select(F.st_asbinary(F.st_geomfromwkb("w"), F.lit("foo"))).collect()
    assert e.value.getErrorClass() == "ST_INVALID_ENDIANNESS_VALUE"
    with pytest.raises(AnalysisException) as e:
        df.select(F.st_srid("w")).collect()
    assert e.value.getErrorClass() == "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"


RECORD = ('{"type":"record","name":"r","fields":[{"name":"a","type":"int"},'
          '{"name":"b","type":["null","string"]}]}')


def test_to_avro_bytes(spark):
    from pyspark.sql.avro.functions import to_avro
    df = spark.createDataFrame([(1, "x"), (2, None)], "a int, b string")
    s = df.select(F.struct("a", "b").alias("s"))
    # Without a schema: the one Spark derives (nullable fields as [type, null] unions).
    assert [r[0].hex() for r in s.select(to_avro("s")).collect()] == ["0002000278", "000402"]
    # Under a given schema.
    assert [r[0].hex() for r in s.select(to_avro("s", RECORD)).collect()] == ["02020278", "0400"]
    assert [r[0].hex() for r in df.select(to_avro("a")).collect()] == ["0002", "0004"]
    one = spark.sql("SELECT 1.25BD d, DATE'2024-01-02' dt, TIMESTAMP_NTZ'2024-01-02 03:04:05' t, map('k', 1) m")
    r = one.select(to_avro("d"), to_avro("dt"), to_avro("t"), to_avro("m")).collect()[0]
    assert [x.hex() for x in r] == ["007d", "98b402", "80cdee84b8fb8606", "02026b0200"]


def test_from_avro_and_schema(spark):
    from pyspark.sql.avro.functions import from_avro, to_avro
    df = spark.createDataFrame([(1, "x"), (2, None)], "a int, b string")
    back = df.select(to_avro(F.struct("a", "b"), RECORD).alias("v")).select(from_avro("v", RECORD).alias("r"))
    assert back.schema["r"].dataType.simpleString() == "struct<a:int,b:string>"
    assert [tuple(r.r) for r in back.collect()] == [(1, "x"), (2, None)]
    bad = spark.createDataFrame([(bytes.fromhex("02"),)], "v binary")
    assert tuple(bad.select(from_avro("v", RECORD, {"mode": "PERMISSIVE"})).collect()[0][0]) == (None, None)
    with pytest.raises(Exception, match="Malformed records are detected in record parsing"):
        bad.select(from_avro("v", RECORD)).collect()
    with pytest.raises(AnalysisException) as e:
        bad.select(from_avro("v", RECORD, {"mode": "DROPMALFORMED"})).collect()
    assert e.value.getErrorClass() == "PARSE_MODE_UNSUPPORTED"
    ddl = spark.sql(f"SELECT schema_of_avro('{RECORD}')").collect()[0][0]
    assert ddl == "STRUCT<a: INT NOT NULL, b: STRING>"
