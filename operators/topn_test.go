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

// collect is an emitter keeping the rows it is sent, rendered.
type collect struct {
	types []sqltypes.DataType
	rows  []string
}

func (c *collect) Emit(_ context.Context, rec arrow.RecordBatch) error {
	defer rec.Release()
	for i := 0; i < int(rec.NumRows()); i++ {
		vals := make([]string, len(c.types))
		for k, t := range c.types {
			vals[k] = fmt.Sprintf("%#v", expr.ValueAt(rec.Column(k+flow.UserOffset), i, t))
		}
		c.rows = append(c.rows, strings.Join(vals, ","))
	}
	return nil
}

func randomSortValue(r *rand.Rand, t sqltypes.DataType) any {
	if r.IntN(6) == 0 {
		return nil
	}
	switch t.Kind {
	case sqltypes.Integer:
		return []int32{math.MinInt32, math.MaxInt32, int32(r.IntN(7) - 3)}[r.IntN(3)]
	case sqltypes.Long:
		return []int64{math.MinInt64, math.MaxInt64, int64(r.IntN(7) - 3)}[r.IntN(3)]
	case sqltypes.Double:
		return []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), float64(r.IntN(7)-3) / 2}[r.IntN(6)]
	case sqltypes.Boolean:
		return r.IntN(2) == 0
	case sqltypes.String:
		return string(rune('a' + r.IntN(4)))
	}
	panic(t.SQL())
}

// TestSortAndTopNMatchStableSort compares Sort (normalized keys when all are fixed-width) and
// TopN (heap; compacting often) with a row-at-a-time stable sort through compareAt then a
// limit, on random batches with NULLs, NaN, -0.0 and extremes; the seed is printed.
func TestSortAndTopNMatchStableSort(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	types := []sqltypes.DataType{sqltypes.IntegerType, sqltypes.LongType, sqltypes.DoubleType, sqltypes.BooleanType, sqltypes.StringType}
	for iter := 0; iter < 200; iter++ {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		ncols := 1 + r.IntN(3)
		schema := make(sqltypes.Schema, ncols+1)
		for c := range ncols {
			schema[c] = sqltypes.Field{Name: fmt.Sprintf("k%d", c), Type: types[r.IntN(len(types))], Nullable: true}
		}
		schema[ncols] = sqltypes.Field{Name: "seq", Type: sqltypes.LongType}
		var keys []SortKey
		for c := range ncols {
			if r.IntN(3) > 0 || c == 0 {
				keys = append(keys, SortKey{Expr: column(schema, schema[c].Name), Descending: r.IntN(2) == 0, NullsFirst: r.IntN(2) == 0})
			}
		}
		var batches [][][]any
		seq := int64(0)
		for range 1 + r.IntN(5) {
			n := r.IntN(60)
			cols := make([][]any, len(schema))
			for i := 0; i < n; i++ {
				row := make([]any, len(schema))
				for c := range ncols {
					row[c] = randomSortValue(r, schema[c].Type)
				}
				row[ncols] = seq
				seq++
				for c := range row {
					cols[c] = append(cols[c], row[c])
				}
			}
			batches = append(batches, cols)
		}
		n, offset := int64(r.IntN(20)), int64(r.IntN(4))
		types := make([]sqltypes.DataType, len(schema))
		for c, f := range schema {
			types[c] = f.Type
		}
		run := func(f Factory, compact bool) []string {
			env := flow.Env{Mem: mem, Partitions: 1, OutSchema: eventSchema(schema)}
			op, err := f(env)
			if err != nil {
				t.Fatal(err)
			}
			if tn, ok := op.(*topN); ok && compact {
				tn.compactAt = int(n+offset) + 5
			}
			out := &collect{types: types}
			for _, cols := range batches {
				arrs := make([]arrow.Array, len(schema))
				for c := range schema {
					arrs[c] = expr.BuildArray(mem, schema[c].Type, "UTC", cols[c])
				}
				ret := boolArray(mem, make([]bool, len(cols[0])))
				rec := flow.NewDataBatch(mem, eventSchema(schema), arrs, ret)
				releaseAll(arrs)
				ret.Release()
				if err := op.Process(context.Background(), 0, rec, out); err != nil {
					t.Fatal(err)
				}
				rec.Release()
			}
			if err := op.(flow.EndOfDataHandler).EndOfData(context.Background(), out); err != nil {
				t.Fatal(err)
			}
			op.(flow.Closer).Close()
			return out.rows
		}
		ctx := &expr.Context{Mem: mem, ANSI: true}
		sorted := run(Sort(ctx, keys), false)
		top := run(TopN(ctx, keys, n, offset), r.IntN(2) == 0)

		// The oracle: rows as Go values, a stable sort comparing through compareAt.
		var all [][]any
		for _, cols := range batches {
			for i := range cols[0] {
				row := make([]any, len(schema))
				for c := range schema {
					row[c] = cols[c][i]
				}
				all = append(all, row)
			}
		}
		keyArrs := make([]arrow.Array, len(keys))
		for k, key := range keys {
			c := key.Expr.(*expr.Column).Index
			vals := make([]any, len(all))
			for i, row := range all {
				vals[i] = row[c]
			}
			keyArrs[k] = expr.BuildArray(mem, schema[c].Type, "UTC", vals)
		}
		idx := make([]int, len(all))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			for k, key := range keys {
				c := keyArrs[k]
				an, bn := c.IsNull(a), c.IsNull(b)
				if an || bn {
					if an && bn {
						continue
					}
					if an == key.NullsFirst {
						return -1
					}
					return 1
				}
				r := compareAt(c, a, c, b)
				if key.Descending {
					r = -r
				}
				if r != 0 {
					return r
				}
			}
			return 0
		})
		releaseAll(keyArrs)
		var want []string
		for _, i := range idx {
			vals := make([]string, len(schema))
			for c := range schema {
				vals[c] = fmt.Sprintf("%#v", all[i][c])
			}
			want = append(want, strings.Join(vals, ","))
		}
		if !slices.Equal(sorted, want) {
			t.Fatalf("seed %d iter %d keys %v: Sort\n%s\nwant\n%s", seed, iter, keys, strings.Join(sorted, "\n"), strings.Join(want, "\n"))
		}
		lo, hi := min(int(offset), len(want)), min(int(offset+n), len(want))
		if !slices.Equal(top, want[lo:hi]) {
			t.Fatalf("seed %d iter %d keys %v limit %d offset %d: TopN\n%s\nwant\n%s", seed, iter, keys, n, offset,
				strings.Join(top, "\n"), strings.Join(want[lo:hi], "\n"))
		}
		mem.AssertSize(t, 0)
	}
}

