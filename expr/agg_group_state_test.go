package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sqltypes"
)

// TestAccumulatorGroupStateMoves feeds groups 0 and 1 of an accumulator, moves each group's
// state into another accumulator at other ids (1 → 0, 0 → 2, over a group that held state
// already), and checks the moved groups give the same results, also after the same rows are
// retracted from both (min/max need their value multisets for that).
func TestAccumulatorGroupStateMoves(t *testing.T) {
	dec := sqltypes.DecimalType(10, 2)
	cases := []struct {
		fn   string
		t    sqltypes.DataType
		vals []any
	}{
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
	groups := []uint32{0, 1, 0, 1}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s(%s)", c.fn, c.t.String()), func(t *testing.T) {
			env := newEnv(t, true)
			fields := []sqltypes.Field{{Name: "x", Type: c.t, Nullable: true}}
			f, err := BindAggregate(c.fn, []Expr{col(0, "x", c.t)}, false, Options{ANSI: true})
			if err != nil {
				t.Fatal(err)
			}
			feed := func(acc GroupedAccumulator, idx []int, move map[uint32]uint32, retract bool) {
				var vals []any
				var gs []uint32
				for _, i := range idx {
					vals = append(vals, c.vals[i])
					g := groups[i]
					if move != nil {
						g = move[g]
					}
					gs = append(gs, g)
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
			result := func(acc GroupedAccumulator, gs []uint32) string {
				r, err := acc.Result(env.ctx, gs)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Release()
				return fmt.Sprint(resultValues(r, f.Type()))
			}
			orig := f.NewAccumulator(env.ctx)
			orig.Grow(3)
			feed(orig, []int{0, 1, 2, 3}, nil, false)
			move := map[uint32]uint32{0: 2, 1: 0, 2: 1}
			moved := f.NewAccumulator(env.ctx)
			moved.Grow(3)
			// Group 2 holds other state first: loading replaces it.
			feed(moved, []int{0, 1, 2, 3}, map[uint32]uint32{0: 2, 1: 2}, false)
			for from, to := range map[uint32]uint32{0: 2, 1: 0, 2: 1} {
				state, err := EncodeGroupState(f, orig, nil, from)
				if err != nil {
					t.Fatal(err)
				}
				if err := LoadGroupState(f, moved, to, state); err != nil {
					t.Fatal(err)
				}
			}
			if a, b := result(orig, []uint32{0, 1, 2}), result(moved, []uint32{2, 0, 1}); a != b {
				t.Fatalf("moved %s, original %s", b, a)
			}
			if a, b := orig.SizeBytes(), moved.SizeBytes(); a != b {
				t.Errorf("moved size %d, original %d", b, a)
			}
			feed(orig, []int{1, 2}, nil, true)
			feed(moved, []int{1, 2}, move, true)
			if a, b := result(orig, []uint32{0, 1, 2}), result(moved, []uint32{2, 0, 1}); a != b {
				t.Fatalf("after retraction: moved %s, original %s", b, a)
			}
		})
	}
}

func TestAccumulatorWithoutGroupStateIsRefused(t *testing.T) {
	env := newEnv(t, true)
	f, err := BindAggregate("count", []Expr{col(0, "x", sqltypes.DoubleType)}, true, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = EncodeGroupState(f, f.NewAccumulator(env.ctx), nil, 0)
	if err == nil || !strings.HasPrefix(err.Error(), "[UNSUPPORTED_FEATURE] spilling the streaming state of aggregate count(DISTINCT x) is not supported by Weir") {
		t.Fatalf("encode: %v", err)
	}
}
