"""The sketch aggregates (issue 14) side by side: the same SQL over range() through PySpark against
Weir and Apache Spark 4.2's own Connect server, best of three runs each, answers compared.

    python bench/sketches_side_by_side.py weir=sc://127.0.0.1:15977 spark=sc://127.0.0.1:15102
"""
import sys
import time

from pyspark.sql import SparkSession

QUERIES = [
    ("hll_sketch_agg over 5e6", "SELECT hll_sketch_estimate(hll_sketch_agg(id)) FROM range(0, 5000000, 1, 2)"),
    ("count_min_sketch(0.001, 0.99) over 5e6",
     "SELECT sha2(count_min_sketch(id, 0.001d, 0.99d, 1), 256) FROM range(0, 5000000, 1, 2)"),
    ("approx_top_k(id % 1000, 10) over 5e6", "SELECT approx_top_k(id % 1000, 10) FROM range(0, 5000000, 1, 2)"),
]


def run(url):
    s = SparkSession.builder.remote(url).getOrCreate()
    out = []
    for _, q in QUERIES:
        best, rows = float("inf"), None
        for _ in range(3):
            t = time.time()
            rows = s.sql(q).collect()
            best = min(best, time.time() - t)
        out.append((best, rows))
    s.stop()
    return out


def main():
    urls = dict(a.split("=", 1) for a in sys.argv[1:])
    weir, spark = run(urls["weir"]), run(urls["spark"])
    print("| query | Weir s | Spark s | Spark/Weir | same answer |")
    print("|---|---|---|---|---|")
    for (name, _), (wt, wr), (st, sr) in zip(QUERIES, weir, spark):
        print(f"| {name} | {wt:.3f} | {st:.3f} | {st / wt:.1f} | {wr == sr} |")


if __name__ == "__main__":
    main()
