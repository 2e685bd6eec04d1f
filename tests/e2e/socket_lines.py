"""A socket server for Spark's socket source: the query connects to it, and a test writes lines
when it chooses."""
import socket
import threading


class Lines:
    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.conn = None
        self.ready = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        self.conn, _ = self.sock.accept()
        self.ready.set()

    def send(self, *lines):
        """Writes lines (each given as an argument) once the source has connected."""
        if not lines:
            return
        assert self.ready.wait(10), "the socket source did not connect"
        self.conn.sendall("".join(line + "\n" for line in lines).encode())

    def close(self):
        if self.conn:
            self.conn.close()
        self.sock.close()
