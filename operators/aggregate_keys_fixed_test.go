package operators

import (
	"context"
	"fmt"
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

// TestFixedKeyAggregateMatchesRowTable runs a batch aggregate grouped by one to three integer-like keys
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
		nk := 1 + r.IntN(3)
		var kts []sqltypes.DataType
		var schema sqltypes.Schema
		for k := range nk {
			kts = append(kts, types[r.IntN(len(types))])
			schema = append(schema, sqltypes.Field{Name: fmt.Sprintf("k%d", k), Type: kts[k], Nullable: true})
		}
		schema = append(schema, sqltypes.Field{Name: "v", Type: sqltypes.LongType, Nullable: true})
		domain := 1 + r.IntN(3000)
		// Without extremes a single key's values stay within a direct table's span.
		extremes := r.IntN(2) == 0
		if nk > 1 {
			domain = 1 + r.IntN(40)
		}
		type batch struct {
			sender int
			keys   [][]any
			vals   []any
		}
		var batches []batch
		for range 1 + r.IntN(6) {
			n := r.IntN(500)
			b := batch{sender: r.IntN(2), keys: make([][]any, nk)}
			for range n {
				for c, kt := range kts {
					var k any
					if r.IntN(20) > 0 {
						v := int64(r.IntN(domain)) - int64(domain/2)
						if extremes && r.IntN(50) == 0 {
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
					b.keys[c] = append(b.keys[c], k)
				}
				b.vals = append(b.vals, int64(r.IntN(100)))
			}
			batches = append(batches, b)
		}
		run := func(fixed bool) []string {
			ctx := &expr.Context{Mem: mem, ANSI: true}
			spec := AggregateSpec{KeyTypes: kts, Aggs: parseAggs(schema, "sum(v);count(v);max(v)"), TZ: "UTC"}
			for k := range nk {
				spec.KeyCols = append(spec.KeyCols, k)
			}
			out := append(sqltypes.Schema{}, schema[:nk]...)
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
				t.Fatalf("%v keys: no fixed-key index", kts)
			}
			if !fixed {
				a.fixed = nil
			}
			types := append(append([]sqltypes.DataType{}, kts...), sqltypes.LongType, sqltypes.LongType, sqltypes.LongType)
			res := &collect{types: types}
			for _, b := range batches {
				var arrs []arrow.Array
				for c, kt := range kts {
					arrs = append(arrs, expr.BuildArray(mem, kt, "UTC", b.keys[c]))
				}
				arrs = append(arrs, expr.BuildArray(mem, sqltypes.LongType, "UTC", b.vals))
				ret := boolArray(mem, make([]bool, len(b.vals)))
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
			t.Fatalf("seed %d iter %d keys %v: fixed-key groups\n%s\nrow-table groups\n%s", seed, iter, kts,
				strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if len(got) == 0 && len(batches) > 0 && len(batches[0].vals) > 0 {
			t.Fatalf("seed %d iter %d: no groups", seed, iter)
		}
		mem.AssertSize(t, 0)
	}
}
