package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// topKOf runs approx_top_k(x, extra...) over xs as one group and renders the result as
// "item:count ..." (NULL for a NULL item).
func topKOf(t *testing.T, env *testEnv, xt sqltypes.DataType, xs []any, extra ...int32) string {
	t.Helper()
	f, err := BindAggregate("approx_top_k", withInts(col(0, "x", xt), extra), false, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	v := runAccumulator(t, env, f, []sqltypes.Field{{Name: "x", Type: xt, Nullable: true}}, xs)
	var b strings.Builder
	for _, r := range v.([]any) {
		p := r.([]any)
		item := "NULL"
		if p[0] != nil {
			item = fmt.Sprint(p[0])
			if d, ok := p[0].(float64); ok && d == 0 && math.Signbit(d) {
				item = "-0"
			}
		}
		fmt.Fprintf(&b, "%s:%d ", item, p[1])
	}
	return strings.TrimSpace(b.String())
}

func modRange(n, m int64, conv func(int64) any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = conv(int64(i) % m)
	}
	return out
}

// TestApproxTopKMatchesSpark: Apache Spark 4.2's answers for the queries shown (one partition:
// equal counts come in the order of Spark's final sketch).
func TestApproxTopKMatchesSpark(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	long := func(v int64) any { return v }
	str := func(v int64) any { return strconv.FormatInt(v, 10) }
	caseWhen := make([]any, 5000)
	for i := range caseWhen {
		caseWhen[i] = int64(i)
		if i%2 == 0 {
			caseWhen[i] = int64(7)
		}
	}
	for _, c := range []struct {
		spark string
		got   string
		want  string
	}{
		{"SELECT approx_top_k(expr) FROM VALUES (0), (0), (1), (1), (2), (3), (4), (4)",
			topKOf(t, env, sqltypes.IntegerType, []any{int32(0), int32(0), int32(1), int32(1), int32(2), int32(3), int32(4), int32(4)}),
			"0:2 4:2 1:2 2:1 3:1"},
		{"SELECT approx_top_k(expr, 2) FROM VALUES 'a', 'b', 'c', 'c', 'c', 'c', 'd', 'd'",
			topKOf(t, env, sqltypes.StringType, []any{"a", "b", "c", "c", "c", "c", "d", "d"}, 2), "c:4 d:2"},
		{"SELECT approx_top_k(expr, 10, 100) FROM VALUES (0), (1), (1), (2), (2), (2)",
			topKOf(t, env, sqltypes.IntegerType, []any{int32(0), int32(1), int32(1), int32(2), int32(2), int32(2)}, 10, 100), "2:3 1:2 0:1"},
		{"SELECT approx_top_k(expr) FROM VALUES (true), (false), (true), (null)",
			topKOf(t, env, sqltypes.BooleanType, []any{true, false, true, nil}), "true:2 false:1 NULL:1"},
		{"SELECT approx_top_k(expr, 5) FROM VALUES (1.5d), (-0.0d), (0.0d), (1.5d), (double('NaN'))",
			topKOf(t, env, sqltypes.DoubleType, []any{1.5, math.Copysign(0, -1), 0.0, 1.5, math.NaN()}, 5), "1.5:2 0:1 -0:1 NaN:1"},
		{"SELECT approx_top_k(expr) FROM VALUES (cast(1 as tinyint)), (cast(-1 as tinyint)), (cast(2 as smallint))",
			topKOf(t, env, sqltypes.ShortType, []any{int16(1), int16(-1), int16(2)}), "2:1 1:1 -1:1"},
		{"SELECT approx_top_k(expr) FROM VALUES (cast(null as int))",
			topKOf(t, env, sqltypes.IntegerType, []any{nil}), "NULL:1"},
		{"SELECT approx_top_k(id % 97, 7) FROM range(0, 100000, 1, 1)",
			topKOf(t, env, sqltypes.LongType, modRange(100000, 97, long), 7), "0:1031 29:1031 65:1031 7:1031 76:1031 17:1031 9:1031"},
		{"SELECT approx_top_k(cast(id % 97 as string), 7) FROM range(0, 100000, 1, 1)",
			topKOf(t, env, sqltypes.StringType, modRange(100000, 97, str), 7), "85:1031 33:1031 74:1031 55:1031 10:1031 43:1031 82:1031"},
		{"SELECT approx_top_k(id % 50, 6) FROM range(0, 1000, 1, 1)",
			topKOf(t, env, sqltypes.LongType, modRange(1000, 50, long), 6), "0:20 3:20 27:20 31:20 18:20 28:20"},
		{"SELECT approx_top_k(cast(id % 50 as string), 6) FROM range(0, 1000, 1, 1)",
			topKOf(t, env, sqltypes.StringType, modRange(1000, 50, str), 6), "9:20 17:20 25:20 10:20 8:20 47:20"},
		// Purges: 100 items tracked (a map of 256 slots).
		{"SELECT approx_top_k(id % 3000, 4, 100) FROM range(0, 60000, 1, 1)",
			topKOf(t, env, sqltypes.LongType, modRange(60000, 3000, long), 4, 100), ""},
		{"SELECT approx_top_k(case when id % 2 = 0 then 7 else id end, 3, 10) FROM range(0, 5000, 1, 1)",
			topKOf(t, env, sqltypes.LongType, caseWhen, 3, 10), "7:2501"},
	} {
		if c.got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.spark, c.got, c.want)
		}
	}
}

