"""TPC-H side by side: the 22 queries (tests/tpch/queries) against several Spark Connect servers
and DuckDB on the same Parquet files.

    python bench/tpch.py --sf 1 weir=sc://127.0.0.1:15002 spark=sc://127.0.0.1:15102 \
        sail=sc://127.0.0.1:50051 [--timeout 300] [--queries 1,3,6]

Servers are started beforehand (Weir: bin/weir; Apache Spark's Connect server; LakeSail Sail:
`sail spark server --port P`); the first one named is the one the ratios are of. For each
server and query it prints seconds (a query past --timeout is interrupted and reported as
such; a query whose rows differ from DuckDB's is reported as wrong, with its time), then the
totals over the queries every server answered correctly, each server's peak RSS (VmHWM of the
process listening on the URL's port, or of the pid given as name=url#pid) and a markdown table.

Run servers one at a time on a small machine (the others idle but hold memory).
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "tpch"))
import tpch  # noqa: E402


def listening_pid(port: int):
    """The pid of the process with a TCP socket listening on port, or None."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    local, state, inode = parts[1], parts[3], parts[9]
                    if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                        inodes.add(f"socket:[{inode}]")
        except OSError:
            continue
    if not inodes:
        return None
    for pid in filter(str.isdigit, os.listdir("/proc")):
        fd_dir = f"/proc/{pid}/fd"
        try:
            for fd in os.listdir(fd_dir):
                if os.readlink(os.path.join(fd_dir, fd)) in inodes:
                    return int(pid)
        except OSError:
            continue
    return None


def peak_rss_mb(pid):
    """VmHWM of pid in MiB, or None."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


class Result:
    def __init__(self, seconds=None, status="ok", detail=""):
        self.seconds, self.status, self.detail = seconds, status, detail

    def cell(self) -> str:
        if self.status == "ok":
            return f"{self.seconds:.2f}"
        if self.status == "wrong":
            return f"{self.seconds:.2f} (wrong)"
        return self.status


def run_server(name, url, data_dir, queries, want, timeout):
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(url).create()
    results = {}
    try:
        tpch.register_views(spark, data_dir)
        for n in queries:
            sql = tpch.query_text(n)
            try:
                rows, secs = tpch.run_spark(spark, sql, timeout)
            except tpch.QueryTimeout:
                results[n] = Result(status=f"timeout {timeout:g} s")
            except Exception as e:  # refused or failed: report the error's first line
                results[n] = Result(status="error", detail=str(e).splitlines()[0][:160])
            else:
                problems = tpch.compare(want[n], rows, tpch.is_ordered(sql))
                results[n] = Result(secs, "wrong" if problems else "ok", "; ".join(problems[:2]))
            print(f"{name} q{n:02d}: {results[n].cell()} {results[n].detail}", flush=True)
    finally:
        spark.stop()
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("servers", nargs="+", help="name=sc://host:port[#pid]")
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--data-root", default=None, help="where SF dirs live (default $WEIR_TPCH_DATA or a temp dir)")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--queries", default="", help="comma-separated query numbers (default all 22)")
    args = ap.parse_args()
    queries = [int(q) for q in args.queries.split(",") if q] or tpch.QUERIES

    data_dir = tpch.ensure_data(args.sf, args.data_root)
    con = tpch.duckdb_connection(data_dir)
    want, duck = {}, {}
    for n in queries:
        want[n], duck[n] = tpch.run_duckdb(con, tpch.query_text(n))
    con.close()

    servers = []
    for spec in args.servers:
        name, _, url = spec.partition("=")
        url, _, pid = url.partition("#")
        port = int(url.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
        servers.append((name, url, int(pid) if pid else listening_pid(port)))

    results = {}
    for name, url, _ in servers:
        results[name] = run_server(name, url, data_dir, queries, want, args.timeout)

    names = [s[0] for s in servers]
    first = names[0]
    others = names[1:] + ["duckdb"]
    answered = [n for n in queries if all(results[s][n].status == "ok" for s in names)]

    def secs(name, n):
        return duck[n] if name == "duckdb" else results[name][n].seconds

    def ratio(a, b):
        return f"{a / b:.2f}" if a is not None and b else ""

    head = ["query"] + [f"{s} s" for s in names] + ["duckdb s"] + [f"{first}/{o}" for o in others]
    print()
    print(f"TPC-H SF {args.sf:g}, {data_dir}; timeout {args.timeout:g} s per query")
    print()
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for n in queries:
        cells = [f"q{n:02d}"] + [results[s][n].cell() for s in names] + [f"{duck[n]:.3f}"]
        ok = results[first][n].status == "ok"
        cells += [ratio(secs(first, n), secs(o, n)) if ok and (o == "duckdb" or results[o][n].status == "ok") else ""
                  for o in others]
        print("| " + " | ".join(cells) + " |")
    totals = {s: sum(secs(s, n) for n in answered) for s in names + ["duckdb"]}
    cells = [f"total ({len(answered)} answered by all)"] + [f"{totals[s]:.2f}" for s in names] + \
            [f"{totals['duckdb']:.3f}"] + [ratio(totals[first], totals[o]) for o in others]
    print("| " + " | ".join(cells) + " |")
    rss = {name: peak_rss_mb(pid) for name, _, pid in servers}
    cells = ["peak RSS MiB"] + [f"{rss[s]:.0f}" if rss[s] is not None else "?" for s in names] + [""] + \
            [ratio(rss[first], rss[o]) if o != "duckdb" else "" for o in others]
    print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
