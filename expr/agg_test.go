package expr

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sqltypes"
)

// runAgg binds name over column 0 of the batch, updates with all rows into the given groups,
// optionally retracts the rows at retractIdx, and returns results for groups 0..ngroups-1.
func runAgg(t *testing.T, env *testEnv, name string, distinct bool, fields []sqltypes.Field, groups []uint32, ngroups int, retract []int, cols ...[]any) (AggFunc, []any) {
	t.Helper()
	args := make([]Expr, len(cols))
	for i := range cols {
		args[i] = col(i, fields[i].Name, fields[i].Type)
	}
	f, err := BindAggregate(name, args, distinct, Options{ANSI: true})
	if err != nil {
		t.Fatalf("bind %s: %v", name, err)
	}
	acc := f.NewAccumulator(env.ctx)
	acc.Grow(ngroups)
	b := env.batch(fields, cols...)
	defer b.Release()
	arrs, err := evalAll(env.ctx, f.Args(), b)
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.Update(groups, arrs); err != nil {
		t.Fatal(err)
	}
	releaseAll(arrs)
	if retract != nil {
		rcols := make([][]any, len(cols))
		var rg []uint32
		for _, i := range retract {
			rg = append(rg, groups[i])
			for c := range cols {
				rcols[c] = append(rcols[c], cols[c][i])
			}
		}
		rb := env.batch(fields, rcols...)
		rarrs, err := evalAll(env.ctx, f.Args(), rb)
		if err != nil {
			t.Fatal(err)
		}
		if err := acc.Retract(rg, rarrs); err != nil {
			t.Fatal(err)
		}
		releaseAll(rarrs)
		rb.Release()
	}
	ids := make([]uint32, ngroups)
	for i := range ids {
		ids[i] = uint32(i)
	}
	res, err := acc.Result(env.ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	return f, valuesOf(res, f.Type())
}

func valuesOf(a arrow.Array, t sqltypes.DataType) []any {
	out := make([]any, a.Len())
	for i := range out {
		out[i] = ValueAt(a, i, t)
	}
	return out
}

func TestAggregatesUpdateRetract(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	li := []sqltypes.Field{{Name: "x", Type: sqltypes.LongType, Nullable: true}}
	xs := []any{int64(5), int64(1), nil, int64(7), int64(1), int64(3)}
	groups := []uint32{0, 0, 0, 1, 1, 0}
	cases := []struct {
		name     string
		distinct bool
		retract  []int
		str      string
		want     string
	}{
		{"count", false, nil, "count(x)", "[3 2 0]"},
		{"count", false, []int{0}, "count(x)", "[2 2 0]"},
		{"sum", false, nil, "sum(x)", "[9 8 <nil>]"},
		{"sum", false, []int{3}, "sum(x)", "[9 1 <nil>]"},
		{"avg", false, nil, "avg(x)", "[3 4 <nil>]"},
		{"min", false, nil, "min(x)", "[1 1 <nil>]"},
		{"min", false, []int{1}, "min(x)", "[3 1 <nil>]"},
		{"max", false, []int{0}, "max(x)", "[3 7 <nil>]"},
		{"first", false, nil, "first(x)", "[5 7 <nil>]"},
		{"first", false, []int{0}, "first(x)", "[1 7 <nil>]"},
		{"last", false, nil, "last(x)", "[3 1 <nil>]"},
		{"collect_list", false, []int{1}, "collect_list(x)", "[[5 3] [7 1] []]"},
		{"count", true, nil, "count(DISTINCT x)", "[3 2 0]"},
		{"sum", true, nil, "sum(DISTINCT x)", "[9 8 <nil>]"},
	}
	for _, c := range cases {
		f, got := runAgg(t, env, c.name, c.distinct, li, groups, 3, c.retract, xs)
		if f.String() != c.str || fmt.Sprint(got) != c.want {
			t.Errorf("%s retract=%v: %s = %v, want %s = %s", c.name, c.retract, f.String(), got, c.str, c.want)
		}
	}
}
