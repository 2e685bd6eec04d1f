package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sqltypes"
)

// TestAccumulatorSnapshotRoundTrip feeds an accumulator, restores its snapshot into a fresh
// one, and checks both give the same results, also after retracting rows from both (min/max
// need their value multisets for that).
func TestAccumulatorSnapshotRoundTrip(t *testing.T) {
	dec := sqltypes.DecimalType(10, 2)
	cases := []struct {
		fn   string
		t    sqltypes.DataType
		vals []any
	}{
		{"count", sqltypes.LongType, []any{int64(1), nil, int64(3), int64(4)}},
		{"sum", sqltypes.LongType, []any{int64(1), nil, int64(3), int64(4)}},
		{"avg", sqltypes.LongType, []any{int64(1), int64(2), int64(3), int64(4)}},
		{"sum", sqltypes.DoubleType, []any{1.5, 2.25, nil, -4.0}},
		{"avg", dec, []any{decimal128.FromI64(150), decimal128.FromI64(225), decimal128.FromI64(-5), nil}},
		{"sum", dec, []any{decimal128.FromI64(150), decimal128.FromI64(225), decimal128.FromI64(-5), nil}},
		{"min", sqltypes.LongType, []any{int64(5), int64(1), int64(1), int64(9)}},
		{"max", sqltypes.IntegerType, []any{int32(5), int32(9), int32(1), int32(9)}},
		{"max", sqltypes.DoubleType, []any{5.0, 9.5, 1.0, 9.5}},
		{"min", sqltypes.StringType, []any{"b", "a", "a", "c"}},
		{"max", sqltypes.StringType, []any{"b", "z", "a", "z"}},
		{"stddev", sqltypes.DoubleType, []any{1.0, 2.0, 4.0, 8.0}},
		{"bool_and", sqltypes.BooleanType, []any{true, false, true, nil}},
		{"first", sqltypes.LongType, []any{int64(3), int64(2), int64(1), nil}},
	}
	groups := []uint32{0, 1, 0, 1}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s(%s)", c.fn, c.t.String()), func(t *testing.T) {
			env := newEnv(t, true)
			fields := []sqltypes.Field{{Name: "x", Type: c.t, Nullable: true}}
			f, err := BindAggregate(c.fn, []Expr{col(0, "x", c.t)}, false, Options{ANSI: true})
			if err != nil {
				t.Fatal(err)
			}
			feed := func(acc GroupedAccumulator, idx []int, retract bool) {
				var vals []any
				var gs []uint32
				for _, i := range idx {
					vals = append(vals, c.vals[i])
					gs = append(gs, groups[i])
				}
				b := env.batch(fields, vals)
				defer b.Release()
				args, err := evalAll(env.ctx, f.Args(), b)
				if err != nil {
					t.Fatal(err)
				}
				defer releaseAll(args)
				if retract {
					err = acc.Retract(gs, args)
				} else {
					err = acc.Update(gs, args)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			result := func(acc GroupedAccumulator) string {
				r, err := acc.Result(env.ctx, []uint32{0, 1, 2})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Release()
				return fmt.Sprint(resultValues(r, f.Type()))
			}
			orig := f.NewAccumulator(env.ctx)
			orig.Grow(3)
			feed(orig, []int{0, 1, 2, 3}, false)
			data, err := SnapshotAccumulator(f, orig)
			if err != nil {
				t.Fatal(err)
			}
			restored := f.NewAccumulator(env.ctx)
			restored.Grow(3)
			if err := RestoreAccumulator(f, restored, data); err != nil {
				t.Fatal(err)
			}
			if a, b := result(orig), result(restored); a != b {
				t.Fatalf("restored %s, original %s", b, a)
			}
			feed(orig, []int{1, 2}, true)
			feed(restored, []int{1, 2}, true)
			if a, b := result(orig), result(restored); a != b {
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