// TestTopNAndSortCountTheirGoMemory checks that the heap and the normalized keys (Go slices, not
// Arrow buffers) are counted in the query's budget, so that a budget bounds what TopN and Sort
// really hold, and that a budget too small for them fails with UNABLE_TO_ACQUIRE_MEMORY.
func TestTopNAndSortCountTheirGoMemory(t *testing.T) {
	schema := sqltypes.Schema{{Name: "id", Type: sqltypes.LongType}}
	keys := []SortKey{{Expr: column(schema, "id"), Descending: true}}
	const batches, rows = 8, 4096
	feed := func(op flow.Operator, mem memory.Allocator) error {
		for b := range batches {
			vals := make([]any, rows)
			for i := range vals {
				vals[i] = int64(b*rows + i)
			}
			arr := expr.BuildArray(mem, sqltypes.LongType, "UTC", vals)
			ret := boolArray(mem, make([]bool, rows))
			rec := flow.NewDataBatch(mem, eventSchema(schema), []arrow.Array{arr}, ret)
			arr.Release()
			ret.Release()
			err := op.Process(context.Background(), 0, rec, &collect{types: []sqltypes.DataType{sqltypes.LongType}})
			rec.Release()
			if err != nil {
				return err
			}
		}
		return nil
	}
	checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
	// Arrow buffers in one account, Go-side memory in another, to see the second alone.
	arrowBytes, goBytes := flow.NewMemoryBudget(checked, 0), flow.NewMemoryBudget(nil, 0)
	env := flow.Env{Mem: arrowBytes, Budget: goBytes, Partitions: 1, OutSchema: eventSchema(schema)}
	ctx := &expr.Context{Mem: arrowBytes, ANSI: true}
	op, err := TopN(ctx, keys, batches*rows, 0)(env)
	if err != nil {
		t.Fatal(err)
	}
	if err := feed(op, arrowBytes); err != nil {
		t.Fatal(err)
	}
	// Every row has its normalized key (16 bytes) and an entry in the heap (16 bytes an entry of
	// its capacity).
	heap := op.(*topN).heap
	if want := int64(batches*rows*16 + cap(heap)*topEntryBytes); len(heap) != batches*rows || goBytes.Used() != want {
		t.Fatalf("Go-side bytes counted %d, want %d (heap of %d)", goBytes.Used(), want, len(heap))
	}
	op.(flow.Closer).Close()
	if goBytes.Used() != 0 || arrowBytes.Used() != 0 {
		t.Fatalf("after Close the budget still counts %d + %d bytes", goBytes.Used(), arrowBytes.Used())
	}
	checked.AssertSize(t, 0)

	for name, f := range map[string]Factory{"TopN": TopN(ctx, keys, batches*rows, 0), "Sort": Sort(ctx, keys)} {
		// Room for the Arrow buffers of the rows, not for the heap and keys beside them.
		small := flow.NewMemoryBudget(checked, int64(batches*rows*8*3))
		env := flow.Env{Mem: small, Budget: small, Partitions: 1, OutSchema: eventSchema(schema)}
		op, err := f(env)
		if err != nil {
			t.Fatal(err)
		}
		err = feed(op, small)
		if err == nil {
			err = op.(flow.EndOfDataHandler).EndOfData(context.Background(), &collect{types: []sqltypes.DataType{sqltypes.LongType}})
		}
		if !flow.IsOutOfMemory(err) {
			t.Fatalf("%s: got %v, want UNABLE_TO_ACQUIRE_MEMORY", name, err)
		}
		op.(flow.Closer).Close()
		if small.Used() != 0 {
			t.Fatalf("%s: after Close the budget still counts %d bytes", name, small.Used())
		}
	}
	checked.AssertSize(t, 0)
}
