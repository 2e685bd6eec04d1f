package operators

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	sqltypes "github.com/weirhq/weir/sql/types"
	"github.com/weirhq/weir/state"
)

type discard struct{}

func (discard) Emit(_ context.Context, rec arrow.RecordBatch) error { rec.Release(); return nil }

// longBatches builds n batches of BatchRows rows: column k = row number mod keys.
func longBatches(mem memory.Allocator, schema *arrow.Schema, n, keys int) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for b := 0; b < n; b++ {
		bld := array.NewInt64Builder(mem)
		for i := 0; i < BatchRows; i++ {
			bld.Append(int64((b*BatchRows + i) % keys))
		}
		col := bld.NewArray()
		bld.Release()
		out = append(out, flow.NewDataBatch(mem, schema, []arrow.Array{col}, nil))
		col.Release()
	}
	return out
}

func BenchmarkStreamDedup(b *testing.B) {
	mem := memory.NewGoAllocator()
	schema := eventSchema(sqltypes.Schema{{Name: "k", Type: sqltypes.LongType, Nullable: true}})
	recs := longBatches(mem, schema, 16, 100_000)
	defer releaseRecords(recs)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		op, _ := StreamDedup(StreamDedupSpec{TimeCol: -1, LateCol: -1})(flow.Env{Mem: mem, Partitions: 1, OutSchema: schema})
		for _, r := range recs {
			if err := op.Process(context.Background(), 0, r, discard{}); err != nil {
				b.Fatal(err)
			}
		}
		op.(flow.Closer).Close()
	}
	b.ReportMetric(float64(16*BatchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkStreamJoin(b *testing.B) { benchmarkStreamJoin(b, state.Budget{}) }

// benchmarkStreamJoin joins 8 batches of new keys on each side, under budget.
func benchmarkStreamJoin(b *testing.B, budget state.Budget) {
	mem := memory.NewGoAllocator()
	user := sqltypes.Schema{{Name: "k", Type: sqltypes.LongType, Nullable: true}}
	schema := eventSchema(user)
	out := eventSchema(append(append(sqltypes.Schema{}, user...), user...))
	recs := longBatches(mem, schema, 8, 1<<30)
	defer releaseRecords(recs)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		spec := StreamJoinSpec{LeftKeys: parseExprs(user, "k"), RightKeys: parseExprs(user, "k"),
			LeftSchema: schema, RightSchema: schema, Left: NoBound, Right: NoBound, LeftLate: -1, RightLate: -1,
			Budget: budget}
		op, _ := StreamJoin(nil, spec)(flow.Env{Mem: mem, Partitions: 1, OutSchema: out})
		for _, r := range recs {
			for in := 0; in < 2; in++ {
				if err := op.Process(context.Background(), in, r, discard{}); err != nil {
					b.Fatal(err)
				}
			}
		}
		op.(flow.Closer).Close()
	}
	b.ReportMetric(float64(2*8*BatchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
