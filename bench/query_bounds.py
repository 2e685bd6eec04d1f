"""Peak server RSS and wall time of one adversarial query (bench/RESULTS.md, "Bounded work per query").

Usage: python bench/query_bounds.py WEIR_BINARY CASE [RSS_CAP_BYTES] [TIME_CAP_S]
CASE: devzero | repartition<N> | sortbudget (20 M-row sort under a 64m budget) | sort (no budget set).
The server (own port, temporary state dir) is killed when it passes either cap."""
import os, socket, subprocess, sys, tempfile, threading, time
from pyspark.sql import SparkSession

binary, case = sys.argv[1], sys.argv[2]
cap_rss = int(sys.argv[3]) if len(sys.argv) > 3 else 3 << 30
cap_s = float(sys.argv[4]) if len(sys.argv) > 4 else 20
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
state = tempfile.mkdtemp()
proc = subprocess.Popen([binary, "--listen", f"127.0.0.1:{port}", "--state-dir", state],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", port)).close(); break
    except OSError:
        time.sleep(0.1)
def rss():
    with open(f"/proc/{proc.pid}/status") as f:
        for l in f:
            if l.startswith("VmRSS:"):
                return int(l.split()[1]) << 10
spark = SparkSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
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
