package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// accCase is an aggregate over one column x of values; row i goes to group accGroups[i].
type accCase struct {
	fn   string
	t    sqltypes.DataType
	vals []any
}

var accGroups = []uint32{0, 1, 0, 1}

var accCases = func() []accCase {
	dec := sqltypes.DecimalType(10, 2)
	return []accCase{
		{"count", sqltypes.LongType, []any{int64(1), nil, int64(3), int64(4)}},
		{"sum", sqltypes.LongType, []any{int64(1), nil, int64(3), int64(4)}},
		{"try_sum", sqltypes.LongType, []any{int64(1), int64(9223372036854775807), int64(3), int64(4)}},
		{"avg", sqltypes.LongType, []any{int64(1), int64(2), int64(3), int64(4)}},
		{"sum", sqltypes.DoubleType, []any{1.5, 2.25, nil, -4.0}},
		{"avg", dec, []any{decimal128.FromI64(150), decimal128.FromI64(225), decimal128.FromI64(-5), nil}},
		{"sum", dec, []any{decimal128.FromI64(150), decimal128.FromI64(225), decimal128.FromI64(-5), nil}},
		{"min", sqltypes.LongType, []any{int64(5), int64(1), int64(1), int64(9)}},
		{"max", sqltypes.IntegerType, []any{int32(5), int32(9), int32(1), int32(9)}},
		{"max", sqltypes.DoubleType, []any{5.0, 9.5, 1.0, 9.5}},
		{"min", sqltypes.DoubleType, []any{-0.0, 9.5, 1.0, 9.5}},
		{"min", sqltypes.StringType, []any{"b", "a", "a", "c"}},
		{"max", sqltypes.StringType, []any{"b", "z", "a", "z"}},
		{"stddev", sqltypes.DoubleType, []any{1.0, 2.0, 4.0, 8.0}},
		{"bool_and", sqltypes.BooleanType, []any{true, false, true, nil}},
		{"first", sqltypes.LongType, []any{int64(3), int64(2), int64(1), nil}},
		{"collect_list", sqltypes.StringType, []any{"x", "y", nil, "z"}},
	}
}()

// accHarness feeds a case's rows to accumulators of its function and reads their results.
type accHarness struct {
	t   *testing.T
	env *testEnv
	c   accCase
	f   AggFunc
}

func newAccHarness(t *testing.T, c accCase) *accHarness {
	f, err := BindAggregate(c.fn, []Expr{col(0, "x", c.t)}, false, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	return &accHarness{t: t, env: newEnv(t, true), c: c, f: f}
}

// feed updates (or retracts) rows idx, row i into group to(accGroups[i]) (to nil: unchanged).
func (h *accHarness) feed(acc GroupedAccumulator, idx []int, to func(uint32) uint32, retract bool) {
	var vals []any
	var gs []uint32
	for _, i := range idx {
		vals = append(vals, h.c.vals[i])
		g := accGroups[i]
		if to != nil {
			g = to(g)
		}
		gs = append(gs, g)
	}
	b := h.env.batch([]sqltypes.Field{{Name: "x", Type: h.c.t, Nullable: true}}, vals)
	defer b.Release()
	args, err := evalAll(h.env.ctx, h.f.Args(), b)
	if err != nil {
		h.t.Fatal(err)
	}
	defer releaseAll(args)
	if retract {
		err = acc.Retract(gs, args)
	} else {
		err = acc.Update(gs, args)
	}
	if err != nil {
		h.t.Fatal(err)
	}
}

// result renders the results of groups gs.
func (h *accHarness) result(acc GroupedAccumulator, gs []uint32) string {
	r, err := acc.Result(h.env.ctx, gs)
	if err != nil {
		h.t.Fatal(err)
	}
	defer r.Release()
	return fmt.Sprint(resultValues(r, h.f.Type()))
}

// TestAccumulatorSnapshotRoundTrip feeds an accumulator, restores its snapshot into a fresh
// one, and checks both give the same results, also after retracting rows from both (min/max
// need their value multisets for that).
func TestAccumulatorSnapshotRoundTrip(t *testing.T) {
	all := []uint32{0, 1, 2}
	for _, c := range accCases {
		t.Run(fmt.Sprintf("%s(%s)", c.fn, c.t.String()), func(t *testing.T) {
			h := newAccHarness(t, c)
			orig := h.f.NewAccumulator(h.env.ctx)
			orig.Grow(3)
			h.feed(orig, []int{0, 1, 2, 3}, nil, false)
			data, err := SnapshotAccumulator(h.f, orig)
			if err != nil {
				t.Fatal(err)
			}
			restored := h.f.NewAccumulator(h.env.ctx)
			restored.Grow(3)
			if err := RestoreAccumulator(h.f, restored, data); err != nil {
				t.Fatal(err)
			}
			if a, b := h.result(orig, all), h.result(restored, all); a != b {
				t.Fatalf("restored %s, original %s", b, a)
			}
			h.feed(orig, []int{1, 2}, nil, true)
			h.feed(restored, []int{1, 2}, nil, true)
			if a, b := h.result(orig, all), h.result(restored, all); a != b {
				t.Fatalf("after retraction: restored %s, original %s", b, a)
			}
		})
	}
}

func resultValues(a arrow.Array, t sqltypes.DataType) []any {
	out := make([]any, a.Len())
	for i := range out {
		out[i] = ValueAt(a, i, t)
	}
	return out
}

func TestAccumulatorWithoutSnapshotIsRefused(t *testing.T) {
	env := newEnv(t, true)
	f, err := BindAggregate("count", []Expr{col(0, "x", sqltypes.DoubleType)}, true, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = SnapshotAccumulator(f, f.NewAccumulator(env.ctx))
	if err == nil || !strings.HasPrefix(err.Error(), "[UNSUPPORTED_FEATURE] checkpointing the streaming state of aggregate count(DISTINCT x) is not supported by Weir") {
		t.Fatalf("snapshot: %v", err)
	}
}
