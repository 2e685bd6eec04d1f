"""Issue 17's query table side by side: the same SQL over range() through PySpark against Weir and
Apache Spark's own Connect server, and DuckDB's answer and time on the same SQL (range() as
DuckDB's range table function), one run each, answers compared.

    python bench/kernels_side_by_side.py weir=sc://127.0.0.1:15150 spark=sc://127.0.0.1:15140
"""
import sys
import time

import duckdb
from pyspark.sql import SparkSession

QUERIES = [
    ("sum(id * 2) over 2e7", "SELECT sum(id * 2) FROM range(20000000)"),
    ("sum(CAST(id AS DOUBLE)) over 2e7", "SELECT sum(CAST(id AS DOUBLE)) FROM range(20000000)"),
    ("sum(CAST(id AS DOUBLE) * 0.95) over 2e7", "SELECT sum(CAST(id AS DOUBLE) * 0.95) FROM range(20000000)"),
    ("max(CAST(id AS DOUBLE)) over 2e7", "SELECT max(CAST(id AS DOUBLE)) FROM range(20000000)"),
    ("count WHERE CAST(id AS DOUBLE) > 5.0 over 2e7", "SELECT count(*) FROM range(20000000) WHERE CAST(id AS DOUBLE) > 5.0"),
    ("decimal sum of products over 2e7",
     "SELECT sum(CAST(id AS DECIMAL(15,2)) * CAST(0.95 AS DECIMAL(3,2))) FROM range(20000000)"),
    ("count WHERE id % 7 = 3 over 2e8", "SELECT count(*) FROM range(200000000) WHERE id % 7 = 3"),
    ("GROUP BY id % 1000 over 1e8",
     "SELECT count(*), sum(s) FROM (SELECT k, sum(v) s FROM (SELECT id % 1000 k, id * 2 v FROM range(100000000)) GROUP BY k)"),
    ("join 1e7 x 1e7", "SELECT count(*) FROM range(10000000) a JOIN range(10000000) b ON a.id = b.id"),
    ("count(DISTINCT id % 1e6) over 2e7", "SELECT count(DISTINCT id % 1000000) FROM range(20000000)"),
    ("ORDER BY -id LIMIT 10 over 2e7", "SELECT sum(id) FROM (SELECT id FROM range(20000000) ORDER BY -id LIMIT 10)"),
]


def _duck(q):
    out, i = [], 0
    while True:
        j = q.find("range(", i)
        if j < 0:
            out.append(q[i:])
            return "".join(out)
        k = q.find(")", j)
        out.append(q[i:j] + "(SELECT range AS id FROM " + q[j:k + 1] + ")")
        i = k + 1


def norm(v):
    try:
        return round(float(v), 2)
    except (TypeError, ValueError):
        return v


def main():
    servers = [a.split("=", 1) for a in sys.argv[1:]]
    con = duckdb.connect()
    rows = []
    for name, q in QUERIES:
        t = time.time()
        want = [tuple(norm(x) for x in r) for r in con.execute(_duck(q)).fetchall()]
        times = {"duckdb": time.time() - t}
        ok = {}
        for label, url in servers:
            spark = SparkSession.builder.remote(url).getOrCreate()
            t = time.time()
            got = [tuple(norm(x) for x in r) for r in spark.sql(q).collect()]
            times[label] = time.time() - t
            ok[label] = got == want
            spark.stop()
        rows.append((name, times, ok))
        print(name, {k: f"{v:.2f}" for k, v in times.items()}, ok, flush=True)
    labels = [l for l, _ in servers]
    first = labels[0]
    print("\n| query | " + " | ".join(f"{l} s" for l in labels) + " | duckdb s | " +
          " | ".join(f"{first}/{o}" for o in labels[1:] + ["duckdb"]) + " |")
    print("|---" * (2 + 2 * len(labels)) + "|")
    for name, times, ok in rows:
        cells = [f"{times[l]:.2f}" + ("" if ok[l] else " (wrong)") for l in labels] + [f"{times['duckdb']:.2f}"]
        ratios = [f"{times[first] / times[o]:.2f}" for o in labels[1:] + ["duckdb"]]
        print(f"| {name} | " + " | ".join(cells + ratios) + " |")


if __name__ == "__main__":
    main()
