"""Destructive requests against a real server: refused, and nothing is harmed.

Runs ONLY inside scripts/sandbox.sh (a private mount namespace where everything but a fresh tmpfs
is read-only): scripts/test.sh runs it there after the normal e2e suite, which --ignore's it.
The servers it starts keep their state dir, HOME, working directory and data roots inside the
tmpfs; the requests overwrite "/", the state dir, $HOME, the working directory and paths outside
the data roots, read and checkpoint outside them. Should the server obey one, the sandbox turns
the damage into EROFS or confines it to the tmpfs, and the canary checks fail.
"""
import os
import shutil
import socket
import subprocess
import time

import pytest
from pyspark.errors import AnalysisException

SANDBOX = os.environ.get("WEIR_SANDBOX", "")


def _sandboxed() -> bool:
    """The process is in scripts/sandbox.sh's namespace: "/" is read-only, SANDBOX a writable tmpfs."""
    if not SANDBOX or not os.path.isdir(SANDBOX):
        return False
    if not os.statvfs("/").f_flag & os.ST_RDONLY:
        return False
    with open("/proc/self/mounts") as f:
        return any(line.split()[1] == SANDBOX and line.split()[2] == "tmpfs" for line in f)


if not _sandboxed():
    # Never send these requests to a server outside the sandbox.
    pytest.fail("test_sandbox_safety.py sends destructive requests: run it only through "
                "scripts/sandbox.sh DIR .venv/bin/python -m pytest tests/e2e/test_sandbox_safety.py "
                "(scripts/test.sh does)", pytrace=False)

PROTECTED = "PATH_NOT_ALLOWED.PROTECTED_PATH"
OUTSIDE = "PATH_NOT_ALLOWED.OUTSIDE_DATA_ROOTS"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Layout:
    """The machine as the server sees it, inside the tmpfs."""

    def __init__(self, base):
        self.base = base
        self.home = os.path.join(base, "home", "weir")
        self.work = os.path.join(base, "work")
        self.data = os.path.join(base, "data")
        self.outside = os.path.join(base, "outside")
        self.canary = os.path.join(base, "canary")
        self.logs = os.path.join(base, "logs")
        for d in (self.home, self.work, self.data, self.outside, self.canary, self.logs):
            os.makedirs(d, exist_ok=True)
        for path, text in ((os.path.join(self.canary, "alive.txt"), "canary\n"),
                           (os.path.join(self.home, ".profile"), "home\n"),
                           (os.path.join(self.work, "keep.txt"), "work\n"),
                           (os.path.join(self.outside, "secret.json"), '{"v": 1}\n'),
                           (os.path.join(self.data, "in.json"), '{"v": 2}\n')):
            with open(path, "w") as f:
                f.write(text)


def _tree(path):
    out = []
    for root, dirs, files in os.walk(path):
        out += [os.path.join(root, n) for n in dirs + files]
    return sorted(out)


