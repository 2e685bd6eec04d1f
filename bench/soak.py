"""Crash soak: two checkpointed queries on one Weir server — rate-micro-batch → windowed
aggregation with a watermark → json file sink, and rate-micro-batch → dropDuplicates → json file
sink — while the server is SIGKILLed at random moments and restarted, for WEIR_SOAK_SECONDS.
Every WEIR_SOAK_VERIFY_EVERY kills (and at the end, after a clean last run) both sinks must hold
exactly the rows of their committed epochs: none missing, none twice. Run it with bench/soak.sh.

Environment: WEIR_SOAK_SECONDS (required), WEIR_SOAK_SEED (kill schedule), WEIR_SOAK_MAX_DELAY
(longest run before a kill, seconds, default 2.5), WEIR_SOAK_VERIFY_EVERY (default 10),
WEIR_SOAK_DIR (work directory, default a new temporary one), WEIR_BIN (the server binary)."""
import os
import random
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))

from conftest import start_server, stop_server  # noqa: E402
from crash_harness import check_dedup, check_window, dedup_query, drop, session, start_query, verify, window_query  # noqa: E402

QUERIES = {"window": (window_query, check_window), "dedup": (dedup_query, check_dedup)}


def main():
    seconds = float(os.environ["WEIR_SOAK_SECONDS"])
    seed = int(os.environ.get("WEIR_SOAK_SEED", random.randrange(1 << 30)))
    max_delay = float(os.environ.get("WEIR_SOAK_MAX_DELAY", "2.5"))
    verify_every = int(os.environ.get("WEIR_SOAK_VERIFY_EVERY", "10"))
    work = os.environ.get("WEIR_SOAK_DIR") or tempfile.mkdtemp(prefix="weir-soak-")
    # WEIR_SOAK_BUDGET (bytes) runs both queries under a state memory budget, so their state
    # spills to the scratch stores while the server is killed (e.g. 1: nearly all of it).
    budget = os.environ.get("WEIR_SOAK_BUDGET", "")
    rng = random.Random(seed)
    print(f"soak: {seconds:.0f} s, seed={seed}, max delay {max_delay} s, state budget {budget or 'none'}, "
          f"work dir {work}", flush=True)
    paths = {name: (os.path.join(work, name, "out"), os.path.join(work, name, "cp")) for name in QUERIES}
    ids = {}
    kills, verified, restarts = 0, 0, []
    began = time.time()
    while True:
        last = time.time() - began >= seconds
        t0 = time.time()
        server = start_server()
        try:
            spark = session(server)
            if budget:
                spark.conf.set("spark.sql.streaming.stateStore.weir.memoryBudgetBytes", budget)
            queries = {}
            for name, (build, _) in QUERIES.items():
                out, cp = paths[name]
                q = start_query(spark, out, cp, build, name=f"soak_{name}")
                assert ids.setdefault(name, q.id) == q.id, f"{name}: query id changed across restarts"
                queries[name] = q
            restarts.append(time.time() - t0)
            if last:
                for q in queries.values():
                    q.processAllAvailable()
                    assert q.exception() is None, q.exception()
                    q.stop()
                spark.stop()
                break
            time.sleep(rng.uniform(0.0, max_delay))
            for name, q in queries.items():
                e = q.exception() if not q.isActive else None
                assert e is None, f"{name} failed: {e}"
            os.kill(server.proc.pid, signal.SIGKILL)
            server.proc.wait(timeout=10)
            kills += 1
            drop(spark)
        finally:
            if server.proc.poll() is None:
                stop_server(server)
        if kills % verify_every == 0:
            for name, (_, check) in QUERIES.items():
                verify(paths[name][0], check, f"{name} after kill {kills} (seed={seed})")
            verified += 1
            print(f"soak: {kills} kills, {time.time() - began:.0f} s, sinks exact", flush=True)
    summary = []
    for name, (_, check) in QUERIES.items():
        epochs, rows = verify(paths[name][0], check, f"{name} at the end (seed={seed})")
        summary.append(f"{name}: {epochs + 1} epochs, {rows} rows")
    restarts.sort()
    print(f"soak passed: {kills} SIGKILLs in {time.time() - began:.0f} s (seed={seed}); "
          f"sinks verified exact {verified} times during the run and at the end; " + "; ".join(summary) +
          f"; server start + 2 query starts p50 {restarts[len(restarts) // 2]:.2f} s, max {restarts[-1]:.2f} s",
          flush=True)


if __name__ == "__main__":
    main()
