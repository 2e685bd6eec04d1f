package operators

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestFixedKeyAggregateMatchesRowTable runs a batch aggregate grouped by one integer-like key
// through fixedKeyIDs and through the row table, on the same random batches from several
// senders (NULL keys, extremes, duplicates), and compares the output rows and their order; the
// seed is printed.
func TestFixedKeyAggregateMatchesRowTable(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 11))
	types := []sqltypes.DataType{sqltypes.ByteType, sqltypes.ShortType, sqltypes.IntegerType, sqltypes.DateType,
		sqltypes.LongType, sqltypes.TimestampType}
	for iter := 0; iter < 50; iter++ {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		kt := types[r.IntN(len(types))]
		schema := sqltypes.Schema{{Name: "k", Type: kt, Nullable: true}, {Name: "v", Type: sqltypes.LongType, Nullable: true}}
		domain := 1 + r.IntN(3000)
		type batch struct {
			sender int
			keys   []any
			vals   []any
		}
		var batches []batch
		for range 1 + r.IntN(6) {
			n := r.IntN(500)
			b := batch{sender: r.IntN(2)}
			for range n {
				var k any
				if r.IntN(20) > 0 {
					v := int64(r.IntN(domain)) - int64(domain/2)
					if r.IntN(50) == 0 {
						v = []int64{math.MinInt64, math.MaxInt64}[r.IntN(2)]
					}
					switch kt.Kind {
					case sqltypes.Byte:
						k = int8(v)
					case sqltypes.Short:
						k = int16(v)
					case sqltypes.Integer, sqltypes.Date:
						k = int32(v)
					default:
						k = v
					}
				}
				b.keys = append(b.keys, k)
				b.vals = append(b.vals, int64(r.IntN(100)))
			}
			batches = append(batches, b)
		}
		run := func(fixed bool) []string {
			ctx := &expr.Context{Mem: mem, ANSI: true}
			spec := AggregateSpec{KeyCols: []int{0}, KeyTypes: []sqltypes.DataType{kt},
				Aggs: parseAggs(schema, "sum(v);count(v);max(v)"), TZ: "UTC"}
			out := sqltypes.Schema{schema[0]}
			for _, f := range spec.Aggs {
				out = append(out, sqltypes.Field{Name: f.String(), Type: f.Type(), Nullable: true})
			}
			env := flow.Env{Mem: mem, Partitions: 1, OutSchema: eventSchema(out)}
			op, err := HashAggregate(ctx, spec)(env)
			if err != nil {
				t.Fatal(err)
			}
			a := op.(*hashAggregate)
			if a.fixed == nil {
				t.Fatalf("%s key: no fixed-key index", kt.SQL())
			}
			if !fixed {
				a.fixed = nil
			}
			types := []sqltypes.DataType{kt, sqltypes.LongType, sqltypes.LongType, sqltypes.LongType}
			res := &collect{types: types}
			for _, b := range batches {
				arrs := []arrow.Array{expr.BuildArray(mem, kt, "UTC", b.keys), expr.BuildArray(mem, sqltypes.LongType, "UTC", b.vals)}
				ret := boolArray(mem, make([]bool, len(b.keys)))
				rec := flow.NewDataBatch(mem, eventSchema(schema), arrs, ret)
				releaseAll(arrs)
				ret.Release()
				if err := a.ProcessFrom(context.Background(), 0, b.sender, rec, res); err != nil {
					t.Fatal(err)
				}
				rec.Release()
			}
			if err := a.EndOfData(context.Background(), res); err != nil {
				t.Fatal(err)
			}
			a.Close()
			return res.rows
		}
		got, want := run(true), run(false)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d iter %d key %s: fixed-key groups\n%s\nrow-table groups\n%s", seed, iter, kt.SQL(),
				strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if len(got) == 0 && len(batches) > 0 && len(batches[0].keys) > 0 {
			t.Fatalf("seed %d iter %d: no groups", seed, iter)
		}
		mem.AssertSize(t, 0)
	}
}
