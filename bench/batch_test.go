package bench

import (
	"context"
	"io"
	"testing"

	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

const batchRows = 20_000_000

func long(v int64) plan.Literal { return plan.Lit(v, sqltypes.LongType) }

// rangeFilterCount is SELECT count(*) FROM range(n) WHERE id % 3 = 0.
func rangeFilterCount(n int64) plan.Relation {
	return &plan.Aggregate{
		Input: &plan.Filter{
			Input:     &plan.Range{Start: 0, End: n, Step: 1},
			Condition: plan.Fn("==", plan.Fn("%", plan.Col("id"), long(3)), long(0)),
		},
		Aggs: []plan.Expr{plan.Fn("count", long(1))},
	}
}

func drain(b *testing.B, r *engine.Result) int64 {
	defer r.Close()
	var rows int64
	for {
		rec, err := r.Next(context.Background())
		if err == io.EOF {
			return rows
		}
		if err != nil {
			b.Fatal(err)
		}
		rows += rec.NumRows()
		rec.Release()
	}
}

// BenchmarkBatchRangeFilterCount runs the query through the whole engine pipeline.
func BenchmarkBatchRangeFilterCount(b *testing.B) {
	s := engine.NewSession()
	for b.Loop() {
		r, err := s.Execute(context.Background(), rangeFilterCount(batchRows))
		if err != nil {
			b.Fatal(err)
		}
		if n := drain(b, r); n != 1 {
			b.Fatalf("got %d rows, want 1", n)
		}
	}
	b.ReportMetric(float64(batchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkBaselineLoop is the same computation as a plain Go loop: the ceiling the engine is
// compared against.
func BenchmarkBaselineLoop(b *testing.B) {
	var sink int64
	for b.Loop() {
		var count int64
		for id := int64(0); id < batchRows; id++ {
			if id%3 == 0 {
				count++
			}
		}
		sink += count
	}
	if sink == 0 {
		b.Fatal("no rows counted")
	}
	b.ReportMetric(float64(batchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
