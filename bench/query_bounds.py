"""Peak server RSS and wall time of one adversarial query (bench/RESULTS.md, "Bounded work per query").

Usage: python bench/query_bounds.py WEIR_BINARY CASE [RSS_CAP_BYTES] [TIME_CAP_S]
CASE: devzero | repartition<N> | sortbudget (20 M-row sort under a 64m budget) | sort (no budget set).
The server (own port, temporary state dir) is killed when it passes either cap."""
import os, sys, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
os.environ["WEIR_BIN"] = sys.argv[1]

from pyspark.sql import SparkSession  # noqa: E402

from conftest import rss_bytes, start_server  # noqa: E402

case = sys.argv[2]
cap_rss = int(sys.argv[3]) if len(sys.argv) > 3 else 3 << 30
cap_s = float(sys.argv[4]) if len(sys.argv) > 4 else 20
server = start_server()
proc = server.proc


def rss():
    return rss_bytes(proc.pid)


spark = SparkSession.builder.remote(server.url).getOrCreate()
spark.range(1).count()
base = rss()
result = {}
def run():
    t0 = time.time()
    try:
        if case == "devzero":
            result["out"] = spark.read.text("/dev/zero").count()
        elif case.startswith("repartition"):
            n = int(case[len("repartition"):])
            result["out"] = spark.range(10).repartition(n).count()
        elif case == "sortbudget":
            spark.conf.set("spark.weir.query.memoryBudgetBytes", "64m")
            result["out"] = spark.range(0, 20_000_000).orderBy("id", ascending=False).limit(1).collect()
        elif case == "sort":
            result["out"] = spark.range(0, 20_000_000).orderBy("id", ascending=False).limit(1).collect()
    except Exception as e:
        result["err"] = f"{type(e).__name__}: {str(e)[:300]}"
    result["t"] = time.time() - t0
th = threading.Thread(target=run, daemon=True); th.start()
peak, t0, killed = base, time.time(), False
while th.is_alive():
    r = rss(); peak = max(peak, r)
    if r > cap_rss or time.time() - t0 > cap_s:
        killed = True; proc.kill(); break
    time.sleep(0.05)
th.join(5)
alive = proc.poll() is None
if alive:
    ok = spark.range(3).count() == 3
    after = rss()
else:
    ok, after = False, 0
print(f"case={case} base_rss={base>>20}MiB peak_rss={peak>>20}MiB after_rss={after>>20}MiB time={result.get('t', time.time()-t0):.2f}s "
      f"killed_at_cap={killed} server_answers_after={ok} out={result.get('out')} err={result.get('err')}", flush=True)
if alive:
    proc.kill()
os._exit(0)
