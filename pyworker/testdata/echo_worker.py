# A test worker for package pyworker: connects back the way PySpark's workers do
# (pyspark.worker_util.get_sock_file_to_executor) and serves commands framed with
# pyspark.serializers until its socket closes.
#
#   "echo"  + int + long + UTF  -> the same int, long and UTF back
#   "raise" + UTF message       -> PYTHON_EXCEPTION_THROWN (-2) + traceback (handle_worker_exception)
#   "crash"                     -> exits at once without answering
#   "hang"                      -> sleeps without answering
import os
import sys
import time

from pyspark.serializers import UTF8Deserializer, read_int, read_long, write_int, write_long, write_with_length
from pyspark.util import handle_worker_exception
from pyspark.worker_util import get_sock_file_to_executor

utf8 = UTF8Deserializer()


def serve(f):
    while True:
        try:
            cmd = utf8.loads(f)
        except EOFError:
            return
        if cmd == "echo":
            i, l, s = read_int(f), read_long(f), utf8.loads(f)
            write_int(i, f)
            write_long(l, f)
            write_with_length(s.encode("utf-8"), f)
        elif cmd == "raise":
            msg = utf8.loads(f)
            try:
                raise ValueError(msg)
            except Exception as e:
                handle_worker_exception(e, f)
        elif cmd == "crash":
            os._exit(3)
        elif cmd == "hang":
            time.sleep(3600)
        f.flush()


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(__file__))
    with get_sock_file_to_executor(timeout=None) as sock_file:
        serve(sock_file)
