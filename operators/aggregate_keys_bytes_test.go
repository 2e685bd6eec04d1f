package operators

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestByteKeyAggregateMatchesRowTable runs a batch aggregate grouped by one to four keys of
// mixed types (strings with shared prefixes and empty values, binaries, decimals, booleans,
// integers) through byteKeyIDs and through the row table, on the same random batches from
// several senders, and compares the output rows and their order; the seed is printed.
func TestByteKeyAggregateMatchesRowTable(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 17))
	types := []sqltypes.DataType{sqltypes.StringType, sqltypes.StringType, sqltypes.BinaryType,
		{Kind: sqltypes.Decimal, Precision: 12, Scale: 2}, {Kind: sqltypes.Decimal, Precision: 38, Scale: 6},
		sqltypes.BooleanType, sqltypes.LongType, sqltypes.IntegerType, sqltypes.DateType, sqltypes.ByteType}
	// Strings whose concatenations collide when not length-prefixed, and bytes of every kind.
	words := []string{"", "a", "ab", "b", "ba", "\x00", "a\x00", "N", "R", "AIR", "MAIL", "long string value " + strings.Repeat("x", 40)}
	for iter := 0; iter < 60; iter++ {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		nk := 1 + r.IntN(4)
		var kts []sqltypes.DataType
		var schema sqltypes.Schema
		for k := range nk {
			kt := types[r.IntN(len(types))]
			if k == 0 {
				kt = types[r.IntN(5)] // at least one key the fixed index does not take
			}
			kts = append(kts, kt)
			schema = append(schema, sqltypes.Field{Name: fmt.Sprintf("k%d", k), Type: kt, Nullable: true})
		}
		schema = append(schema, sqltypes.Field{Name: "v", Type: sqltypes.LongType, Nullable: true})
		domain := 1 + r.IntN(len(words))
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
					if r.IntN(15) > 0 {
						v := r.IntN(domain)
						switch kt.Kind {
						case sqltypes.String:
							k = words[v]
						case sqltypes.Binary:
							k = []byte(words[v])
						case sqltypes.Decimal:
							k = decimal128.FromI64(int64(v) - int64(domain/2))
							if kt.Precision == 38 && v == 0 {
								k = decimal128.New(-1<<62, 12345) // a high word
							}
						case sqltypes.Boolean:
							k = v%2 == 0
						case sqltypes.Byte:
							k = int8(v)
						case sqltypes.Integer, sqltypes.Date:
							k = int32(v) - 3
						default:
							k = int64(v) << 40
						}
					}
					b.keys[c] = append(b.keys[c], k)
				}
				b.vals = append(b.vals, int64(r.IntN(100)))
			}
			batches = append(batches, b)
		}
		run := func(byKey bool) []string {
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
			if _, ok := a.fixed.(*byteKeyIDs); !ok {
				t.Fatalf("%v keys: index %T, not byteKeyIDs", kts, a.fixed)
			}
			if !byKey {
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
			t.Fatalf("seed %d iter %d keys %v: byte-key groups\n%s\nrow-table groups\n%s", seed, iter, kts,
				strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if len(got) == 0 && len(batches) > 0 && len(batches[0].vals) > 0 {
			t.Fatalf("seed %d iter %d: no groups", seed, iter)
		}
		mem.AssertSize(t, 0)
	}
}

// TestByteKeysSliced encodes key columns that are slices of larger arrays (non-zero offsets):
// the keys must be those of the slice's rows.
func TestByteKeysSliced(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := expr.BuildArray(mem, sqltypes.StringType, "UTC", []any{"x", "a", nil, "a", "bb"})
	defer s.Release()
	d := expr.BuildArray(mem, sqltypes.LongType, "UTC", []any{int64(9), int64(1), int64(2), int64(1), nil})
	defer d.Release()
	ss, ds := array.NewSlice(s, 1, 5), array.NewSlice(d, 1, 5)
	defer ss.Release()
	defer ds.Release()
	idx := newByteKeyIDs()
	table := newRowTable(mem)
	defer table.release()
	groups := make([]uint32, 4)
	next := uint32(0)
	ok, err := idx.lookup(table, []arrow.Array{ss, ds}, groups, func() uint32 { next++; return next - 1 })
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if want := []uint32{0, 1, 0, 2}; !slices.Equal(groups, want) {
		t.Fatalf("groups %v, want %v", groups, want)
	}
}
