package expr

import (
	"bytes"
	"fmt"
	"testing"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestSketchStateRoundTrip checks that a sketch aggregate restored from a snapshot goes on as
// the saved one: the same further rows give the same bytes (KLL's coin flips aside, so its
// sketches stay below k items).
func TestSketchStateRoundTrip(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	longs := []sqltypes.Field{{Name: "x", Type: sqltypes.LongType, Nullable: true}}
	two := []sqltypes.Field{{Name: "x", Type: sqltypes.LongType, Nullable: true}, {Name: "v", Type: sqltypes.DoubleType, Nullable: true}}
	bins := []sqltypes.Field{{Name: "s", Type: sqltypes.BinaryType, Nullable: true}}
	rows := func(lo, hi int64) []any {
		var xs []any
		for v := lo; v < hi; v++ {
			xs = append(xs, v)
		}
		return xs
	}
	doubles := func(n int) []any {
		var xs []any
		for i := 0; i < n; i++ {
			xs = append(xs, float64(i%7))
		}
		return xs
	}
	sketch := func(name string, fields []sqltypes.Field, cols ...[]any) []any {
		_, got := runAgg(t, env, name, false, fields, make([]uint32, len(cols[0])), 1, nil, cols...)
		return got
	}
	cases := []struct {
		name   string
		fields []sqltypes.Field
		a, b   [][]any
	}{
		{"theta_sketch_agg", longs, [][]any{rows(0, 6000)}, [][]any{rows(3000, 9000)}},
		{"kll_sketch_agg_bigint", longs, [][]any{rows(0, 90)}, [][]any{rows(50, 150)}},
		{"tuple_sketch_agg_double", two, [][]any{rows(0, 5000), doubles(5000)}, [][]any{rows(2500, 7500), doubles(5000)}},
		{"theta_union_agg", bins, [][]any{sketch("theta_sketch_agg", longs, rows(0, 5000))}, [][]any{sketch("theta_sketch_agg", longs, rows(100, 200))}},
		{"theta_intersection_agg", bins, [][]any{sketch("theta_sketch_agg", longs, rows(0, 50))}, [][]any{sketch("theta_sketch_agg", longs, rows(25, 80))}},
		{"tuple_union_agg_double", bins, [][]any{sketch("tuple_sketch_agg_double", two, rows(0, 40), doubles(40))}, [][]any{sketch("tuple_sketch_agg_double", two, rows(20, 60), doubles(40))}},
		{"tuple_intersection_agg_double", bins, [][]any{sketch("tuple_sketch_agg_double", two, rows(0, 40), doubles(40))}, [][]any{sketch("tuple_sketch_agg_double", two, rows(20, 60), doubles(40))}},
		{"kll_merge_agg_bigint", bins, [][]any{sketch("kll_sketch_agg_bigint", longs, rows(0, 30))}, [][]any{sketch("kll_sketch_agg_bigint", longs, rows(5, 40))}},
	}
	for _, c := range cases {
		args := make([]Expr, len(c.fields))
		for i, f := range c.fields {
			args[i] = col(i, f.Name, f.Type)
		}
		f, err := BindAggregate(c.name, args, false, Options{ANSI: true})
		if err != nil {
			t.Fatal(err)
		}
		feed := func(acc GroupedAccumulator, cols [][]any) { feedAccumulator(t, env, f, acc, c.fields, cols...) }
		result := func(acc GroupedAccumulator) []byte {
			r, err := acc.Result(env.ctx, []uint32{0})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Release()
			return ValueAt(r, 0, sqltypes.BinaryType).([]byte)
		}
		saved := f.NewAccumulator(env.ctx)
		saved.Grow(1)
		feed(saved, c.a)
		snap, err := SnapshotAccumulator(f, saved)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		restored := f.NewAccumulator(env.ctx)
		restored.Grow(1)
		if err := RestoreAccumulator(f, restored, snap); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		feed(saved, c.b)
		feed(restored, c.b)
		if got, want := result(restored), result(saved); !bytes.Equal(got, want) {
			t.Errorf("%s: restored %s, saved %s", c.name, short(got), short(want))
		}
	}
}

func short(b []byte) string { return fmt.Sprintf("%x…(%d bytes)", b[:min(len(b), 12)], len(b)) }
