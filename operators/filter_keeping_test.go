package operators

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestFilterKeepingCopiesOnlyKeptColumns: the rows FilterKeeping keeps are Filter's, with the
// kept columns' values and NULLs in the others, and the dropped string column's bytes are never
// allocated again.
func TestFilterKeepingCopiesOnlyKeptColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := sqltypes.Schema{{Name: "k", Type: sqltypes.LongType}, {Name: "s", Type: sqltypes.StringType, Nullable: true}}
	const n = 1000
	ks, ss := make([]any, n), make([]any, n)
	for i := range ks {
		ks[i], ss[i] = int64(i), strings.Repeat("x", 100)
	}
	ka := expr.BuildArray(mem, sqltypes.LongType, "UTC", ks)
	sa := expr.BuildArray(mem, sqltypes.StringType, "UTC", ss)
	ret := boolArray(mem, make([]bool, n))
	rec := flow.NewDataBatch(mem, eventSchema(schema), []arrow.Array{ka, sa}, ret)
	ka.Release()
	sa.Release()
	ret.Release()
	defer rec.Release()
	cond, err := expr.Bind("<", []expr.Expr{column(schema, "k"), expr.NewLiteral(int64(900), sqltypes.LongType)}, expr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := &expr.Context{Mem: mem, ANSI: true}
	run := func(f Factory) (*collect, int) {
		op, err := f(flow.Env{Mem: mem, Partitions: 1, OutSchema: eventSchema(schema)})
		if err != nil {
			t.Fatal(err)
		}
		before := mem.CurrentAlloc()
		peak := 0
		out := &collect{types: []sqltypes.DataType{sqltypes.LongType, sqltypes.StringType}}
		if err := op.Process(context.Background(), 0, rec, emitterFunc(func(ctx context.Context, r arrow.RecordBatch) error {
			peak = mem.CurrentAlloc() - before
			return out.Emit(ctx, r)
		})); err != nil {
			t.Fatal(err)
		}
		return out, peak
	}
	all, allBytes := run(Filter(ctx, cond))
	kept, keptBytes := run(FilterKeeping(ctx, cond, []bool{true, false}))
	if len(all.rows) != 900 || len(kept.rows) != 900 {
		t.Fatalf("kept %d and %d rows, want 900", len(all.rows), len(kept.rows))
	}
	for i := range kept.rows {
		k, _, _ := strings.Cut(all.rows[i], ",")
		if kept.rows[i] != k+",<nil>" {
			t.Fatalf("row %d: %s, want %s with a NULL string", i, kept.rows[i], k)
		}
	}
	// The strings are 90 000 bytes of the filtered batch: only Filter copies them.
	if allBytes < 90_000 || keptBytes >= 90_000 {
		t.Fatalf("batch bytes: Filter %d, FilterKeeping %d", allBytes, keptBytes)
	}
}
