"""Exactly-once across crashes: checkpointed rate-micro-batch → file sink queries (stateless,
windowed aggregation with a watermark, deduplication) survive repeated SIGKILLs of the server;
the sink ends up with exactly the rows of the committed epochs, none missing, none twice.

The seed of the kill schedule is printed (and can be fixed with WEIR_CRASH_SEED); the number of
kills per query is WEIR_CRASH_KILLS (default 20)."""
import os
import random
import signal
import time

import pytest

from conftest import start_server, stop_server
from crash_harness import CASES, drop, session, start_query, verify


@pytest.mark.parametrize("case", list(CASES))
def test_sigkill_loop_keeps_the_file_sink_exact(tmp_path, case):
    build, check = CASES[case]
    seed = int(os.environ.get("WEIR_CRASH_SEED", random.randrange(1 << 30)))
    kills = int(os.environ.get("WEIR_CRASH_KILLS", "20"))
    print(f"crash test {case}: seed={seed} kills={kills}")
    rng = random.Random(seed)
    out, cp = str(tmp_path / "out"), str(tmp_path / "cp")
    query_id, batches, run_ids = None, [], set()
    for i in range(kills + 1):
        server = start_server()
        try:
            spark = session(server)
            q = start_query(spark, out, cp, build)
            if query_id is None:
                query_id = q.id
            assert q.id == query_id, f"run {i}: query id {q.id}, the checkpoint's is {query_id}"
            assert q.runId not in run_ids
            run_ids.add(q.runId)
            if i == kills:
                # The last run ends cleanly after one more batch.
                q.processAllAvailable()
                progress = q.lastProgress
                assert progress is not None and progress["batchId"] >= max(batches, default=-1)
                q.stop()
                assert q.exception() is None
                spark.stop()
                break
            # Kill at a random moment: before the first batch, in the middle of one, between.
            time.sleep(rng.uniform(0.0, 1.2))
            progress = q.lastProgress
            if progress is not None:
                # Batch ids continue across restarts (a replayed batch keeps its id).
                assert not batches or progress["batchId"] >= batches[-1] - 1, (progress["batchId"], batches)
                batches.append(progress["batchId"])
            os.kill(server.proc.pid, signal.SIGKILL)
            server.proc.wait(timeout=10)
            drop(spark)
        finally:
            if server.proc.poll() is None:
                stop_server(server)

    last_epoch, _ = verify(out, check, f"{case} seed={seed}")
    # More than one epoch per run on average: the kills did interrupt a moving query.
    assert last_epoch >= kills, f"only {last_epoch + 1} epochs over {kills + 1} runs"