// TestApproxTopKErrors: Spark 4.2's errors; those about k and maxItemsTracked come when the
// aggregate runs (SparkRuntimeException).
func TestApproxTopKErrors(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	x := col(0, "expr", sqltypes.IntegerType)
	i := func(v int32) Expr { return NewLiteral(v, sqltypes.IntegerType) }
	null := NewLiteral(nil, sqltypes.IntegerType)
	for _, c := range []struct {
		args  []Expr
		class string
		msg   string
	}{
		{[]Expr{x, i(0)}, "APPROX_TOP_K_NON_POSITIVE_ARG", "The value of `k` in `approx_top_k` must be a positive integer, but got 0."},
		{[]Expr{x, i(5), i(3)}, "APPROX_TOP_K_MAX_ITEMS_TRACKED_LESS_THAN_K", "The max items tracked `maxItemsTracked`(3) of `approx_top_k` should be greater than or equal to `k`(5)."},
		{[]Expr{x, i(5), i(1000001)}, "APPROX_TOP_K_MAX_ITEMS_TRACKED_EXCEEDS_LIMIT", "The max items tracked `maxItemsTracked`(1000001) of `approx_top_k` should be less than or equal to 1000000."},
		{[]Expr{x, i(5), i(0)}, "APPROX_TOP_K_NON_POSITIVE_ARG", "The value of `maxItemsTracked` in `approx_top_k` must be a positive integer, but got 0."},
		{[]Expr{x, null}, "APPROX_TOP_K_NULL_ARG", "The value of `k` in `approx_top_k` cannot be NULL."},
		{[]Expr{x, i(5), null}, "APPROX_TOP_K_NULL_ARG", "The value of `maxItemsTracked` in `approx_top_k` cannot be NULL."},
	} {
		f, err := BindAggregate("approx_top_k", c.args, false, Options{ANSI: true})
		if err != nil {
			t.Fatal(err)
		}
		acc := f.NewAccumulator(env.ctx)
		acc.Grow(1)
		_, err = acc.Result(env.ctx, []uint32{0})
		if e, ok := sparkerr.As(err); !ok || e.Class != c.class || e.Message != c.msg || e.JavaClass != sparkerr.SparkRuntimeException {
			t.Errorf("approx_top_k%v: %v, want %s", c.args, err, c.class)
		}
	}
	for _, c := range []struct {
		args []Expr
		msg  string
	}{
		{[]Expr{x, col(1, "k", sqltypes.IntegerType)}, "K must be a constant literal."},
		{[]Expr{col(0, "expr", sqltypes.BinaryType)}, "binary columns are not supported."},
	} {
		_, err := BindAggregate("approx_top_k", c.args, false, Options{ANSI: true})
		if e, ok := sparkerr.As(err); !ok || e.Class != "DATATYPE_MISMATCH.TYPE_CHECK_FAILURE_WITH_HINT" || !strings.HasSuffix(e.Message, c.msg) {
			t.Errorf("approx_top_k%v: %v", c.args, err)
		}
	}
}
