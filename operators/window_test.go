package operators

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
	"github.com/weirhq/weir/state"
)

// collector is an Emitter keeping every emitted row's user values.
type collector struct {
	types []sqltypes.DataType
	rows  [][]any
}

func (c *collector) Emit(_ context.Context, rec arrow.RecordBatch) error {
	defer rec.Release()
	for i := 0; i < int(rec.NumRows()); i++ {
		row := make([]any, len(c.types))
		for j, t := range c.types {
			row[j] = expr.ValueAt(rec.Column(j+flow.UserOffset), i, t)
		}
		c.rows = append(c.rows, row)
	}
	return nil
}

// windowCase is one random window function over random data: rows (id, p, o, v), partitioned
// by p, ordered by o.
type windowCase struct {
	ids        []int64
	p, o, v    []any // int64 or nil
	desc       bool
	nullsFirst bool
	f          *logical.WindowFunc
	aggName    string
}

var windowSchema = sqltypes.Schema{
	{Name: "id", Type: sqltypes.LongType}, {Name: "p", Type: sqltypes.LongType, Nullable: true},
	{Name: "o", Type: sqltypes.LongType, Nullable: true}, {Name: "v", Type: sqltypes.LongType, Nullable: true},
}

func randomWindowCase(rng *rand.Rand) *windowCase {
	n := 1 + rng.Intn(120)
	c := &windowCase{desc: rng.Intn(2) == 0, nullsFirst: rng.Intn(2) == 0}
	maybeNull := func(v int64, pct int) any {
		if rng.Intn(100) < pct {
			return nil
		}
		return v
	}
	parts := 1 + rng.Intn(4)
	for i := 0; i < n; i++ {
		c.ids = append(c.ids, int64(i))
		c.p = append(c.p, maybeNull(int64(rng.Intn(parts)), 10))
		c.o = append(c.o, maybeNull(int64(rng.Intn(30)), 10))
		c.v = append(c.v, maybeNull(int64(rng.Intn(100)-50), 25))
	}
	v := &expr.Column{Index: 3, Name: "v", T: sqltypes.LongType, Null: true}
	bound := func(lower bool) logical.FrameBound {
		switch rng.Intn(4) {
		case 0:
			if lower {
				return logical.FrameBound{Kind: logical.UnboundedPreceding}
			}
			return logical.FrameBound{Kind: logical.UnboundedFollowing}
		case 1:
			return logical.FrameBound{Kind: logical.CurrentRow}
		}
		off := int64(rng.Intn(9) - 4)
		return logical.FrameBound{Kind: logical.OffsetBound, Rows: off, Value: off, SQL: fmt.Sprint(off)}
	}
	frame := logical.Frame{Rows: rng.Intn(2) == 0, Lower: bound(true), Upper: bound(false)}
	f := &logical.WindowFunc{Frame: frame, IgnoreNulls: rng.Intn(2) == 0}
	switch k := rng.Intn(12); k {
	case 0, 1, 2, 3, 4, 5:
		f.Kind = [...]logical.WindowKind{logical.WindowRowNumber, logical.WindowRank, logical.WindowDenseRank,
			logical.WindowPercentRank, logical.WindowCumeDist, logical.WindowNTile}[k]
		f.Offset = int64(1 + rng.Intn(7))
	case 6:
		f.Kind, f.Value, f.Offset = logical.WindowOffset, v, int64(rng.Intn(7)-3)
		f.Default = expr.NewLiteral(int64(-999), sqltypes.LongType)
	case 7:
		f.Kind, f.Value, f.Offset = logical.WindowNthValue, v, int64(1+rng.Intn(4))
	case 8:
		f.Kind, f.Value = logical.WindowFirst, v
	case 9:
		f.Kind, f.Value = logical.WindowLast, v
	default:
		c.aggName = []string{"sum", "count", "min", "max", "avg", "collect_list", "theta_sketch_agg"}[rng.Intn(7)]
		agg, err := expr.BindAggregate(c.aggName, []expr.Expr{v}, false, expr.Options{})
		if err != nil {
			panic(err)
		}
		f.Kind, f.Agg = logical.WindowAggregate, agg
	}
	if f.Agg != nil {
		f.Type = f.Agg.Type()
	} else if f.Value != nil {
		f.Type = sqltypes.LongType
	} else if f.Kind == logical.WindowPercentRank || f.Kind == logical.WindowCumeDist {
		f.Type = sqltypes.DoubleType
	} else {
		f.Type = sqltypes.IntegerType
	}
	c.f = f
	return c
}

func (c *windowCase) String() string {
	return fmt.Sprintf("kind=%d agg=%s offset=%d ignoreNulls=%v frame=%s desc=%v nullsFirst=%v rows=%d",
		c.f.Kind, c.aggName, c.f.Offset, c.f.IgnoreNulls, c.f.Frame, c.desc, c.nullsFirst, len(c.ids))
}

