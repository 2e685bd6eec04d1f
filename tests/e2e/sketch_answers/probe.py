"""Records Apache Spark 4.2's answers to the sketch queries of QUERIES into <family>.json, for
test_sketches.py. Run against Spark's own Connect server:
    python probe.py sc://127.0.0.1:15102 theta
A BINARY value is stored as hex; an error as {"error": CLASS}. The queries keep their rows in
one partition (VALUES, range(..., 1)) where the answer depends on the order of updates."""
import json
import os
import sys

from pyspark.sql import SparkSession

T = "(SELECT theta_sketch_agg(x) s FROM VALUES (1), (2), (3), (4) t(x))"
U = "(SELECT theta_sketch_agg(x) s FROM VALUES (3), (4), (5) t(x))"
BIG = "(SELECT theta_sketch_agg(id, 5) s FROM range(0, 2000, 1, 1))"
BIG2 = "(SELECT theta_sketch_agg(id, 5) s FROM range(1000, 3000, 1, 1))"

QUERIES = {
    "theta": [
        "SELECT theta_sketch_agg(col) FROM VALUES (1), (1), (2), (2), (3) tab(col)",
        "SELECT theta_sketch_agg(col) FROM VALUES (1) tab(col)",
        "SELECT theta_sketch_agg(col) FROM VALUES (CAST(NULL AS INT)) tab(col)",
        "SELECT theta_sketch_agg(id) FROM range(0, 0, 1, 1)",
        "SELECT theta_sketch_agg(id, 4) FROM range(0, 1000, 1, 1)",
        "SELECT theta_sketch_agg(id, 10) FROM range(0, 3000, 1, 1)",
        "SELECT theta_sketch_agg(CAST(id AS INT), 4) FROM range(0, 100, 1, 1)",
        "SELECT theta_sketch_agg(x) FROM VALUES (1.5D), (-0.0D), (0.0D), (CAST('NaN' AS DOUBLE)), (-1.5D) t(x)",
        "SELECT theta_sketch_agg(x) FROM VALUES (1.5F), (-0.0F), (CAST('NaN' AS FLOAT)) t(x)",
        "SELECT theta_sketch_agg(x) FROM VALUES ('a'), (''), ('héllo'), ('a'), (NULL) t(x)",
        "SELECT theta_sketch_agg(x) FROM VALUES (X'01'), (X''), (X'0102') t(x)",
        "SELECT theta_sketch_agg(x) FROM VALUES (array(1, 2)), (array()), (array(3)) t(x)",
        "SELECT theta_sketch_agg(x) FROM VALUES (array(1L, 2L)), (array(CAST(NULL AS BIGINT))) t(x)",
        "SELECT g, theta_sketch_estimate(theta_sketch_agg(x)) FROM VALUES (1, 1), (1, 2), (2, 2), (2, 2) t(g, x) GROUP BY g ORDER BY g",
        "SELECT theta_sketch_estimate(theta_sketch_agg(id)) FROM range(0, 10000, 1, 1)",
        f"SELECT theta_sketch_estimate(s) FROM {BIG}",
        "SELECT theta_sketch_estimate(CAST(NULL AS BINARY))",
        # Exact mode: the same bytes however the rows are partitioned and merged.
        "SELECT theta_sketch_agg(id) FROM range(3000)",
        "SELECT theta_sketch_agg(id % 7, 4) FROM range(100000)",
        "SELECT id % 3 AS g, theta_sketch_agg(id) FROM range(300) GROUP BY g ORDER BY g",
        "SELECT theta_sketch_estimate(X'0102')",
        "SELECT theta_sketch_estimate(X'01030300001e0000')",
        f"SELECT theta_union(a.s, b.s) FROM {T} a, {U} b",
        f"SELECT theta_union(a.s, b.s, 4) FROM {BIG} a, {BIG2} b",
        f"SELECT theta_sketch_estimate(theta_union(a.s, b.s, 5)) FROM {BIG} a, {BIG2} b",
        f"SELECT theta_intersection(a.s, b.s) FROM {T} a, {U} b",
        f"SELECT theta_intersection(a.s, b.s) FROM {BIG} a, {BIG2} b",
        f"SELECT theta_difference(a.s, b.s) FROM {T} a, {U} b",
        f"SELECT theta_difference(a.s, b.s) FROM {BIG} a, {BIG2} b",
        f"SELECT theta_difference(b.s, a.s) FROM {T} a, {U} b",
        f"SELECT theta_union(a.s, NULL) FROM {T} a",
        f"SELECT theta_union(a.s, a.s, 3) FROM {T} a",
        f"SELECT theta_union(a.s, X'00') FROM {T} a",
        f"SELECT theta_intersection(X'01030300001e0000', a.s) FROM {T} a",
        f"SELECT theta_difference(a.s, X'01030300001e0000') FROM {T} a",
        f"SELECT theta_union_agg(s) FROM (SELECT * FROM {T} UNION ALL SELECT * FROM {U})",
        f"SELECT theta_union_agg(s, 5) FROM (SELECT * FROM {BIG} UNION ALL SELECT * FROM {BIG2})",
        f"SELECT theta_intersection_agg(s) FROM (SELECT * FROM {T} UNION ALL SELECT * FROM {U})",
        f"SELECT theta_intersection_agg(s) FROM (SELECT * FROM {BIG} UNION ALL SELECT * FROM {BIG2})",
        "SELECT theta_union_agg(s) FROM VALUES (CAST(NULL AS BINARY)) t(s)",
        "SELECT theta_union_agg(s) FROM VALUES (X'0102') t(s)",
        "SELECT theta_intersection_agg(s) FROM VALUES (X'0102') t(s)",
        "SELECT theta_sketch_agg(x, 3) FROM VALUES (1) t(x)",
        "SELECT theta_sketch_agg(x, 27) FROM VALUES (1) t(x)",
        "SELECT theta_union_agg(s, 30) FROM VALUES (X'01030300001e0000') t(s)",
        "SELECT theta_sketch_agg(x) FROM VALUES (true) t(x)",
        "SELECT theta_sketch_agg(x) FROM VALUES (CAST(1 AS SMALLINT)) t(x)",
        "SELECT theta_sketch_agg(x, 5L) FROM VALUES (1) t(x)",
        "SELECT theta_union_agg(x) FROM VALUES (1) t(x)",
        "SELECT theta_sketch_estimate(1)",
        "SELECT theta_union(X'01', 'a')",
    ],
}


def answer(spark, q):
    try:
        rows = spark.sql(q).collect()
    except Exception as e:  # the error class, as PySpark reports it
        cls = getattr(e, "getCondition", lambda: None)() or type(e).__name__
        return {"error": cls}
    return [[v.hex() if isinstance(v, (bytes, bytearray)) else v for v in r] for r in rows]


def main():
    url, family = sys.argv[1], sys.argv[2]
    spark = SparkSession.builder.remote(url).getOrCreate()
    out = [{"query": q, "answer": answer(spark, q)} for q in QUERIES[family]]
    with open(os.path.join(os.path.dirname(__file__), family + ".json"), "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
