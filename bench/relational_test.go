package bench

import (
	"context"
	"testing"

	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sql/plan"
)

// relationalQueries are issue 17's aggregation, join and sort queries over range (no I/O), with
// the number of result rows each returns.
var relationalQueries = []struct {
	name, sql string
	rows      int64
}{
	{"GroupBySum", "SELECT k, sum(v) FROM (SELECT id % 1000 k, id * 2 v FROM range(100000000)) GROUP BY k", 1000},
	{"JoinCount", "SELECT count(*) FROM range(10000000) a JOIN range(10000000) b ON a.id = b.id", 1},
	{"CountDistinct", "SELECT count(DISTINCT id % 1000000) FROM range(20000000)", 1},
	{"OrderByLimit", "SELECT id FROM range(20000000) ORDER BY -id LIMIT 10", 10},
	{"MaxDouble", "SELECT max(CAST(id AS DOUBLE)) FROM range(20000000)", 1},
}

// BenchmarkRelational runs each query through the whole engine; run one iteration each with
// -benchtime 1x to time them (bench/RESULTS.md).
func BenchmarkRelational(b *testing.B) {
	for _, q := range relationalQueries {
		b.Run(q.name, func(b *testing.B) {
			s := engine.NewSession()
			for b.Loop() {
				r, err := s.Execute(context.Background(), &plan.SQLQuery{Query: q.sql})
				if err != nil {
					b.Fatal(err)
				}
				if n := drain(b, r); n != q.rows {
					b.Fatalf("got %d rows, want %d", n, q.rows)
				}
			}
		})
	}
}
