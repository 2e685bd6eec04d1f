package operators

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestSkipPartialMatchesPartial runs split aggregates (count(*), count, sum and avg of a long
// and of a decimal, min, max) grouped by a string, some with a WHERE fused into the partial,
// as a partial aggregate that skips
// adaptively (random check interval and compaction threshold, often switching mid-batch
// stream) and as one that always aggregates, each followed by the final aggregate, on the
// same random batches, and compares the final rows (order included); the seed is printed.
func TestSkipPartialMatchesPartial(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 31))
	schema := sqltypes.Schema{{Name: "k", Type: sqltypes.StringType, Nullable: true},
		{Name: "v", Type: sqltypes.LongType, Nullable: true}}
	opts := expr.Options{ANSI: true}
	v := column(schema, "v")
	dec, err := expr.NewCast(v, sqltypes.DecimalType(12, 2), plan.CastDefault, opts)
	if err != nil {
		t.Fatal(err)
	}
	bind := func(name string, args ...expr.Expr) expr.AggFunc {
		f, err := expr.BindAggregate(name, args, false, opts)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	aggs := []expr.AggFunc{bind("count", expr.NewLiteral(int64(1), sqltypes.LongType)), bind("count", v),
		bind("sum", v), bind("avg", v), bind("sum", dec), bind("avg", dec), bind("min", v), bind("max", v)}
	skipped := 0
	for iter := 0; iter < 60; iter++ {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		nkeys := 1 + r.IntN(400)
		var batches [][2][]any
		for range 1 + r.IntN(8) {
			var ks, vs []any
			for range r.IntN(200) {
				if r.IntN(20) == 0 {
					ks = append(ks, nil)
				} else {
					ks = append(ks, string(rune('a'+r.IntN(26)))+string(rune('a'+r.IntN(nkeys%26+1))))
				}
				if r.IntN(8) == 0 {
					vs = append(vs, nil)
				} else {
					vs = append(vs, int64(r.IntN(2000)-1000))
				}
			}
			batches = append(batches, [2][]any{ks, vs})
		}
		// Half the trials fuse a WHERE into the partial aggregate.
		var cond expr.Expr
		if r.IntN(2) == 0 {
			cond = parseExpr(schema, fmt.Sprintf("v>%d", r.IntN(1600)-1000))
		}
		conf := SkipPartial{MinRows: 1 + int64(r.IntN(300)), MinCompaction: 0.5 + 4*r.Float64()}
		run := func(skip *SkipPartial) ([]string, bool) {
			ctx := &expr.Context{Mem: mem, ANSI: true}
			partial := AggregateSpec{KeyCols: []int{0}, KeyTypes: []sqltypes.DataType{sqltypes.StringType}, TZ: "UTC", SkipPartial: skip, Filter: cond}
			final := AggregateSpec{KeyCols: []int{0}, KeyTypes: partial.KeyTypes, TZ: "UTC"}
			partialOut := sqltypes.Schema{schema[0]}
			finalOut := sqltypes.Schema{schema[0]}
			types := []sqltypes.DataType{sqltypes.StringType}
			for _, f := range aggs {
				parts, g, ok := expr.SplitAggregate(f, len(partialOut))
				if !ok {
					t.Fatalf("%s does not split", f)
				}
				for _, p := range parts {
					partial.Aggs = append(partial.Aggs, p)
					partialOut = append(partialOut, sqltypes.Field{Name: p.String(), Type: p.Type(), Nullable: true})
				}
				final.Aggs = append(final.Aggs, g)
				finalOut = append(finalOut, sqltypes.Field{Name: f.String(), Type: f.Type(), Nullable: true})
				types = append(types, f.Type())
			}
			pop, err := HashAggregate(ctx, partial)(flow.Env{Mem: mem, Partitions: 1, OutSchema: eventSchema(partialOut)})
			if err != nil {
				t.Fatal(err)
			}
			fop, err := HashAggregate(ctx, final)(flow.Env{Mem: mem, Partitions: 1, OutSchema: eventSchema(finalOut)})
			if err != nil {
				t.Fatal(err)
			}
			pa, fa := pop.(*hashAggregate), fop.(*hashAggregate)
			res := &collect{types: types}
			into := emitFunc(func(ctx context.Context, rec arrow.RecordBatch) error {
				defer rec.Release()
				return fa.ProcessFrom(ctx, 0, 0, rec, res)
			})
			for _, b := range batches {
				ks := expr.BuildArray(mem, sqltypes.StringType, "UTC", b[0])
				vs := expr.BuildArray(mem, sqltypes.LongType, "UTC", b[1])
				ret := boolArray(mem, make([]bool, len(b[1])))
				rec := flow.NewDataBatch(mem, eventSchema(schema), []arrow.Array{ks, vs}, ret)
				releaseAll([]arrow.Array{ks, vs, ret})
				err := pa.ProcessFrom(context.Background(), 0, 0, rec, into)
				rec.Release()
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := pa.EndOfData(context.Background(), into); err != nil {
				t.Fatal(err)
			}
			if err := fa.EndOfData(context.Background(), res); err != nil {
				t.Fatal(err)
			}
			skipping := pa.skip != nil && pa.skip.skipping
			pa.Close()
			fa.Close()
			return res.rows, skipping
		}
		got, skipping := run(&conf)
		want, _ := run(nil)
		if skipping {
			skipped++
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d iter %d %+v (skipped %v): got %v, want %v", seed, iter, conf, skipping, got, want)
		}
		mem.AssertSize(t, 0)
	}
	if skipped == 0 {
		t.Fatalf("seed %d: no trial skipped its partial aggregation", seed)
	}
	t.Logf("%d of 60 trials skipped", skipped)
}
