"""A batch overwrite is atomic for readers and survives kill -9: the server is killed at random
moments of df.write.mode("overwrite"), and the output path must then hold the old or the new
output, whole (read directly with pyarrow, not through Weir); the restarted server removes what
the interrupted write left beside it."""
import os
import random
import subprocess
import sys
import time

import pyarrow.parquet as pq
from pyspark.sql import SparkSession

from conftest import start_server, stop_server

ROWS = 2_000_000

# Run as a file: PySpark's Connect client takes a "python -c" main module for a doctest run.
WRITER = """
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
print("writing", flush=True)
gen = int(sys.argv[3])
spark.range({rows}).selectExpr("id", f"{{gen}} AS gen").write.mode("overwrite").parquet(sys.argv[2])
print("written", flush=True)
"""


def _generations(path):
    """The gen values at path, with the row count; asserts a committed (complete) output."""
    assert "_SUCCESS" in os.listdir(path), sorted(os.listdir(path))
    table = pq.read_table(path)
    return sorted(set(table.column("gen").to_pylist())), table.num_rows


def test_kill_during_overwrite_leaves_old_or_new_output(tmp_path):
    seed = int(os.environ.get("WEIR_TEST_SEED", time.time_ns() % 1_000_000))
    print(f"seed {seed}")
    rng = random.Random(seed)
    state, out = tmp_path / "state", str(tmp_path / "out")
    writer_py = tmp_path / "writer.py"
    writer_py.write_text(WRITER.format(rows=ROWS))
    server = start_server(["--state-dir", str(state)])
    try:
        spark = SparkSession.builder.remote(server.url).create()
        spark.range(ROWS).selectExpr("id", "0 AS gen").write.parquet(out)
        spark.stop()
        # How long one overwrite takes here, to spread the kills over it.
        writer = subprocess.Popen([sys.executable, str(writer_py), server.url, out, "1"],
                                  stdout=subprocess.PIPE, text=True)
        assert writer.stdout.readline().strip() == "writing"
        start = time.time()
        assert writer.stdout.readline().strip() == "written"
        span = time.time() - start
        assert writer.wait(timeout=60) == 0
        assert _generations(out) == ([1], ROWS)
        print(f"one overwrite of {ROWS} rows: {span:.2f} s")
        current, outcomes = 1, []
        for gen in range(2, 8):
            writer = subprocess.Popen([sys.executable, str(writer_py), server.url, out, str(gen)],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            assert writer.stdout.readline().strip() == "writing"
            time.sleep(rng.uniform(0, span * 1.2))
            server.proc.kill()
            server.proc.wait()
            writer.kill()
            writer.wait()
            gens, rows = _generations(out)
            assert rows == ROWS and gens in ([current], [gen]), (gens, rows, current, gen)
            outcomes.append("new" if gens == [gen] else "old")
            current = gens[0]
            server = start_server(["--state-dir", str(state)])
            leftovers = [n for n in os.listdir(tmp_path) if n not in ("state", "out", "writer.py")]
            assert leftovers == [], leftovers
            assert os.listdir(state / "overwrites") == []
        print("outcomes", outcomes)
        spark = SparkSession.builder.remote(server.url).create()
        assert spark.read.parquet(out).selectExpr("count(*)", "min(gen)", "max(gen)").first() == (ROWS, current, current)
        spark.stop()
    finally:
        stop_server(server)
