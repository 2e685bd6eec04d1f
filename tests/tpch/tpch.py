"""TPC-H through stock PySpark, checked against DuckDB on the same Parquet files.

The 22 query texts (queries/q01.sql … q22.sql) are the TPC-H specification's, with the
substitution parameters of its validation run, in Spark SQL's dialect (which DuckDB also reads).
This module generates the data (tpchgen-cli, Parquet, one file per table), registers each table
as a temp view over `spark.read.parquet`, runs a query with a time cap and compares its rows with
DuckDB's answer:

- numbers that are not both integers (decimals, doubles) match when they are within 0.01
  absolute (money is exact to the cent) or 1e-6 relative, integers exactly;
- dates, timestamps and strings exactly;
- rows in order when the query has an ORDER BY, else as multisets.

Used by tests/e2e/test_tpch.py (SF 0.1, against Weir) and bench/tpch.py (side by side).
"""
import datetime
import decimal
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

QUERY_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "queries")
QUERIES = list(range(1, 23))
TABLES = ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]

ABS_TOLERANCE = 0.01
REL_TOLERANCE = 1e-6


def query_text(n: int) -> str:
    """The text of query n (1…22), without its leading comment lines."""
    with open(os.path.join(QUERY_DIR, f"q{n:02d}.sql")) as f:
        lines = [l for l in f.read().splitlines() if not l.startswith("--")]
    return "\n".join(lines).strip()


def is_ordered(sql: str) -> bool:
    """Whether the query's result order is defined (its outermost query has an ORDER BY)."""
    return re.search(r"\border\s+by\b", sql, re.IGNORECASE) is not None


def data_root() -> str:
    """Where generated data lives: $WEIR_TPCH_DATA, else a directory under the temp dir."""
    return os.environ.get("WEIR_TPCH_DATA") or os.path.join(tempfile.gettempdir(), "weir-tpch")


def _tpchgen() -> str:
    exe = shutil.which("tpchgen-cli")
    if exe:
        return exe
    beside = os.path.join(os.path.dirname(sys.executable), "tpchgen-cli")
    if os.path.exists(beside):
        return beside
    raise RuntimeError("tpchgen-cli is not installed (pip install tpchgen-cli)")


def _sf_name(sf) -> str:
    return f"sf{sf:g}"


def ensure_data(sf, root: str = None) -> str:
    """The directory holding SF sf's tables as <table>.parquet, generated if absent.

    A directory with every table is reused; generation goes to a fresh directory renamed into
    place, so an interrupted run leaves nothing half-written behind.
    """
    root = root or data_root()
    out = os.path.join(root, _sf_name(sf))
    if all(os.path.exists(os.path.join(out, f"{t}.parquet")) for t in TABLES):
        return out
    os.makedirs(root, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{_sf_name(sf)}-", dir=root)
    try:
        subprocess.run([_tpchgen(), "parquet", "-s", f"{sf:g}", f"--output-dir={tmp}"],
                       check=True, stdout=subprocess.DEVNULL)
        missing = [t for t in TABLES if not os.path.exists(os.path.join(tmp, f"{t}.parquet"))]
        if missing:
            raise RuntimeError(f"tpchgen-cli wrote no {missing} under {tmp}")
        if os.path.exists(out):
            shutil.rmtree(out)
        os.rename(tmp, out)
    finally:
        if os.path.exists(tmp):
            shutil.rmtree(tmp)
    return out


def register_views(spark, data_dir: str) -> None:
    """Registers each table as a temp view over spark.read.parquet."""
    for t in TABLES:
        spark.read.parquet(os.path.join(data_dir, f"{t}.parquet")).createOrReplaceTempView(t)


class QueryTimeout(Exception):
    """A query ran past its time cap and was interrupted."""


def run_spark(spark, sql: str, timeout: float):
    """Runs sql on a Spark Connect session: (rows as tuples, seconds).

    Past timeout seconds a timer thread interrupts the session's operations
    (spark.interruptAll()) and QueryTimeout is raised.
    """
    fired = threading.Event()

    def interrupt():
        fired.set()
        try:
            spark.interruptAll()
        except Exception:  # the query may have ended meanwhile
            pass

    timer = threading.Timer(timeout, interrupt)
    timer.daemon = True
    start = time.monotonic()
    timer.start()
    try:
        rows = spark.sql(sql).collect()
    except Exception as e:
        if fired.is_set():
            raise QueryTimeout(f"interrupted after {timeout:g} s") from e
        raise
    finally:
        timer.cancel()
    elapsed = time.monotonic() - start
    if fired.is_set():
        raise QueryTimeout(f"interrupted after {timeout:g} s")
    return [tuple(r) for r in rows], elapsed


def duckdb_connection(data_dir: str):
    """A DuckDB connection with each table as a view over its Parquet file."""
    import duckdb

    con = duckdb.connect()
    for t in TABLES:
        path = os.path.join(data_dir, f"{t}.parquet").replace("'", "''")
        con.execute(f"create view {t} as select * from read_parquet('{path}')")
    return con


def run_duckdb(con, sql: str):
    """Runs sql on DuckDB: (rows as tuples, seconds)."""
    start = time.monotonic()
    rows = con.execute(sql).fetchall()
    return [tuple(r) for r in rows], time.monotonic() - start


def _is_number(v) -> bool:
    return isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool)


def values_match(want, got) -> bool:
    """Whether got matches want under the module's tolerance rules."""
    if want is None or got is None:
        return want is None and got is None
    if _is_number(want) and _is_number(got):
        if isinstance(want, int) and isinstance(got, int):
            return want == got
        a, b = float(want), float(got)
        diff = abs(a - b)
        return diff <= ABS_TOLERANCE or diff <= REL_TOLERANCE * max(abs(a), abs(b))
    if isinstance(want, datetime.datetime) or isinstance(got, datetime.datetime):
        return want == got
    if isinstance(want, datetime.date) and isinstance(got, datetime.date):
        return want == got
    return type(want) is type(got) and want == got


def _sort_key(row):
    # Multisets are compared sorted: numbers by value (rounded to the cent so tolerance-equal
    # values sort alike), other values by type and text.
    key = []
    for v in row:
        if v is None:
            key.append((0, ""))
        elif _is_number(v):
            key.append((1, round(float(v), 2)))
        else:
            key.append((2, str(v)))
    return key


def compare(want, got, ordered: bool):
    """The differences between DuckDB's rows (want) and the engine's (got), [] if none."""
    problems = []
    if len(want) != len(got):
        problems.append(f"{len(got)} rows, expected {len(want)}")
    if not ordered:
        want, got = sorted(want, key=_sort_key), sorted(got, key=_sort_key)
    for i, (w, g) in enumerate(zip(want, got)):
        if len(w) != len(g) or not all(values_match(a, b) for a, b in zip(w, g)):
            problems.append(f"row {i}: got {g!r}, expected {w!r}")
            if len(problems) >= 5:
                break
    return problems
