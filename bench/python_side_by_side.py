"""Python on the server, Weir vs Apache Spark's own Connect server, same client script, one run
(bench/RESULTS.md, "Python on the server").

Usage: python bench/python_side_by_side.py WEIR_BINARY SPARK_HOME [ROWS] [EPOCHS]
SPARK_HOME is the `pyspark` package directory of a full PySpark install (it holds jars/ and
bin/spark-submit), e.g. a venv's site-packages/pyspark. Both servers run the client's own Python
(this interpreter) for their workers. Cases:
  pandas_udf: SELECT sum(plus_one(id)) over spark.range(ROWS) with a scalar @pandas_udf
  arrow_udf:  the same with @udf(useArrow=True)
  foreachBatch: EPOCHS one-file epochs of a JSON file stream whose function counts its batch;
                reported per epoch
Each case runs once to warm up (workers, JIT), then is timed once."""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
os.environ["WEIR_BIN"] = sys.argv[1]

import pandas as pd  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402
from pyspark.sql.functions import pandas_udf, udf  # noqa: E402
from pyspark.sql.types import LongType  # noqa: E402

from conftest import start_server, stop_server  # noqa: E402

spark_home = sys.argv[2]
rows = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000_000
epochs = int(sys.argv[4]) if len(sys.argv) > 4 else 30


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_spark():
    port = free_port()
    log = open(os.path.join(tempfile.mkdtemp(prefix="spark-connect-"), "server.log"), "w")
    env = {**os.environ, "SPARK_HOME": spark_home, "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable}
    proc = subprocess.Popen(
        [os.path.join(spark_home, "bin", "spark-submit"), "--class",
         "org.apache.spark.sql.connect.service.SparkConnectServer", "--master", "local[*]",
         "--conf", f"spark.connect.grpc.binding.port={port}", "--conf", "spark.ui.enabled=false",
         "--conf", "spark.driver.memory=4g", "spark-internal"],
        stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.time() + 180
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"Spark's server exited: see {log.name}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, f"sc://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError("Spark's server did not start")


@pandas_udf(LongType())  # DataTypes, not DDL strings: those need a session to parse
def plus_one(s: pd.Series) -> pd.Series:
    return s + 1


@udf(LongType(), useArrow=True)
def plus_one_arrow(x):
    return x + 1


def timed(f):
    f()  # warm-up
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def run_cases(spark):
    out = {}
    for name, fn in (("pandas_udf", plus_one), ("arrow_udf", plus_one_arrow)):
        out[name] = timed(lambda: spark.range(rows).select(F.sum(fn("id"))).collect()[0][0])
    src = tempfile.mkdtemp(prefix="fb-src-")
    log = os.path.join(tempfile.mkdtemp(prefix="fb-log-"), "counts")
    for i in range(epochs):
        with open(os.path.join(src, f"{i:04d}.json"), "w") as f:
            f.write("".join(json.dumps({"k": j}) + "\n" for j in range(100)))

    def count(batch_df, batch_id):
        n = batch_df.count()
        with open(log, "a") as f:
            f.write(f"{batch_id} {n}\n")

    def foreach_batch():
        if os.path.exists(log):
            os.remove(log)
        q = (spark.readStream.format("json").schema("k INT").option("maxFilesPerTrigger", 1).load(src)
             .writeStream.foreachBatch(count).trigger(availableNow=True).start())
        q.awaitTermination()
        return sum(int(line.split()[1]) for line in open(log))

    secs, n = timed(foreach_batch)
    out["foreachBatch (per epoch)"] = (secs / epochs, n)
    return out


results = {}
weir = start_server()
try:
    s = SparkSession.builder.remote(weir.url).getOrCreate()
    results["weir"] = run_cases(s)
    s.stop()
finally:
    stop_server(weir)
proc, url = start_spark()
try:
    s = SparkSession.builder.remote(url).getOrCreate()
    results["spark"] = run_cases(s)
    s.stop()
finally:
    proc.terminate()
    proc.wait(timeout=60)

print(f"rows={rows} epochs={epochs}")
print(f"{'case':28} {'Weir s':>10} {'Spark s':>10} {'Spark/Weir':>10}  answers")
for case in results["weir"]:
    (w, wa), (sp, sa) = results["weir"][case], results["spark"][case]
    assert wa == sa, f"{case}: Weir answered {wa}, Spark {sa}"
    print(f"{case:28} {w:10.4f} {sp:10.4f} {sp / w:10.2f}  {wa}")
