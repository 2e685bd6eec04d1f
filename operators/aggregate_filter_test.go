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
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestAggregateFilterMatchesFilterOperator runs batch aggregates (global count(*) only, which
// counts from the condition's bitmap; global with a sum; grouped by a string) with a WHERE
// fused into them and, on the same random batches (NULL values, thresholds keeping all, some
// or none of a batch's rows), behind the filter operator, and compares the rows; the seed is
// printed.
func TestAggregateFilterMatchesFilterOperator(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 23))
	schema := sqltypes.Schema{{Name: "k", Type: sqltypes.StringType, Nullable: true},
		{Name: "v", Type: sqltypes.LongType, Nullable: true}}
	cases := []struct {
		keys bool
		aggs string
	}{{false, "count(1)"}, {false, "count(1);sum(v);count(v)"}, {true, "count(1);sum(v)"}}
	for iter := 0; iter < 40; iter++ {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		c := cases[iter%len(cases)]
		cond := parseExpr(schema, fmt.Sprintf("v>%d", r.IntN(120)-10))
		var batches [][2][]any
		for range 1 + r.IntN(5) {
			var ks, vs []any
			for range r.IntN(300) {
				ks = append(ks, []any{"a", "b", "", nil}[r.IntN(4)])
				if r.IntN(10) == 0 {
					vs = append(vs, nil)
				} else {
					vs = append(vs, int64(r.IntN(100)))
				}
			}
			batches = append(batches, [2][]any{ks, vs})
		}
		run := func(fused bool) []string {
			ctx := &expr.Context{Mem: mem, ANSI: true}
			spec := AggregateSpec{Aggs: parseAggs(schema, c.aggs), TZ: "UTC"}
			out := sqltypes.Schema{}
			types := []sqltypes.DataType{}
			if c.keys {
				spec.KeyCols, spec.KeyTypes = []int{0}, []sqltypes.DataType{sqltypes.StringType}
				out, types = append(out, schema[0]), append(types, sqltypes.StringType)
			}
			for _, f := range spec.Aggs {
				out = append(out, sqltypes.Field{Name: f.String(), Type: f.Type(), Nullable: true})
				types = append(types, f.Type())
			}
			if fused {
				spec.Filter = cond
			}
			env := flow.Env{Mem: mem, Partitions: 1, OutSchema: eventSchema(out)}
			op, err := HashAggregate(ctx, spec)(env)
			if err != nil {
				t.Fatal(err)
			}
			a := op.(*hashAggregate)
			if fused && a.countsOnly != (c.aggs == "count(1)") {
				t.Fatalf("%s: countsOnly %v", c.aggs, a.countsOnly)
			}
			var f flow.Operator
			if !fused {
				if f, err = Filter(ctx, cond)(flow.Env{Mem: mem, Partitions: 1, OutSchema: eventSchema(schema)}); err != nil {
					t.Fatal(err)
				}
			}
			res := &collect{types: types}
			into := emitFunc(func(ctx context.Context, rec arrow.RecordBatch) error {
				defer rec.Release()
				return a.ProcessFrom(ctx, 0, 0, rec, res)
			})
			for _, b := range batches {
				ks := expr.BuildArray(mem, sqltypes.StringType, "UTC", b[0])
				vs := expr.BuildArray(mem, sqltypes.LongType, "UTC", b[1])
				ret := boolArray(mem, make([]bool, len(b[1])))
				rec := flow.NewDataBatch(mem, eventSchema(schema), []arrow.Array{ks, vs}, ret)
				releaseAll([]arrow.Array{ks, vs, ret})
				if fused {
					err = a.ProcessFrom(context.Background(), 0, 0, rec, res)
				} else {
					err = f.Process(context.Background(), 0, rec, into)
				}
				rec.Release()
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := a.EndOfData(context.Background(), res); err != nil {
				t.Fatal(err)
			}
			a.Close()
			return res.rows
		}
		got, want := run(true), run(false)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d iter %d %s where %s: fused %v, behind the filter %v", seed, iter, c.aggs, cond, got, want)
		}
		mem.AssertSize(t, 0)
	}
}

type emitFunc func(context.Context, arrow.RecordBatch) error

func (f emitFunc) Emit(ctx context.Context, rec arrow.RecordBatch) error { return f(ctx, rec) }