// run computes the case with the Window operator, fed in batches of batchRows; the result is
// by id.
func (c *windowCase) run(t *testing.T, mem memory.Allocator, batchRows int, budget state.Budget) map[int64]any {
	out := append(append(sqltypes.Schema{}, windowSchema...), sqltypes.Field{Name: "w", Type: c.f.Type, Nullable: true})
	env := flow.Env{Mem: mem, Partitions: 1, OutSchema: eventSchema(out)}
	spec := WindowSpec{
		PartitionBy: []expr.Expr{&expr.Column{Index: 1, Name: "p", T: sqltypes.LongType, Null: true}},
		OrderBy: []SortKey{{Expr: &expr.Column{Index: 2, Name: "o", T: sqltypes.LongType, Null: true},
			Descending: c.desc, NullsFirst: c.nullsFirst}},
		Funcs:  []*logical.WindowFunc{c.f},
		Budget: budget,
	}
	op, err := Window(&expr.Context{Mem: mem}, spec)(env)
	if err != nil {
		t.Fatal(err)
	}
	defer op.(flow.Closer).Close()
	col := &collector{types: []sqltypes.DataType{sqltypes.LongType, sqltypes.LongType, sqltypes.LongType, sqltypes.LongType, c.f.Type}}
	ctx := context.Background()
	for lo := 0; lo < len(c.ids); lo += batchRows {
		hi := min(lo+batchRows, len(c.ids))
		ids := make([]any, hi-lo)
		for i := range ids {
			ids[i] = c.ids[lo+i]
		}
		arrs := []arrow.Array{expr.BuildArray(mem, sqltypes.LongType, "UTC", ids),
			expr.BuildArray(mem, sqltypes.LongType, "UTC", c.p[lo:hi]),
			expr.BuildArray(mem, sqltypes.LongType, "UTC", c.o[lo:hi]),
			expr.BuildArray(mem, sqltypes.LongType, "UTC", c.v[lo:hi])}
		ret := boolArray(mem, make([]bool, hi-lo))
		rec := flow.NewDataBatch(mem, eventSchema(windowSchema), arrs, ret)
		releaseAll(arrs)
		ret.Release()
		err := op.Process(ctx, 0, rec, col)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if budget.Limited() && budget.MemoryBytes < 32 && op.(*windowOp).spill == nil {
		t.Fatalf("a budget of %d bytes did not spill", budget.MemoryBytes)
	}
	if err := op.(flow.EndOfDataHandler).EndOfData(ctx, col); err != nil {
		t.Fatal(err)
	}
	got := map[int64]any{}
	for _, r := range col.rows {
		got[r[0].(int64)] = r[4]
	}
	return got
}

// oracle computes the case row by row from the definitions: every row's partition sorted, its
// frame found by scanning, the function evaluated over the frame's values.
func (c *windowCase) oracle() map[int64]any {
	n := len(c.ids)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	cmpNull := func(a, b any, nullsFirst, desc bool) int {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			if nullsFirst {
				return -1
			}
			return 1
		case b == nil:
			if nullsFirst {
				return 1
			}
			return -1
		}
		r := int(a.(int64) - b.(int64))
		if desc {
			r = -r
		}
		return r
	}
	slices.SortStableFunc(order, func(x, y int) int {
		if r := cmpNull(c.p[x], c.p[y], true, false); r != 0 {
			return r
		}
		return cmpNull(c.o[x], c.o[y], c.nullsFirst, c.desc)
	})
	want := map[int64]any{}
	for pos, i := range order {
		var part []int // rows of i's partition in order
		for _, j := range order {
			if cmpNull(c.p[i], c.p[j], true, false) == 0 {
				part = append(part, j)
			}
		}
		me := slices.Index(part, i)
		peer := func(j int) bool { return cmpNull(c.o[i], c.o[j], true, false) == 0 }
		dk := func(j int) int64 {
			if c.desc {
				return -c.o[j].(int64)
			}
			return c.o[j].(int64)
		}
		inLower := func(q int) bool {
			b := c.f.Frame.Lower
			switch {
			case b.Kind == logical.UnboundedPreceding:
				return true
			case c.f.Frame.Rows && b.Kind == logical.CurrentRow:
				return q >= me
			case c.f.Frame.Rows:
				return q >= me+int(b.Rows)
			case b.Kind == logical.CurrentRow || c.o[i] == nil:
				return q >= slices.IndexFunc(part, peer)
			}
			return c.o[part[q]] != nil && dk(part[q]) >= dk(i)+b.Value.(int64) ||
				c.o[part[q]] == nil && !c.nullsFirst
		}
		inUpper := func(q int) bool {
			b := c.f.Frame.Upper
			switch {
			case b.Kind == logical.UnboundedFollowing:
				return true
			case c.f.Frame.Rows && b.Kind == logical.CurrentRow:
				return q <= me
			case c.f.Frame.Rows:
				return q <= me+int(b.Rows)
			case b.Kind == logical.CurrentRow || c.o[i] == nil:
				last := -1
				for k, j := range part {
					if peer(j) {
						last = k
					}
				}
				return q <= last
			}
			return c.o[part[q]] != nil && dk(part[q]) <= dk(i)+b.Value.(int64) ||
				c.o[part[q]] == nil && c.nullsFirst
		}
		var frame []int
		for q := range part {
			if inLower(q) && inUpper(q) {
				frame = append(frame, part[q])
			}
		}
		_ = pos
		want[c.ids[i]] = c.value(i, me, part, frame, peer)
	}
	return want
}

