"""TPC-H at scale factor 0.1: the 22 queries through stock PySpark, each checked against DuckDB's
answer on the same Parquet files (tests/tpch/tpch.py states the comparison rules).

Data comes from tpchgen-cli (generated once under $WEIR_TPCH_DATA, default a temp directory).
Each query has a time cap ($WEIR_TPCH_TIMEOUT seconds, default 10): past it the session's
operations are interrupted and the case fails, so a plan that degenerates into a cross product
cannot hang the suite.

All 22 must match (issue 12's acceptance); no case is skipped or expected to fail.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tpch"))
import tpch  # noqa: E402

SCALE = 0.1
TIMEOUT = float(os.environ.get("WEIR_TPCH_TIMEOUT", "10"))

def _case(n):
    return pytest.param(n, id=f"q{n:02d}")


@pytest.fixture(scope="module")
def tpch_data():
    return tpch.ensure_data(SCALE)


@pytest.fixture(scope="module")
def tpch_spark(server, tpch_data):
    # A session of its own: the time cap interrupts all of a session's operations.
    from pyspark.sql import SparkSession

    session = SparkSession.builder.remote(server.url).create()
    tpch.register_views(session, tpch_data)
    yield session
    session.stop()


@pytest.fixture(scope="module")
def duck(tpch_data):
    con = tpch.duckdb_connection(tpch_data)
    yield con
    con.close()


@pytest.mark.parametrize("n", [_case(n) for n in tpch.QUERIES])
def test_tpch_query(tpch_spark, duck, n):
    sql = tpch.query_text(n)
    want, _ = tpch.run_duckdb(duck, sql)
    assert want, f"DuckDB answered q{n:02d} with no rows: the data is not TPC-H's"
    try:
        got, _ = tpch.run_spark(tpch_spark, sql, TIMEOUT)
    except tpch.QueryTimeout as e:
        pytest.fail(f"q{n:02d} {e}")
    problems = tpch.compare(want, got, tpch.is_ordered(sql))
    assert not problems, f"q{n:02d} differs from DuckDB:\n" + "\n".join(problems)
