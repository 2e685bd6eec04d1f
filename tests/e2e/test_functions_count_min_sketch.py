"""count_min_sketch through pyspark.sql.functions, with the bytes Apache Spark 4.2's own Connect
server gives for the same DataFrames (compared side by side once; SQL-level cases are in
sql/expr/agg_count_min_sketch_test.go)."""
import hashlib

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F


def _sha(b):
    return hashlib.sha256(bytes(b)).hexdigest()


def test_count_min_sketch_bytes_match_spark(spark):
    df = spark.range(0, 20000, 1, 4)
    # Four partitions: partial sketches whose counts the final step adds.
    r = df.agg(F.count_min_sketch(F.col("id") % 100, F.lit(0.01), F.lit(0.95), 7).alias("c"))
    assert r.columns == ["c"]
    assert _sha(r.collect()[0][0]) == "c816070239d89b980ee1f09a6d4af7cd4f7ab14bc17e9f5445ce2d4e7eeffa10"
    per = df.groupBy((F.col("id") % 2).alias("k")) \
        .agg(F.count_min_sketch(F.col("id").cast("string"), F.lit(0.1), F.lit(0.9), 3).alias("c")).orderBy("k")
    assert [(x.k, _sha(x.c)) for x in per.collect()] == [
        (0, "a1970bb63d74aa834a44d57d430abb2ecd599b99e20f566b2dd227732e9bd4cc"),
        (1, "2ea3026786c3485e2480ce8285075db1199731fdf2071bfc8258c1a770337851")]
    ints = spark.createDataFrame([(1,), (2,), (1,), (None,)], "x int")
    assert ints.agg(F.hex(F.count_min_sketch("x", F.lit(0.5), F.lit(0.5), 1))).collect()[0][0] == (
        "0000000100000000000000030000000100000004000000005D8D6AB9"
        "0000000000000000000000000000000200000000000000010000000000000000")
    with pytest.raises(AnalysisException) as e:
        spark.range(1).agg(F.count_min_sketch("id", F.lit(0.0), F.lit(0.5), 1)).collect()
    assert e.value.getErrorClass() == "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE"
