package expr

import (
	"fmt"
	"github.com/apache/arrow-go/v18/arrow"
	"testing"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestFreqItems feeds collect_frequent_items the rows Spark's own tests and a hand-checked
// trace use, in two batches, and compares the items kept (in the order they got a counter).
func TestFreqItems(t *testing.T) {
	alternating := make([]any, 100) // PySpark's test_freqItems column a: 1 on even rows, i on odd
	for i := range alternating {
		alternating[i] = int64(i)
		if i%2 == 0 {
			alternating[i] = int64(1)
		}
	}
	cases := []struct {
		size int
		rows []any
		want string
	}{
		{2, alternating, "[1 99]"}, // 99 is a false positive, as on Spark
		{3, []any{"a", "b", "a", "c"}, "[a b c]"},
		{3, []any{nil, "x", "y", "10"}, "[]"}, // the fourth item empties three counters of 1
		{2, []any{nil, nil, int64(1), nil}, "[<nil> 1]"},
		{1, []any{"a", "b", "b", "b", "a"}, "[b]"},
	}
	for _, c := range cases {
		env := newEnv(t, true)
		typ := sqltypes.LongType
		if _, ok := c.rows[1].(string); ok {
			typ = sqltypes.StringType
		}
		f, err := BindAggregate("collect_frequent_items", []Expr{col(0, "x", typ), NewLiteral(int32(c.size), sqltypes.IntegerType)}, false, Options{})
		if err != nil {
			t.Fatal(err)
		}
		acc := f.NewAccumulator(env.ctx)
		acc.Grow(1)
		half := len(c.rows) / 2
		for _, part := range [][]any{c.rows[:half], c.rows[half:]} {
			b := env.batch([]sqltypes.Field{{Name: "x", Type: typ, Nullable: true}}, part)
			if err := acc.Update(make([]uint32, len(part)), []arrow.Array{b.Column(0)}); err != nil {
				t.Fatal(err)
			}
			b.Release()
		}
		res, err := acc.Result(env.ctx, []uint32{0})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(ValueAt(res, 0, f.Type())); got != c.want {
			t.Errorf("size %d over %v: got %s, want %s", c.size, c.rows, got, c.want)
		}
		res.Release()
		env.close()
	}
}
