package expr

import (
	"bytes"
	"testing"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestSketchStateRoundTrip: a restored sketch accumulator gives the results the saved one gave,
// and keeps aggregating from there.
func TestHLLAndCountMinStateRoundTrip(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	longs := []sqltypes.Field{{Name: "x", Type: sqltypes.LongType, Nullable: true}}
	sketch := func(xs ...any) any {
		f, err := BindAggregate("hll_sketch_agg", []Expr{col(0, "x", sqltypes.LongType)}, false, Options{ANSI: true})
		if err != nil {
			t.Fatal(err)
		}
		return runAccumulator(t, env, f, longs, xs)
	}
	bins := []sqltypes.Field{{Name: "x", Type: sqltypes.BinaryType, Nullable: true}}
	for _, c := range []struct {
		name   string
		args   []Expr
		fields []sqltypes.Field
		before []any
		after  []any
	}{
		{"hll_sketch_agg", []Expr{col(0, "x", sqltypes.LongType), NewLiteral(int32(8), sqltypes.IntegerType)}, longs,
			idRange(0, 20), idRange(15, 300)},
		{"hll_union_agg", []Expr{col(0, "x", sqltypes.BinaryType)}, bins,
			[]any{sketch(idRange(0, 500)...), nil}, []any{sketch(idRange(400, 900)...)}},
		{"count_min_sketch", append([]Expr{col(0, "x", sqltypes.LongType)}, cmsArgs(sqltypes.LongType, 0.1, 0.9, 3)[1:]...), longs, idRange(0, 50), idRange(25, 60)},
	} {
		f, err := BindAggregate(c.name, c.args, false, Options{ANSI: true})
		if err != nil {
			t.Fatal(err)
		}
		feed := func(acc GroupedAccumulator, xs []any) {
			b := env.batch(c.fields, xs)
			defer b.Release()
			arrs, err := evalAll(env.ctx, f.Args(), b)
			if err != nil {
				t.Fatal(err)
			}
			defer releaseAll(arrs)
			groups := make([]uint32, len(xs))
			for i := range groups {
				groups[i] = uint32(i % 2)
			}
			if err := acc.Update(groups, arrs); err != nil {
				t.Fatal(err)
			}
		}
		result := func(acc GroupedAccumulator) [][]byte {
			r, err := acc.Result(env.ctx, []uint32{0, 1, 2})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Release()
			out := make([][]byte, 3)
			for i := range out {
				out[i], _ = ValueAt(r, i, sqltypes.BinaryType).([]byte)
			}
			return out
		}
		saved := f.NewAccumulator(env.ctx)
		saved.Grow(3)
		feed(saved, c.before)
		data, err := SnapshotAccumulator(f, saved)
		if err != nil {
			t.Fatal(err)
		}
		restored := f.NewAccumulator(env.ctx)
		restored.Grow(3)
		if err := RestoreAccumulator(f, restored, data); err != nil {
			t.Fatal(err)
		}
		feed(saved, c.after)
		feed(restored, c.after)
		want, got := result(saved), result(restored)
		for g := range want {
			if !bytes.Equal(got[g], want[g]) {
				t.Errorf("%s group %d: restored %x, want %x", c.name, g, got[g], want[g])
			}
		}
	}
}