func (c *windowCase) value(i, me int, part, frame []int, peer func(int) bool) any {
	f := c.f
	firstPeer := slices.IndexFunc(part, peer)
	lastPeer := firstPeer
	for k := range part {
		if peer(part[k]) {
			lastPeer = k
		}
	}
	var vals []any
	for _, j := range frame {
		if !f.IgnoreNulls || c.v[j] != nil {
			vals = append(vals, c.v[j])
		}
	}
	switch f.Kind {
	case logical.WindowRowNumber:
		return int32(me + 1)
	case logical.WindowRank:
		return int32(firstPeer + 1)
	case logical.WindowDenseRank:
		d := int32(0)
		for k := 0; k <= me; k++ {
			if k == 0 || cmpOrder(c.o[part[k]], c.o[part[k-1]]) {
				d++
			}
		}
		return d
	case logical.WindowPercentRank:
		if len(part) == 1 {
			return 0.0
		}
		return float64(firstPeer) / float64(len(part)-1)
	case logical.WindowCumeDist:
		return float64(lastPeer+1) / float64(len(part))
	case logical.WindowNTile:
		// Fill buckets of size n/k, the first n%k one row larger.
		n, k := len(part), int(f.Offset)
		b, left := 1, n/k
		if n%k > 0 {
			left++
		}
		for r := 0; r < me; r++ {
			left--
			if left == 0 {
				b++
				left = n / k
				if b <= n%k {
					left++
				}
			}
		}
		return int32(b)
	case logical.WindowOffset:
		step := 1
		if f.Offset < 0 {
			step = -1
		}
		need := f.Offset * int64(step)
		if need == 0 {
			return c.v[i]
		}
		for q := me + step; q >= 0 && q < len(part); q += step {
			if f.IgnoreNulls && c.v[part[q]] == nil {
				continue
			}
			need--
			if need == 0 {
				return c.v[part[q]]
			}
		}
		return int64(-999)
	case logical.WindowNthValue:
		if int(f.Offset) <= len(vals) {
			return vals[f.Offset-1]
		}
		return nil
	case logical.WindowFirst:
		if len(vals) > 0 {
			return vals[0]
		}
		return nil
	case logical.WindowLast:
		if len(vals) > 0 {
			return vals[len(vals)-1]
		}
		return nil
	}
	var nonNull []int64
	for _, j := range frame {
		if c.v[j] != nil {
			nonNull = append(nonNull, c.v[j].(int64))
		}
	}
	switch c.aggName {
	case "count":
		return int64(len(nonNull))
	case "theta_sketch_agg": // cannot retract: a sliding frame recomputes it
		return freshAggregate(c.f.Agg, nonNull)
	case "collect_list":
		out := []any{}
		for _, x := range nonNull {
			out = append(out, x)
		}
		return out
	}
	if len(nonNull) == 0 {
		return nil
	}
	switch c.aggName {
	case "sum", "avg":
		s := int64(0)
		for _, x := range nonNull {
			s += x
		}
		if c.aggName == "avg" {
			return float64(s) / float64(len(nonNull))
		}
		return s
	case "min":
		return slices.Min(nonNull)
	}
	return slices.Max(nonNull)
}

// freshAggregate is agg over vals by a new accumulator.
func freshAggregate(agg expr.AggFunc, vals []int64) any {
	mem := memory.NewGoAllocator()
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	in := b.NewArray()
	defer in.Release()
	ctx := &expr.Context{Mem: mem}
	acc := agg.NewAccumulator(ctx)
	acc.Grow(1)
	if err := acc.Update(make([]uint32, len(vals)), []arrow.Array{in}); err != nil {
		panic(err)
	}
	out, err := acc.Result(ctx, []uint32{0})
	if err != nil {
		panic(err)
	}
	defer out.Release()
	return expr.ValueAt(out, 0, agg.Type())
}

func cmpOrder(a, b any) bool {
	return !(a == nil && b == nil) && (a == nil || b == nil || a.(int64) != b.(int64))
}

// TestWindowMatchesOracle compares the Window operator with a row-by-row oracle on random
// data, functions and frames (seeded; the seed is printed), a quarter of the cases with a memory
// budget small enough that the input spills and is computed partition by partition.
func TestWindowMatchesOracle(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	for iter := 0; iter < 300; iter++ {
		c := randomWindowCase(rng)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		var budget state.Budget
		if rng.Intn(4) == 0 {
			budget = state.Budget{MemoryBytes: int64(1 + rng.Intn(4000)), Dir: t.TempDir()}
		}
		got := c.run(t, mem, 1+rng.Intn(50), budget)
		want := c.oracle()
		for id, w := range want {
			if fmt.Sprint(got[id]) != fmt.Sprint(w) {
				t.Fatalf("seed %d case %d (%s): row %d: got %v, want %v", seed, iter, c, id, got[id], w)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("seed %d case %d: %d rows out, want %d", seed, iter, len(got), len(want))
		}
		mem.AssertSize(t, 0)
	}
}
