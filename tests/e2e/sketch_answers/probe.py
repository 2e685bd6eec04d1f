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

L = "(SELECT kll_sketch_agg_bigint(id) s FROM range(0, 100, 1, 1))"
L2 = "(SELECT kll_sketch_agg_bigint(id) s FROM range(50, 120, 1, 1))"
D = "(SELECT kll_sketch_agg_double(CAST(id AS DOUBLE) / 4) s FROM range(0, 150, 1, 1))"
F = "(SELECT kll_sketch_agg_float(CAST(id AS FLOAT)) s FROM range(0, 30, 1, 1))"

TD = "(SELECT tuple_sketch_agg_double(id % 5, CAST(id AS DOUBLE)) s FROM range(0, 12, 1, 1))"
TD2 = "(SELECT tuple_sketch_agg_double(id % 7 + 3, 1.5D) s FROM range(0, 20, 1, 1))"
TI = "(SELECT tuple_sketch_agg_integer(id % 5, CAST(id AS INT)) s FROM range(0, 12, 1, 1))"
TI2 = "(SELECT tuple_sketch_agg_integer(id % 7 + 3, 2) s FROM range(0, 20, 1, 1))"
TB = "(SELECT tuple_sketch_agg_double(id, 1.0D, 5) s FROM range(0, 3000, 1, 1))"
TB2 = "(SELECT tuple_sketch_agg_double(id, 2.0D, 5, 'max') s FROM range(1500, 4000, 1, 1))"
TH = "(SELECT theta_sketch_agg(id) s FROM range(2, 6, 1, 1))"
THB = "(SELECT theta_sketch_agg(id, 5) s FROM range(2000, 5000, 1, 1))"

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
    # Tuple sketches are DataSketches' hash tables in table order: deterministic for the same
    # updates in the same order (one partition).
    "tuple": [
        f"SELECT s FROM {TD}",
        f"SELECT s FROM {TI}",
        f"SELECT s FROM {TB}",
        "SELECT tuple_sketch_agg_double(k, v) FROM VALUES (1, 1.5D) t(k, v)",
        "SELECT tuple_sketch_agg_double(k, v) FROM VALUES (CAST(NULL AS INT), 1.5D), (1, CAST(NULL AS DOUBLE)) t(k, v)",
        "SELECT tuple_sketch_agg_integer(id, 1, 4, 'max') FROM range(0, 100, 1, 1)",
        "SELECT tuple_sketch_agg_double(id % 3, CAST(id AS DOUBLE), 12, 'min') FROM range(0, 9, 1, 1)",
        "SELECT tuple_sketch_agg_double(id % 3, CAST(id AS DOUBLE), 12, 'max') FROM range(0, 9, 1, 1)",
        "SELECT tuple_sketch_agg_integer(id % 3, CAST(id AS INT), 12, 'alwaysone') FROM range(0, 9, 1, 1)",
        "SELECT tuple_sketch_agg_double(CAST(id AS STRING), 1.0D) FROM range(0, 4, 1, 1)",
        "SELECT tuple_sketch_agg_double(element_at(array('', 'a', 'b'), CAST(id AS INT) + 1), 1.0D) FROM range(0, 3, 1, 1)",
        "SELECT tuple_sketch_agg_integer(CAST(id AS DOUBLE) / 2, 1) FROM range(0, 4, 1, 1)",
        "SELECT tuple_sketch_agg_integer(CAST(id AS FLOAT), 1) FROM range(0, 3, 1, 1)",
        "SELECT tuple_sketch_agg_integer(unhex(hex(id)), 1) FROM range(0, 3, 1, 1)",
        "SELECT tuple_sketch_agg_integer(array(CAST(id AS INT), 1), 1) FROM range(0, 3, 1, 1)",
        "SELECT tuple_sketch_agg_integer(array(id), 1) FROM range(0, 3, 1, 1)",
        "SELECT tuple_sketch_agg_integer(CAST(id AS SMALLINT), 1) FROM range(0, 3, 1, 1)",
        "SELECT tuple_sketch_agg_double(id, 1) FROM range(0, 2, 1, 1)",
        "SELECT tuple_sketch_agg_integer(id, 1.5D) FROM range(0, 2, 1, 1)",
        f"SELECT tuple_sketch_estimate_double(s), tuple_sketch_theta_double(s), tuple_sketch_summary_double(s) FROM {TD}",
        f"SELECT tuple_sketch_summary_double(s, 'min'), tuple_sketch_summary_double(s, 'max'), tuple_sketch_summary_double(s, 'alwaysone') FROM {TD}",
        f"SELECT tuple_sketch_estimate_integer(s), tuple_sketch_theta_integer(s), tuple_sketch_summary_integer(s), tuple_sketch_summary_integer(s, 'max') FROM {TI}",
        f"SELECT tuple_sketch_estimate_double(s), tuple_sketch_theta_double(s), tuple_sketch_summary_double(s) FROM {TB}",
        f"SELECT tuple_sketch_summary_double(s, 'avg') FROM {TD}",
        "SELECT tuple_sketch_estimate_double(X'0102')",
        "SELECT tuple_sketch_estimate_double(CAST(NULL AS BINARY))",
        "SELECT tuple_sketch_summary_double(tuple_sketch_agg_double(k, v)) FROM VALUES (CAST(NULL AS INT), 1.0D) t(k, v)",
        "SELECT tuple_sketch_summary_double(tuple_sketch_agg_double(k, v), 'min') FROM VALUES (CAST(NULL AS INT), 1.0D) t(k, v)",
        f"SELECT tuple_union_double(a.s, b.s) FROM {TD} a, {TD2} b",
        f"SELECT tuple_union_double(a.s, b.s, 4, 'max') FROM {TD} a, {TD2} b",
        f"SELECT tuple_union_integer(a.s, b.s, 12, 'min') FROM {TI} a, {TI2} b",
        f"SELECT tuple_union_double(a.s, b.s, 4) FROM {TB} a, {TB2} b",
        f"SELECT tuple_intersection_double(a.s, b.s) FROM {TD} a, {TD2} b",
        f"SELECT tuple_intersection_double(a.s, b.s, 'max') FROM {TD} a, {TD2} b",
        f"SELECT tuple_intersection_integer(a.s, b.s) FROM {TI} a, {TI2} b",
        f"SELECT tuple_intersection_double(a.s, b.s) FROM {TB} a, {TB2} b",
        f"SELECT tuple_difference_double(a.s, b.s) FROM {TD} a, {TD2} b",
        f"SELECT tuple_difference_integer(b.s, a.s) FROM {TI} a, {TI2} b",
        f"SELECT tuple_difference_double(a.s, b.s) FROM {TB} a, {TB2} b",
        f"SELECT tuple_union_theta_double(a.s, b.s) FROM {TD} a, {TH} b",
        f"SELECT tuple_union_theta_integer(a.s, b.s, 12, 'max') FROM {TI} a, {TH} b",
        f"SELECT tuple_union_theta_double(a.s, b.s, 5, 'min') FROM {TB} a, {THB} b",
        f"SELECT tuple_intersection_theta_double(a.s, b.s) FROM {TD} a, {TH} b",
        f"SELECT tuple_intersection_theta_integer(a.s, b.s, 'alwaysone') FROM {TI} a, {TH} b",
        f"SELECT tuple_intersection_theta_double(a.s, b.s) FROM {TB} a, {THB} b",
        f"SELECT tuple_difference_theta_double(a.s, b.s) FROM {TD} a, {TH} b",
        f"SELECT tuple_difference_theta_integer(a.s, b.s) FROM {TI} a, {TH} b",
        f"SELECT tuple_difference_theta_double(a.s, b.s) FROM {TB} a, {THB} b",
        f"SELECT tuple_union_agg_double(s) FROM (SELECT * FROM {TD} UNION ALL SELECT * FROM {TD2})",
        f"SELECT tuple_sketch_summary_integer(u, 'max'), tuple_sketch_summary_integer(u), tuple_sketch_estimate_integer(u) FROM (SELECT tuple_union_agg_integer(s, 4, 'max') u FROM (SELECT * FROM {TI} UNION ALL SELECT * FROM {TI2}))",
        f"SELECT tuple_intersection_agg_double(s) FROM (SELECT * FROM {TD} UNION ALL SELECT * FROM {TD2})",
        f"SELECT tuple_intersection_agg_integer(s, 'min') FROM (SELECT * FROM {TI} UNION ALL SELECT * FROM {TI2})",
        f"SELECT tuple_union_agg_double(s) FROM {TD}",
        f"SELECT tuple_intersection_agg_double(s) FROM {TD}",
        "SELECT tuple_union_agg_double(s) FROM VALUES (CAST(NULL AS BINARY)) t(s)",
        "SELECT tuple_intersection_agg_double(s) FROM VALUES (CAST(NULL AS BINARY)) t(s)",
        "SELECT tuple_union_agg_double(s) FROM VALUES (X'0102') t(s)",
        f"SELECT tuple_union_double(a.s, X'0102') FROM {TD} a",
        f"SELECT tuple_union_theta_double(a.s, X'0102') FROM {TD} a",
        f"SELECT tuple_union_double(a.s, a.s, 3) FROM {TD} a",
        f"SELECT tuple_union_double(a.s, a.s, 12, 'foo') FROM {TD} a",
        f"SELECT tuple_union_double(a.s, NULL) FROM {TD} a",
        "SELECT tuple_sketch_agg_double(k, v, 12, 'foo') FROM VALUES (1, 1.5D) t(k, v)",
        "SELECT tuple_sketch_agg_double(k, v, 3) FROM VALUES (1, 1.5D) t(k, v)",
        "SELECT tuple_sketch_agg_double(k, v, k) FROM VALUES (1, 1.5D) t(k, v)",
        "SELECT tuple_sketch_agg_double(k, v) FROM VALUES (true, 1.5D) t(k, v)",
        "SELECT tuple_sketch_agg_double(k, v) FROM VALUES (1, 'x') t(k, v)",
        "SELECT tuple_union_agg_double(s, 30) FROM VALUES (CAST(NULL AS BINARY)) t(s)",
        "SELECT tuple_intersection_agg_double(s, 'foo') FROM VALUES (CAST(NULL AS BINARY)) t(s)",
        # Named arguments: the tuple functions Spark declares with a signature.
        f"SELECT tuple_sketch_summary_double(tuple_sketch_agg_double(key => k, summary => v, MODE => 'max')) FROM VALUES (1, 1.5D), (1, 2.5D) t(k, v)",
        f"SELECT tuple_sketch_agg_integer(k, v, mode => 'min', lgNomEntries => 5) FROM VALUES (1, 3), (1, 2) t(k, v)",
        f"SELECT tuple_union_agg_double(child => s, mode => 'max') FROM {TD}",
        f"SELECT tuple_union_double(first => a.s, second => b.s, lgNomEntries => 5, mode => 'max') FROM {TD} a, {TD2} b",
        f"SELECT tuple_union_theta_double(a.s, second => b.s, lgNomEntries => 5) FROM {TD} a, {TH} b",
        f"SELECT tuple_union_double(a.s, foo => a.s) FROM {TD} a",
        f"SELECT tuple_union_double(a.s, first => a.s) FROM {TD} a",
        f"SELECT tuple_union_double(second => a.s) FROM {TD} a",
        f"SELECT tuple_union_double(a.s, a.s, mode => 'max', 5) FROM {TD} a",
        "SELECT tuple_sketch_agg_double(k) FROM VALUES (1, 1.5D) t(k, v)",
        f"SELECT tuple_intersection_double(a.s, a.s, mode => 'max') FROM {TD} a",
        "SELECT theta_sketch_agg(x, lgNomEntries => 5) FROM VALUES (1) t(x)",
    ],
    # Sketches of at most k items never compact: their bytes are deterministic. Larger ones
    # are asked only what does not depend on DataSketches' coin flips (n, min, max, extremes).
    "kll": [
        "SELECT kll_sketch_agg_bigint(id) FROM range(0, 3, 1, 1)",
        "SELECT kll_sketch_agg_bigint(x) FROM VALUES (5) t(x)",
        "SELECT kll_sketch_agg_bigint(x) FROM VALUES (CAST(NULL AS INT)) t(x)",
        "SELECT kll_sketch_agg_bigint(CAST(id AS TINYINT), 8) FROM range(0, 8, 1, 1)",
        "SELECT kll_sketch_agg_bigint(CAST(id AS SMALLINT)) FROM range(0, 5, 1, 1)",
        "SELECT kll_sketch_agg_double(CAST(id AS DOUBLE) / 4, 10) FROM range(0, 9, 1, 1)",
        "SELECT kll_sketch_agg_double(element_at(array(1.5D, CAST('NaN' AS DOUBLE), -0.0D, 0.0D), CAST(id AS INT) + 1)) FROM range(0, 4, 1, 1)",
        "SELECT kll_sketch_agg_double(CAST(id AS FLOAT)) FROM range(0, 4, 1, 1)",
        "SELECT kll_sketch_agg_float(CAST(id / 2 AS FLOAT)) FROM range(0, 6, 1, 1)",
        f"SELECT kll_sketch_to_string_bigint(s) FROM {L}",
        f"SELECT kll_sketch_to_string_double(s) FROM {D}",
        f"SELECT kll_sketch_to_string_float(s) FROM {F}",
        "SELECT kll_sketch_to_string_bigint(kll_sketch_agg_bigint(x)) FROM VALUES (CAST(NULL AS INT)) t(x)",
        "SELECT kll_sketch_to_string_bigint(kll_sketch_agg_bigint(x)) FROM VALUES (7) t(x)",
        f"SELECT kll_sketch_get_n_bigint(s), kll_sketch_get_n_double(s) FROM {L}",
        f"SELECT kll_sketch_get_quantile_bigint(s, 0.5), kll_sketch_get_quantile_bigint(s, 0.0), kll_sketch_get_quantile_bigint(s, 1.0), kll_sketch_get_quantile_bigint(s, 0.25D) FROM {L}",
        f"SELECT kll_sketch_get_quantile_bigint(s, array(0.1, 0.5, 0.999)) FROM {L}",
        f"SELECT kll_sketch_get_quantile_double(s, array(0.1, 0.5)), kll_sketch_get_quantile_double(s, 0.33) FROM {D}",
        f"SELECT kll_sketch_get_quantile_float(s, 0.5), kll_sketch_get_rank_float(s, 3.5) FROM {F}",
        f"SELECT kll_sketch_get_rank_bigint(s, 10), kll_sketch_get_rank_bigint(s, -1), kll_sketch_get_rank_bigint(s, 99), kll_sketch_get_rank_bigint(s, array(0L, 49L)) FROM {L}",
        f"SELECT kll_sketch_get_rank_double(s, 10.0D), kll_sketch_get_rank_double(s, array(1.0D, 100.0D)) FROM {D}",
        f"SELECT kll_sketch_get_quantile_bigint(s, NULL), kll_sketch_get_rank_bigint(s, NULL) FROM {L}",
        f"SELECT kll_sketch_get_quantile_bigint(s, 1.5) FROM {L}",
        f"SELECT kll_sketch_get_quantile_bigint(s, -0.1D) FROM {L}",
        f"SELECT kll_sketch_get_quantile_bigint(s, array(0.5, 2.0)) FROM {L}",
        f"SELECT kll_sketch_get_quantile_bigint(s, 'x') FROM {L}",
        f"SELECT kll_sketch_get_rank_bigint(s, 'x') FROM {L}",
        "SELECT kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(x), 0.5) FROM VALUES (CAST(NULL AS INT)) t(x)",
        "SELECT kll_sketch_get_rank_bigint(kll_sketch_agg_bigint(x), 1) FROM VALUES (CAST(NULL AS INT)) t(x)",
        "SELECT kll_sketch_get_n_bigint(kll_sketch_agg_bigint(x)) FROM VALUES (CAST(NULL AS INT)) t(x)",
        "SELECT kll_sketch_get_n_bigint(X'0102')",
        "SELECT kll_sketch_get_n_bigint(CAST(NULL AS BINARY))",
        "SELECT kll_sketch_to_string_bigint(X'0102')",
        "SELECT kll_sketch_merge_bigint(X'0102', X'01')",
        f"SELECT kll_sketch_merge_bigint(a.s, b.s) FROM (SELECT kll_sketch_agg_bigint(id) s FROM range(0, 3, 1, 1)) a, (SELECT kll_sketch_agg_bigint(id) s FROM range(10, 12, 1, 1)) b",
        f"SELECT kll_sketch_get_n_bigint(kll_sketch_merge_bigint(a.s, b.s)), kll_sketch_get_quantile_bigint(kll_sketch_merge_bigint(a.s, b.s), array(0.0, 1.0)) FROM {L} a, {L2} b",
        f"SELECT kll_sketch_merge_bigint(a.s, NULL) FROM {L} a",
        f"SELECT kll_sketch_to_string_bigint(kll_merge_agg_bigint(s)) FROM (SELECT kll_sketch_agg_bigint(id) s FROM range(0, 3, 1, 1) UNION ALL SELECT kll_sketch_agg_bigint(id) s FROM range(10, 12, 1, 1))",
        "SELECT kll_sketch_get_quantile_double(kll_sketch_agg_double(CAST(id AS DOUBLE), 8), array(0.0, 1.0)), kll_sketch_get_rank_double(kll_sketch_agg_double(CAST(id AS DOUBLE), 8), array(-1.0D, 10000.0D)) FROM range(0, 5000, 1, 1)",
        f"SELECT kll_merge_agg_bigint(s, 50) FROM (SELECT kll_sketch_agg_bigint(id, 20) s FROM range(0, 3, 1, 1))",
        f"SELECT kll_sketch_get_n_bigint(kll_merge_agg_bigint(s)), kll_sketch_get_quantile_bigint(kll_merge_agg_bigint(s), array(0.0, 1.0)) FROM (SELECT * FROM {L} UNION ALL SELECT * FROM {L2})",
        "SELECT kll_merge_agg_bigint(s) FROM VALUES (CAST(NULL AS BINARY)) t(s)",
        "SELECT kll_merge_agg_double(s, 30) FROM VALUES (CAST(NULL AS BINARY)) t(s)",
        "SELECT kll_merge_agg_bigint(s) FROM VALUES (X'0102') t(s)",
        "SELECT g, kll_sketch_get_n_bigint(kll_sketch_agg_bigint(x)) FROM VALUES (1, 1), (1, 2), (2, 5) t(g, x) GROUP BY g ORDER BY g",
        "SELECT kll_sketch_get_n_bigint(kll_sketch_agg_bigint(id, 16)), kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(id, 16), array(0.0, 1.0)) FROM range(100000)",
        "SELECT kll_sketch_agg_bigint(x, 7) FROM VALUES (1) t(x)",
        "SELECT kll_sketch_agg_bigint(x, 65536) FROM VALUES (1) t(x)",
        "SELECT kll_sketch_agg_bigint(x, CAST(NULL AS INT)) FROM VALUES (1) t(x)",
        "SELECT kll_sketch_agg_bigint(x, x) FROM VALUES (1) t(x)",
        "SELECT kll_sketch_agg_bigint(x) FROM VALUES (1.5D) t(x)",
        "SELECT kll_sketch_agg_float(x) FROM VALUES (1.5D) t(x)",
        "SELECT kll_sketch_agg_double(x) FROM VALUES (1) t(x)",
        "SELECT kll_merge_agg_bigint(x) FROM VALUES (1) t(x)",
        f"SELECT kll_sketch_get_quantile_bigint(s, x) FROM {L}, VALUES (0.5D) t(x)",
    ],
}


