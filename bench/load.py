"""Load test: many PySpark sessions and streaming queries on one Weir server, then a check that the
server gives back what they took.

32 sessions (4 client processes x 8 threads) run small batch queries for WEIR_LOAD_SECONDS
(default 60) while 8 sessions each start and stop a streaming query 50 times (WEIR_LOAD_CYCLES).
Before and after, with every client session stopped, the server's goroutines (its
--debug-listen pprof endpoint), open file descriptors and RSS (/proc) are read; afterwards each
must be within 10% of before (RSS: of before, or of before plus 16 MiB, whichever is larger, as
the Go heap keeps a little headroom once grown). Prints the figures as a Markdown table row for
bench/RESULTS.md and exits 1 if a bound is missed. Run it with bench/load.sh."""
import multiprocessing
import os
import re
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

from conftest import _free_port, rss_bytes, start_server, stop_server  # noqa: E402

SESSIONS_PROCS, SESSIONS_PER_PROC = 4, 8
STREAMS = 8


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.read().decode()


def snapshot(server, debug: str) -> dict:
    _get(f"{debug}/debug/pprof/heap?gc=1&debug=1")  # a GC first, so RSS is not a stale heap
    total = re.search(r"goroutine profile: total (\d+)", _get(f"{debug}/debug/pprof/goroutine?debug=1"))
    pid = server.proc.pid
    return {"goroutines": int(total.group(1)), "fds": len(os.listdir(f"/proc/{pid}/fd")),
            "rss_mib": rss_bytes(pid) / (1 << 20)}


def run_threads(run, n: int) -> None:
    """Runs run(0) … run(n-1) on n threads and waits for all of them."""
    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def batch_worker(url: str, seconds: float, counts) -> None:
    """One client process: SESSIONS_PER_PROC threads, a session each, small queries until time."""
    from pyspark.sql import SparkSession, functions as F

    def run(i: int) -> None:
        spark = SparkSession.builder.remote(url).create()
        end, n = time.time() + seconds, 0
        while time.time() < end:
            k = n % 4
            if k == 0:
                assert spark.range(1000).agg(F.sum("id")).first()[0] == 499500
            elif k == 1:
                assert spark.sql("SELECT count(*) FROM range(10000) WHERE id % 7 = 3").first()[0] == 1429
            elif k == 2:
                df = spark.createDataFrame([(j, f"n{j}") for j in range(100)], ["a", "b"])
                assert df.filter("a > 49").count() == 50
            else:
                rows = spark.range(200).groupBy((F.col("id") % 10).alias("k")).count().collect()
                assert len(rows) == 10
            n += 1
        spark.stop()
        counts.put(n)

    run_threads(run, SESSIONS_PER_PROC)


def stream_worker(url: str, cycles: int, counts) -> None:
    """One client process: STREAMS threads, a session each, starting and stopping a query."""
    from pyspark.sql import SparkSession

    def run(i: int) -> None:
        spark = SparkSession.builder.remote(url).create()
        for c in range(cycles):
            q = (spark.readStream.format("rate").option("rowsPerSecond", 1000).load()
                 .selectExpr("value % 10 AS k").groupBy("k").count()
                 .writeStream.format("memory").queryName(f"load_{i}").outputMode("complete").start())
            deadline = time.time() + 30
            while q.lastProgress is None and time.time() < deadline:
                time.sleep(0.02)
            assert q.lastProgress is not None, "no progress in 30 s"
            q.stop()
        spark.stop()
        counts.put(cycles)

    run_threads(run, STREAMS)


def main() -> int:
    seconds = float(os.environ.get("WEIR_LOAD_SECONDS", "60"))
    cycles = int(os.environ.get("WEIR_LOAD_CYCLES", "50"))
    debug_port = _free_port()
    debug = f"http://127.0.0.1:{debug_port}"
    server = start_server(["--debug-listen", f"127.0.0.1:{debug_port}"])
    try:
        # Warm-up: one of each kind, so lazily built server parts are in the baseline.
        warm = multiprocessing.Queue()
        for target, arg in ((batch_worker, 1.0), (stream_worker, 1)):
            p = multiprocessing.Process(target=target, args=(server.url, arg, warm))
            p.start()
            p.join()
            assert p.exitcode == 0, f"warm-up {target.__name__} failed"
        time.sleep(2)
        before = snapshot(server, debug)
        print("before", before, flush=True)
        counts = multiprocessing.Queue()
        procs = [multiprocessing.Process(target=batch_worker, args=(server.url, seconds, counts))
                 for _ in range(SESSIONS_PROCS)]
        procs.append(multiprocessing.Process(target=stream_worker, args=(server.url, cycles, counts)))
        began = time.time()
        for p in procs:
            p.start()
        peak = dict(before)
        while any(p.is_alive() for p in procs):
            time.sleep(2)
            s = snapshot(server, debug)
            peak = {k: max(peak[k], s[k]) for k in peak}
        elapsed = time.time() - began
        failed = [p.exitcode for p in procs if p.exitcode != 0]
        queries = 0
        while not counts.empty():
            queries += counts.get()
        streams = STREAMS * cycles
        batch_queries = queries - streams
        # Sessions released by the clients go at once; give stopped queries' goroutines a moment.
        after = snapshot(server, debug)
        for _ in range(30):
            if within(before, after):
                break
            time.sleep(1)
            after = snapshot(server, debug)
        print("peak", peak, flush=True)
        print("after", after, flush=True)
        ok = within(before, after) and not failed
        print(f"| {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} | {seconds:.0f} s, "
              f"{SESSIONS_PROCS * SESSIONS_PER_PROC} sessions: {batch_queries} batch queries "
              f"({batch_queries / elapsed:.0f}/s); {streams} streaming starts/stops | "
              f"goroutines {before['goroutines']} → peak {peak['goroutines']} → {after['goroutines']} | "
              f"fds {before['fds']} → {peak['fds']} → {after['fds']} | "
              f"RSS {before['rss_mib']:.0f} → {peak['rss_mib']:.0f} → {after['rss_mib']:.0f} MiB | "
              f"{'within 10%' if ok else 'MISSED'} |")
        if failed:
            print(f"client processes failed: {failed}", file=sys.stderr)
        return 0 if ok else 1
    finally:
        stop_server(server)


def within(before: dict, after: dict) -> bool:
    return (after["goroutines"] <= before["goroutines"] * 1.1
            and after["fds"] <= before["fds"] * 1.1
            and after["rss_mib"] <= max(before["rss_mib"] * 1.1, before["rss_mib"] + 16))


if __name__ == "__main__":
    sys.exit(main())
