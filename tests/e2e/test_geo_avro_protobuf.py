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


def _person_descriptor():
    """A FileDescriptorSet built with protobuf's descriptor_pb2 (proto3, package weir.test), and
    the Python message class protobuf makes from it: the oracle for the bytes, an implementation
    independent of Weir's Go one (Spark's spark-protobuf module is not on Maven Central for 4.2)."""
    from google.protobuf import descriptor_pb2, descriptor_pool
    from google.protobuf.message_factory import GetMessageClass
    F = descriptor_pb2.FieldDescriptorProto
    fd = descriptor_pb2.FileDescriptorProto(name="weir_test.proto", package="weir.test", syntax="proto3")
    fd.enum_type.add(name="Color", value=[descriptor_pb2.EnumValueDescriptorProto(name="RED", number=0),
                                          descriptor_pb2.EnumValueDescriptorProto(name="GREEN", number=1)])
    fd.message_type.add(name="Inner").field.add(name="x", number=1, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    m = fd.message_type.add(name="Person")
    m.field.add(name="name", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    m.field.add(name="age", number=2, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
    m.field.add(name="tags", number=3, type=F.TYPE_STRING, label=F.LABEL_REPEATED)
    m.field.add(name="color", number=4, type=F.TYPE_ENUM, type_name=".weir.test.Color", label=F.LABEL_OPTIONAL)
    m.field.add(name="inner", number=5, type=F.TYPE_MESSAGE, type_name=".weir.test.Inner", label=F.LABEL_OPTIONAL)
    ds = descriptor_pb2.FileDescriptorSet(file=[fd])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return ds.SerializeToString(), GetMessageClass(pool.FindMessageTypeByName("weir.test.Person"))


def test_protobuf_round_trip_bytes(spark):
    from pyspark.sql.protobuf.functions import from_protobuf, to_protobuf
    desc, Person = _person_descriptor()
    want = Person(name="ann", age=7, tags=["a", "b"], color=1)
    want.inner.x = 5
    df = spark.createDataFrame([("ann", 7, ["a", "b"], "GREEN", 5), ("bob", None, [], None, None)],
                               "name string, age int, tags array<string>, color string, x long")
    s = df.select(F.struct("name", "age", "tags", "color",
                           F.when(F.col("x").isNotNull(), F.struct("x")).alias("inner")).alias("p"))
    out = s.select(to_protobuf("p", "weir.test.Person", binaryDescriptorSet=desc).alias("b")).collect()
    assert out[0].b == want.SerializeToString()
    assert out[1].b == Person(name="bob").SerializeToString()
    back = spark.createDataFrame([(want.SerializeToString(),), (b"\x0a\x05",)], "b binary")
    r = back.select(from_protobuf("b", "Person", binaryDescriptorSet=desc,
                                  options={"mode": "PERMISSIVE"}).alias("p")).collect()
    assert r[0].p.asDict(recursive=True) == {"name": "ann", "age": 7, "tags": ["a", "b"], "color": "GREEN", "inner": {"x": 5}}
    assert r[1].p is None
    with pytest.raises(Exception, match="MALFORMED_PROTOBUF_MESSAGE"):
        back.select(from_protobuf("b", "Person", binaryDescriptorSet=desc)).collect()


def test_protobuf_descriptor_file_through_policy(spark, tmp_path):
    desc, Person = _person_descriptor()
    path = tmp_path / "person.desc"
    path.write_bytes(desc)
    hexmsg = Person(name="cy", age=3).SerializeToString().hex()
    r = spark.sql(f"SELECT from_protobuf(X'{hexmsg}', 'Person', '{path}').name AS n").collect()[0]
    assert r.n == "cy"
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"SELECT from_protobuf(X'{hexmsg}', 'Person', '/proc/self/environ')").collect()
    assert e.value.getErrorClass().startswith("PATH_NOT_ALLOWED")
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"SELECT from_protobuf(X'{hexmsg}', 'Person', '{tmp_path}/missing.desc')").collect()
    assert e.value.getErrorClass() == "PROTOBUF_DESCRIPTOR_FILE_NOT_FOUND"


def test_spatial_values_from_the_client_and_type_rules(spark):
    df = spark.createDataFrame([(Geometry.fromWKB(POINT, 3857), Geography.fromWKB(POINT, 4326))],
                               "g geometry(3857), h geography(4326)")
    assert [f.dataType for f in df.schema.fields] == [GeometryType(3857), GeographyType(4326)]
    r = df.select(F.st_srid("g"), F.st_asbinary("h"), F.typeof(F.coalesce("g", F.st_geomfromwkb(F.lit(POINT))))).collect()[0]
    assert tuple(r) == (3857, POINT, "geometry(any)")
    with pytest.raises(AnalysisException) as e:
        df.select(F.col("g") == F.col("g")).collect()
    assert e.value.getErrorClass() == "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE"
    with pytest.raises(AnalysisException) as e:
        df.select(F.col("g").cast("string")).collect()
    assert e.value.getErrorClass() == "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION"