def answer(spark, q):
    try:
        rows = spark.sql(q).collect()
    except Exception as e:  # the error class, as PySpark reports it
        cls = getattr(e, "getCondition", lambda: None)() or type(e).__name__
        return {"error": cls}
    return [[v.hex() if isinstance(v, (bytes, bytearray)) else v for v in r] for r in rows]


# Compacted KLL sketches (bytes that depend on coin flips), written once by Spark and once by
# Weir (the optional third argument, a Weir server), then read by Spark through these queries.
KLL_SOURCES = [
    ("bigint", "SELECT kll_sketch_agg_bigint(id * 7 % 1000, 16) FROM range(0, 20000, 1, 1)"),
    ("double", "SELECT kll_sketch_agg_double(CAST(id AS DOUBLE) / 3, 50) FROM range(0, 5000, 1, 1)"),
    ("float", "SELECT kll_sketch_agg_float(CAST(id % 300 AS FLOAT), 8) FROM range(0, 3000, 1, 1)"),
]


def kll_read_queries(writers):
    queries = []
    for session in writers:
        for typ, q in KLL_SOURCES:
            x = "X'" + session.sql(q).collect()[0][0].hex() + "'"
            item = {"bigint": "500L", "double": "700.5D", "float": "CAST(150 AS FLOAT)"}[typ]
            queries.append(
                f"SELECT kll_sketch_get_n_{typ}({x}), kll_sketch_to_string_{typ}({x}), "
                f"kll_sketch_get_quantile_{typ}({x}, array(0.0, 0.1, 0.5, 0.9, 1.0)), "
                f"kll_sketch_get_rank_{typ}({x}, {item}), kll_sketch_merge_{typ}({x}, X'02010f01c8000800') = {x}")
    return queries


def main():
    url, family = sys.argv[1], sys.argv[2]
    spark = SparkSession.builder.remote(url).getOrCreate()
    if family == "kll_read":
        writers = [spark]
        if len(sys.argv) > 3:
            writers.append(SparkSession.builder.remote(sys.argv[3]).create())
        QUERIES[family] = kll_read_queries(writers)
    out = [{"query": q, "answer": answer(spark, q)} for q in QUERIES[family]]
    with open(os.path.join(os.path.dirname(__file__), family + ".json"), "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
