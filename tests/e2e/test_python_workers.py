"""The server's Python workers as processes: a worker that dies mid-batch fails its query clearly,
and no worker outlives its session or the server."""
import os
import signal
import time

import pytest
from pyspark.errors import PythonException
from pyspark.sql import SparkSession
from pyspark.sql.functions import pandas_udf, udf

from conftest import start_server, stop_server


def python_children(pid):
    """Processes below pid whose command line runs PySpark's workers or daemon."""
    children = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{p}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        children.setdefault(ppid, []).append((int(p), cmd))
    out, pending = [], [pid]
    while pending:
        for child, cmd in children.get(pending.pop(), []):
            pending.append(child)
            if b"pyspark" in cmd:
                out.append(child)
    return out


def wait_gone(pids, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        alive = [p for p in pids if os.path.exists(f"/proc/{p}") and not _zombie(p)]
        if not alive:
            return []
        time.sleep(0.05)
    return alive


def _zombie(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


@pytest.fixture
def own_server():
    server = start_server()
    yield server
    stop_server(server)


def test_a_worker_killed_mid_batch_fails_the_query_clearly(own_server):
    spark = SparkSession.builder.remote(own_server.url).create()
    try:
        @udf("long", useArrow=True)
        def die_at_7(x):
            if x == 7:
                os.kill(os.getpid(), signal.SIGKILL)
            return x

        with pytest.raises(Exception) as e:
            spark.range(20).select(die_at_7("id")).collect()
        msg = str(e.value)
        assert "Python worker" in msg and ("crashed" in msg or "exited" in msg), msg
        # The session goes on: the pool replaces the dead worker.
        @pandas_udf("long")
        def plus_one(s):
            return s + 1

        assert [r[0] for r in spark.range(3).select(plus_one("id")).collect()] == [1, 2, 3]
    finally:
        spark.stop()
    # The session is released: its pool and workers go.
    assert wait_gone(python_children(own_server.proc.pid)) == []


def test_a_raising_udf_reports_the_traceback_and_leaves_no_process(own_server):
    spark = SparkSession.builder.remote(own_server.url).create()
    try:
        @udf("long")
        def bad(x):
            raise ValueError(f"bad value {x}")

        with pytest.raises(PythonException) as e:
            spark.range(1).select(bad("id")).collect()
        assert "ValueError: bad value 0" in str(e.value) and "Traceback" in str(e.value)
        assert python_children(own_server.proc.pid), "the pool keeps its daemon while the session lives"
    finally:
        spark.stop()
    assert wait_gone(python_children(own_server.proc.pid)) == []


def test_kill_9_of_the_server_leaves_no_python_behind():
    server = start_server()
    spark = SparkSession.builder.remote(server.url).create()
    spark.client.disable_reattachable_execute()

    @pandas_udf("long")
    def plus_one(s):
        return s + 1

    assert spark.range(5).select(plus_one("id")).count() == 5
    pythons = python_children(server.proc.pid)
    assert pythons, "no Python worker ran"
    server.proc.send_signal(signal.SIGKILL)
    server.proc.wait(timeout=30)
    spark.client._channel.close()
    spark.client._closed = True
    assert wait_gone(pythons) == [], "Python processes outlived the killed server"


def test_a_segfaulting_udf_reports_the_fatal_error(own_server):
    """With spark.sql.execution.pyspark.udf.faulthandler.enabled the workers' faulthandler log is
    quoted when one dies of a fatal signal; without it (Spark's default) the error suggests the
    conf, as Spark's PythonRunner does."""
    spark = SparkSession.builder.remote(own_server.url).create()
    try:
        from pyspark.sql.types import StringType

        @udf(StringType())  # a DataType: a DDL string would need an active session to parse
        def segfault(x):
            import ctypes
            return ctypes.string_at(0)

        for enabled, expected in [("true", "Segmentation fault"), ("false", "Consider setting"), (None, "Consider setting")]:
            if enabled is None:
                spark.conf.unset("spark.sql.execution.pyspark.udf.faulthandler.enabled")
            else:
                spark.conf.set("spark.sql.execution.pyspark.udf.faulthandler.enabled", enabled)
            with pytest.raises(Exception) as e:
                spark.range(1).select(segfault("id")).collect()
            msg = str(e.value)
            assert "exited unexpectedly (crashed)" in msg and expected in msg, (enabled, msg)
        assert "for the better Python traceback" in msg
        assert spark.range(2).count() == 2
    finally:
        spark.stop()


def test_interrupt_stops_a_hanging_udf_and_its_worker(own_server):
    """A UDF that never returns is bounded by the query's interrupt: the operation ends and the
    worker running it is killed."""
    import threading

    spark = SparkSession.builder.remote(own_server.url).create()
    try:
        from pyspark.sql.types import LongType

        @udf(LongType())
        def hang(x):
            import time as t
            t.sleep(600)
            return x

        failure = []

        def run():
            try:
                spark.range(1).select(hang("id")).collect()
            except Exception as e:  # the interrupted operation
                failure.append(e)

        th = threading.Thread(target=run)
        th.start()
        deadline = time.time() + 30
        busy = []
        while time.time() < deadline and not busy:
            # the daemon and a forked worker running the task
            busy = [p for p in python_children(own_server.proc.pid) if _ppid(p) != own_server.proc.pid]
            time.sleep(0.1)
        assert busy, "no worker started"
        spark.interruptAll()
        th.join(timeout=30)
        assert not th.is_alive(), "the interrupted query did not end"
        assert failure and "cancel" in str(failure[0]).lower(), failure
        assert wait_gone(busy) == [], "the hanging worker was not killed"
        assert spark.range(3).count() == 3
    finally:
        spark.stop()


def _ppid(pid):
    """The parent of pid (the daemon's workers are its children; the daemon is the server's)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None
