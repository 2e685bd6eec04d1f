"""percentile_cont / percentile_disc WITHIN GROUP (ORDER BY …), with the values and names Apache
Spark 4.2's own Connect server gives for the same queries (checked side by side)."""
import datetime

import pytest
from pyspark.errors import AnalysisException


def test_percentiles_within_group_match_spark(spark):
    df = spark.sql(
        "SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY x), percentile_disc(0.25) WITHIN GROUP (ORDER BY x), "
        "percentile_cont(0.25) WITHIN GROUP (ORDER BY x DESC), percentile_disc(0.25) WITHIN GROUP (ORDER BY x DESC) "
        "FROM VALUES (1), (2), (3), (4), (null) AS t(x)")
    assert df.columns == [
        "percentile_cont(0.25) WITHIN GROUP (ORDER BY x)", "percentile_disc(0.25) WITHIN GROUP (ORDER BY x)",
        "percentile_cont(0.25) WITHIN GROUP (ORDER BY x DESC)", "percentile_disc(0.25) WITHIN GROUP (ORDER BY x DESC)"]
    assert tuple(df.collect()[0]) == (1.75, 1.0, 3.25, 4.0)
    rows = spark.sql(
        "SELECT k, percentile_cont(0.4) WITHIN GROUP (ORDER BY x), percentile_disc(0.4) WITHIN GROUP (ORDER BY x) "
        "FROM VALUES (1, 1), (1, 5), (2, 3), (2, 7), (2, 8) AS t(k, x) GROUP BY k ORDER BY k").collect()
    assert [tuple(r) for r in rows] == [(1, 2.6, 1.0), (2, 6.2, 7.0)]
    row = spark.sql(
        "SELECT percentile_cont(array(0.25, 0.5)) WITHIN GROUP (ORDER BY x), "
        "percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE x > 1) FROM VALUES (1), (2), (3) AS t(x)").collect()[0]
    assert tuple(row) == ([1.5, 2.0], 2.5)
    row = spark.sql("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) "
                    "FROM VALUES (INTERVAL '1' DAY), (INTERVAL '2' DAY) AS t(x)").collect()[0]
    assert row[0] == datetime.timedelta(days=1, seconds=43200)


def test_percentile_cont_needs_within_group(spark):
    with pytest.raises(AnalysisException, match="WITHIN_GROUP_MISSING"):
        spark.sql("SELECT percentile_cont(0.5) FROM VALUES (1) AS t(x)").collect()
    with pytest.raises(AnalysisException, match="VALUE_OUT_OF_RANGE"):
        spark.sql("SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY x) FROM VALUES (1) AS t(x)").collect()
