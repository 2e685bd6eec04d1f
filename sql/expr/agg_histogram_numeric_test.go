package expr

import (
	"fmt"
	"testing"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// histogramOf runs histogram_numeric(x, nb) over xs (of type t) as one group and renders the
// result as [x:y ...].
func histogramOf(t *testing.T, env *testEnv, xt sqltypes.DataType, nb int32, xs []any) string {
	t.Helper()
	f, err := BindAggregate("histogram_numeric", []Expr{col(0, "x", xt), NewLiteral(nb, intType)}, false, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	v := runAccumulator(t, env, f, []sqltypes.Field{{Name: "x", Type: xt, Nullable: true}}, xs)
	if v == nil {
		return "NULL"
	}
	s := ""
	for _, bin := range v.([]any) {
		p := bin.([]any)
		s += fmt.Sprintf("%v:%v ", p[0], p[1])
	}
	return s
}

// TestHistogramNumeric checks histogram_numeric against Apache Spark 4.2's answers for the same
// values in one partition (SELECT histogram_numeric(...) FROM range(0, n, 1, 1), or VALUES under
// a COALESCE(1) hint): Spark merges partial histograms of several partitions without combining
// equal bins, so only one-partition answers are comparable. Equal gaps (1..6 in 2 bins) exercise
// the java.util.Random tie breaks.
func TestHistogramNumeric(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	seq := func(n int, f func(i int64) any) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = f(int64(i))
		}
		return out
	}
	cases := []struct {
		name string
		t    sqltypes.DataType
		nb   int32
		xs   []any
		want string
	}{
		{"VALUES (0), (1), (2), (10), 5 bins", intType, 5, []any{int32(0), int32(1), int32(2), int32(10)}, "0:1 1:1 2:1 10:1 "},
		{"1..6, 2 bins", intType, 2, seq(6, func(i int64) any { return int32(i + 1) }), "2:3 5:3 "},
		{"1..12, 3 bins", intType, 3, seq(12, func(i int64) any { return int32(i + 1) }), "3:5 8:5 11:2 "},
		{"1L..9L, 3 bins", sqltypes.LongType, 3, seq(9, func(i int64) any { return i + 1 }), "2:3 4:2 7:4 "},
		{"range(0, 100), 6 bins", sqltypes.LongType, 6, seq(100, func(i int64) any { return i }), "8:17 23:13 40:22 59:16 78:21 94:11 "},
		{"id * 7 % 23 over range(0, 300), 4 bins", intType, 4, seq(300, func(i int64) any { return int32(i * 7 % 23) }), "1:52 6:79 12:78 18:91 "},
		{"(id * 7919 % 1000) / 7.0D over range(0, 1000), 10 bins", sqltypes.DoubleType, 10,
			seq(1000, func(i int64) any { return float64(i*7919%1000) / 7.0 }),
			"6.0016806722689084:85 18.71428571428571:93 32.218749999999986:96 46.56598639455782:105 61.78571428571433:108 " +
				"77.21428571428571:108 92.50000000000004:106 107.42857142857142:103 121.92857142857144:100 135.92857142857144:96 "},
		{"NULLs only", intType, 2, []any{nil, nil}, "NULL"},
		{"NULLs skipped", intType, 2, []any{nil, int32(3), nil}, "3:1 "},
	}
	for _, c := range cases {
		if got := histogramOf(t, env, c.t, c.nb, c.xs); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}
