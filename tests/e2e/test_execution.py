"""Execution control: interrupting a running query, and reattaching to a cut result stream."""
import socket
import threading
import time

import pytest
from pyspark.sql import SparkSession


def test_interrupt_all_stops_long_query(spark):
    errors = []

    def run():
        try:
            spark.range(10**13).selectExpr("count(*) AS n").collect()
        except Exception as e:  # the interrupted RPC surfaces as an exception
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    interrupted = []
    deadline = time.time() + 20
    while not interrupted and time.time() < deadline:
        time.sleep(0.2)
        interrupted = spark.interruptAll()
    t.join(timeout=30)
    assert interrupted, "interruptAll found no running operation"
    assert not t.is_alive(), "query kept running after interruptAll"
    assert errors, "interrupted query returned normally"
    assert spark.range(3).count() == 3


def test_interrupt_by_tag(spark):
    errors = []

    def run():
        spark.addTag("weir-long")
        try:
            spark.range(10**13).selectExpr("max(id)").collect()
        except Exception as e:
            errors.append(e)
        finally:
            spark.removeTag("weir-long")

    t = threading.Thread(target=run)
    t.start()
    ids = []
    deadline = time.time() + 20
    while not ids and time.time() < deadline:
        time.sleep(0.2)
        ids = spark.interruptTag("weir-long")
    t.join(timeout=30)
    assert ids and not t.is_alive() and errors


class CuttingProxy:
    """A TCP proxy that cuts the first connection after `cut_after` bytes from the server, then
    forwards later connections untouched: a stream cut mid-result."""

    def __init__(self, upstream_port: int, cut_after: int):
        self.upstream_port = upstream_port
        self.cut_after = cut_after
        self.cuts = 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            limit = self.cut_after if self.cuts == 0 else None
            threading.Thread(target=self._pipe, args=(client, upstream, None), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, limit), daemon=True).start()

    def _pipe(self, src, dst, limit):
        sent = 0
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
                sent += len(data)
                if limit is not None and sent >= limit:
                    self.cuts += 1
                    break
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        self.closed = True
        self.sock.close()


def test_reattach_after_cut_stream_delivers_every_row_once(server):
    proxy = CuttingProxy(server.port, cut_after=3 * 1024 * 1024)
    try:
        session = SparkSession.builder.remote(f"sc://127.0.0.1:{proxy.port}").create()
        n = 2_000_000
        rows = session.range(n).selectExpr("id", "id * 2 AS twice").toPandas()
        assert proxy.cuts >= 1, "the proxy never cut the stream"
        assert len(rows) == n
        assert rows["id"].tolist() == list(range(n))
        assert (rows["twice"] == rows["id"] * 2).all()
        session.stop()
    finally:
        proxy.close()
