package bench

import (
	"context"
	"testing"

	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sql/plan"
)

// Scalar-kernel queries of issue 17 over range(2e7) (no I/O): each runs through the whole
// engine pipeline, so the figure is end-to-end rows per second of one query.
var kernelQueries = []struct{ name, sql string }{
	{"SumLongTimes2", "SELECT sum(id * 2) FROM range(20000000)"},
	{"SumCastDouble", "SELECT sum(CAST(id AS DOUBLE)) FROM range(20000000)"},
	{"SumCastDoubleTimesDecimalLit", "SELECT sum(CAST(id AS DOUBLE) * 0.95) FROM range(20000000)"},
	{"MaxCastDouble", "SELECT max(CAST(id AS DOUBLE)) FROM range(20000000)"},
	{"CountWhereDoubleGt", "SELECT count(*) FROM range(20000000) WHERE CAST(id AS DOUBLE) > 5.0"},
	{"SumDecimalMul", "SELECT sum(CAST(id AS DECIMAL(15,2)) * CAST(0.95 AS DECIMAL(3,2))) FROM range(20000000)"},
	{"CountWhereCase", "SELECT count(*) FROM range(20000000) WHERE CASE WHEN id % 2 = 0 THEN CAST(id AS DOUBLE) ELSE 0.0 END > 10.0"},
	{"SumCoalesceDivNullif", "SELECT sum(coalesce(10.0 / nullif(CAST(id % 10 AS DOUBLE), 0.0), 1.0)) FROM range(20000000)"},
	{"CountWhereDateYear", "SELECT count(*) FROM range(20000000) WHERE year(date_add(DATE'2020-01-01', CAST(id % 3000 AS INT))) = 2021"},
	{"CountWhereInt8Lt", "SELECT count(*) FROM range(20000000) WHERE CAST(id % 100 AS TINYINT) < CAST(50 AS TINYINT)"},
	{"CountWhereBetweenOrIn", "SELECT count(*) FROM range(20000000) WHERE id % 1000 BETWEEN 100 AND 200 OR NOT (id % 7 IN (1, 3))"},
	{"CountWhereDateConstInterval", "SELECT count(*) FROM range(20000000) WHERE date_add(DATE'2020-01-01', CAST(id % 3000 AS INT)) < DATE'2021-01-01' + INTERVAL '1' YEAR"},
	{"CountWhereWideDecimalMul", "SELECT count(*) FROM range(20000000) WHERE CAST(id AS DECIMAL(30,2)) * CAST(1.5 AS DECIMAL(16,2)) > 1000"},
	{"CountWhereStringToInt", "SELECT count(*) FROM range(20000000) WHERE CAST(CAST(id % 1000 AS STRING) AS INT) > 500"},
}

// BenchmarkKernels runs each query of kernelQueries once per iteration.
func BenchmarkKernels(b *testing.B) {
	s := engine.NewSession()
	for _, q := range kernelQueries {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				r, err := s.Execute(context.Background(), &plan.SQLQuery{Query: q.sql})
				if err != nil {
					b.Fatal(err)
				}
				if n := drain(b, r); n != 1 {
					b.Fatalf("got %d rows, want 1", n)
				}
			}
			b.ReportMetric(20e6*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
