package expr

import (
	"strings"
	"testing"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestRegressionAggregates checks regr_* against the answers Apache Spark 4.2's own Connect
// server gave for the same rows (SELECT regr_…(y, x) FROM VALUES … AS tab(y, x)).
func TestRegressionAggregates(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	names := []string{"regr_count", "regr_avgx", "regr_avgy", "regr_sxx", "regr_syy", "regr_sxy",
		"regr_slope", "regr_intercept", "regr_r2"}
	cases := []struct {
		t    sqltypes.DataType
		y, x []any
		want string
	}{
		{sqltypes.LongType, longs(1, 2, 2, 2), longs(2, 2, 3, 4),
			"4 2.75 1.75 2.75 0.75 0.7499999999999998 0.2727272727272727 1.0 0.2727272727272726"},
		{sqltypes.LongType, longs(1, 2, nil, 2), longs(2, nil, 3, 4),
			"2 3.0 1.5 2.0 0.5 1.0 0.5 0.0 1.0"},
		{sqltypes.DoubleType, []any{1.5, 2.7, 3.1, 0.3, 9.9, nil}, []any{0.1, 0.35, 0.9, 1.7, 2.2, 5.5},
			"5 1.05 3.5 3.16 56.00000000000001 7.800000000000001 2.468354430379747 0.9082278481012653 0.3438065099457505"},
		// x constant: no slope, no r2; y constant: slope 0, r2 1.
		{sqltypes.LongType, longs(1, 2, 3), longs(5, 5, 5), "3 5.0 2.0 0.0 2.0 0.0 NULL NULL NULL"},
		{sqltypes.LongType, longs(4, 4, 4), longs(1, 2, 3), "3 2.0 4.0 2.0 0.0 0.0 0.0 4.0 1.0"},
		{sqltypes.LongType, longs(nil), longs(nil), "0 NULL NULL NULL NULL NULL NULL NULL NULL"},
	}
	fields := func(ty sqltypes.DataType) []sqltypes.Field {
		return []sqltypes.Field{{Name: "y", Type: ty, Nullable: true}, {Name: "x", Type: ty, Nullable: true}}
	}
	for _, c := range cases {
		g := make([]uint32, len(c.y))
		var got []string
		for _, name := range names {
			f, vals := runAgg(t, env, name, false, fields(c.t), g, 1, nil, c.y, c.x)
			if f.String() != name+"(y, x)" {
				t.Errorf("%s renders as %s", name, f)
			}
			v := "NULL"
			if vals[0] != nil {
				v = valueString(vals[0], f.Type(), env.ctx.loc())
			}
			got = append(got, v)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("regr_* over y=%v x=%v:\n got %s\nwant %s", c.y, c.x, g, c.want)
		}
	}
	if _, err := BindAggregate("regr_count", []Expr{NewLiteral(true, sqltypes.BooleanType), NewLiteral(int32(2), sqltypes.IntegerType)}, false, Options{ANSI: true}); err == nil || errClass(err) != "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE" {
		t.Errorf("regr_count(true, 2): %v, want DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", err)
	}
}

func longs(vs ...any) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		if v != nil {
			v = int64(v.(int))
		}
		out[i] = v
	}
	return out
}
