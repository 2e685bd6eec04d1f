"""Starts the real weir server binary and hands tests a stock PySpark Connect session."""
import os
import socket
import subprocess
import sys
import tempfile
import time

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, port: int, proc: subprocess.Popen, log_path: str):
        self.port = port
        self.proc = proc
        self.log_path = log_path
        self.url = f"sc://127.0.0.1:{port}"

    def log(self) -> str:
        with open(self.log_path) as f:
            return f.read()


def start_server(extra_args=(), env=None) -> Server:
    binary = os.environ.get("WEIR_BIN") or os.path.join(os.path.dirname(__file__), "../../bin/weir")
    port = _free_port()
    state = tempfile.mkdtemp(prefix="weir-e2e-")
    log_path = os.path.join(state, "server.log")
    log = open(log_path, "w")
    # The server's Python workers (foreachBatch, UDFs) run this interpreter: the tests' own,
    # with the same PySpark as the client, unless WEIR_WORKER_PYTHON names another (a server
    # whose workers run another PySpark release than the client's: scripts/client-compat.sh).
    worker_python = os.environ.get("WEIR_WORKER_PYTHON") or sys.executable
    python = [] if "--python" in extra_args else ["--python", worker_python]
    proc = subprocess.Popen(
        [binary, "--listen", f"127.0.0.1:{port}", "--state-dir", state, *python, *extra_args],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
    )
    deadline = time.time() + 30
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"weir exited early:\n{open(log_path).read()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return Server(port, proc, log_path)
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("weir did not start listening")


def rss_bytes(pid: int) -> int:
    """A process's resident set size in bytes (/proc/PID/status VmRSS)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) << 10
    raise AssertionError(f"no VmRSS for pid {pid}")


def stop_server(server: Server) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        raise


def serve(extra_args=()):
    """A server fixture's body: yields a started server, then stops it and checks it stopped cleanly."""
    s = start_server(extra_args)
    yield s
    stop_server(s)
    assert s.proc.returncode == 0, f"weir did not stop cleanly on SIGTERM:\n{s.log()}"


def session_of(server, default=False):
    """A session fixture's body: yields a PySpark Connect session to server (the client's default
    session when default, else a new one), then stops it."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.remote(server.url)
    session = builder.getOrCreate() if default else builder.create()
    yield session
    if not session.is_stopped:
        session.stop()


@pytest.fixture(scope="session")
def server():
    yield from serve()


@pytest.fixture(scope="session")
def spark(server):
    yield from session_of(server, default=True)