class Server:
    def __init__(self, layout, name, roots):
        self.state = os.path.join(layout.base, name + "-state")
        os.makedirs(self.state)
        with open(os.path.join(self.state, "precious.txt"), "w") as f:
            f.write("state\n")
        binary = os.environ.get("WEIR_BIN") or os.path.join(os.path.dirname(__file__), "../../bin/weir")
        self.port = _free_port()
        self.log_path = os.path.join(layout.logs, name + ".log")
        args = [os.path.abspath(binary), "--listen", f"127.0.0.1:{self.port}", "--state-dir", self.state]
        for r in roots:
            args += ["--data-root", r]
        env = {k: v for k, v in os.environ.items() if k != "WEIR_DATA_ROOTS"}
        env["HOME"] = layout.home
        self.proc = subprocess.Popen(args, cwd=layout.work, env=env, stdout=open(self.log_path, "w"),
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("weir exited early:\n" + open(self.log_path).read())
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    break
            except OSError:
                if time.time() > deadline:
                    self.proc.kill()
                    raise RuntimeError("weir did not start listening")
                time.sleep(0.05)
        self.state_before = _tree(self.state)
        from pyspark.sql import SparkSession
        self.spark = SparkSession.builder.remote(f"sc://127.0.0.1:{self.port}").create()

    def stop(self):
        self.spark.stop()
        self.proc.terminate()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def layout():
    return Layout(os.path.join(SANDBOX, "machine"))


@pytest.fixture(scope="module")
def rooted(layout):
    s = Server(layout, "rooted", [layout.data])
    yield s
    s.stop()


@pytest.fixture(scope="module")
def unrooted(layout):
    s = Server(layout, "unrooted", [])
    yield s
    s.stop()


def refused(condition, action):
    with pytest.raises(AnalysisException) as e:
        action()
    assert e.value.getCondition() == condition, str(e.value)
    assert e.value.getSqlState() == "42501"
    return str(e.value)


def overwrite(spark, path):
    return lambda: spark.range(3).write.mode("overwrite").parquet(path)


def assert_intact(layout, server):
    assert open(os.path.join(layout.canary, "alive.txt")).read() == "canary\n"
    assert open(os.path.join(layout.home, ".profile")).read() == "home\n"
    assert open(os.path.join(layout.work, "keep.txt")).read() == "work\n"
    assert open(os.path.join(layout.outside, "secret.json")).read() == '{"v": 1}\n'
    assert open(os.path.join(server.state, "precious.txt")).read() == "state\n"
    after = set(_tree(server.state))
    assert set(server.state_before) <= after, set(server.state_before) - after
    assert os.listdir(layout.outside) == ["secret.json"]


def test_rooted_server_refuses_destruction(layout, rooted):
    spark = rooted.spark
    msg = refused(PROTECTED, overwrite(spark, "/"))
    assert "file:/" in msg and "filesystem root" in msg
    refused(PROTECTED, overwrite(spark, "file:///"))
    refused(PROTECTED, overwrite(spark, rooted.state))
    refused(PROTECTED, overwrite(spark, layout.home))
    refused(PROTECTED, overwrite(spark, layout.work))
    refused(PROTECTED, overwrite(spark, os.path.dirname(layout.home)))
    refused(PROTECTED, overwrite(spark, layout.data))
    refused(PROTECTED, overwrite(spark, os.path.join(layout.data, "..", "canary", "..")))
    msg = refused(OUTSIDE, overwrite(spark, layout.canary))
    assert "file:" + layout.canary in msg and "--data-root" in msg and "file:" + layout.data in msg
    assert_intact(layout, rooted)


def test_rooted_server_refuses_reads_writes_and_checkpoints_outside(layout, rooted):
    spark = rooted.spark
    secret = os.path.join(layout.outside, "secret.json")
    refused(OUTSIDE, lambda: spark.read.json(secret).collect())
    refused(OUTSIDE, lambda: spark.read.schema("v BIGINT").json(secret).collect())
    refused(OUTSIDE, lambda: spark.read.json(os.path.join(layout.data, "..", "outside", "*.json")).collect())
    refused(OUTSIDE, lambda: spark.range(1).write.json(os.path.join(layout.outside, "new")))
    refused(PROTECTED, lambda: spark.range(1).write.mode("append").json(os.path.join(rooted.state, "x")))
    refused(PROTECTED, lambda: spark.read.text("/proc/self/environ").collect())
    stream = spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 1).load()
    refused(OUTSIDE, lambda: stream.writeStream.format("noop")
            .option("checkpointLocation", os.path.join(layout.outside, "cp")).start())
    refused(OUTSIDE, lambda: stream.writeStream.format("json")
            .option("checkpointLocation", os.path.join(layout.data, "cp"))
            .start(os.path.join(layout.outside, "sink")))
    spark.conf.set("spark.sql.streaming.checkpointLocation", os.path.join(layout.outside, "cps"))
    try:
        refused(OUTSIDE, lambda: stream.writeStream.format("memory").queryName("q").start())
    finally:
        spark.conf.unset("spark.sql.streaming.checkpointLocation")
    refused(OUTSIDE, lambda: spark.readStream.format("text").load(layout.outside).schema)
    assert_intact(layout, rooted)
    # Inside the root everything works.
    out = os.path.join(layout.data, "out")
    spark.range(3).write.parquet(out)
    spark.range(5).write.mode("overwrite").parquet(out)
    assert sorted(r.id for r in spark.read.parquet(out).collect()) == list(range(5))
    assert [r.v for r in spark.read.json(os.path.join(layout.data, "in.json")).collect()] == [2]


def test_server_without_roots_still_refuses_destruction(layout, unrooted):
    spark = unrooted.spark
    refused(PROTECTED, overwrite(spark, "/"))
    refused(PROTECTED, overwrite(spark, "/etc"))
    refused(PROTECTED, overwrite(spark, unrooted.state))
    refused(PROTECTED, overwrite(spark, os.path.join(unrooted.state, "artifacts")))
    refused(PROTECTED, overwrite(spark, layout.home))
    refused(PROTECTED, overwrite(spark, layout.work))
    refused(PROTECTED, overwrite(spark, SANDBOX))
    assert_intact(layout, unrooted)
    # Without roots, an ordinary directory may be written and replaced.
    out = os.path.join(layout.base, "scratch", "out")
    spark.range(2).write.parquet(out)
    spark.range(4).write.mode("overwrite").parquet(out)
    assert spark.read.parquet(out).count() == 4
    shutil.rmtree(os.path.join(layout.base, "scratch"))
