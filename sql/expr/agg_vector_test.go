package expr

import (
	"fmt"
	"testing"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestVectorAggregates checks vector_sum and vector_avg against Apache Spark 4.2's answers for
// the same rows in one partition (SELECT vector_sum(x) FROM (SELECT /*+ COALESCE(1) */ * FROM
// VALUES ... t(x)), one group per query there; over several partitions Spark merges partial
// sums and means, which rounds differently).
func TestVectorAggregates(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	fields := []sqltypes.Field{{Name: "x", Type: floatArrayType, Nullable: true}}
	v := func(xs ...any) any { return xs }
	// Group 0: (1, 2), (3, 4), NULL. Group 1: (1, 2), (3, NULL). Group 2: (0.1, 0.7),
	// (0.2, 0.3), (0.4, 0.9). Group 3: (1, 2), (2, 4), (2, 4). Group 4: only NULL. Group 5: [].
	xs := []any{v(float32(1), float32(2)), v(float32(3), float32(4)), nil,
		v(float32(1), float32(2)), v(float32(3), nil),
		v(float32(0.1), float32(0.7)), v(float32(0.2), float32(0.3)), v(float32(0.4), float32(0.9)),
		v(float32(1), float32(2)), v(float32(2), float32(4)), v(float32(2), float32(4)),
		nil, v()}
	groups := []uint32{0, 0, 0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 5}
	cases := []struct{ name, want string }{
		{"vector_sum", "[[4.0 6.0] [1.0 2.0] [0.70000005 1.9] [5.0 10.0] <nil> []]"},
		{"vector_avg", "[[2.0 3.0] [1.0 2.0] [0.23333335 0.6333333] [1.6666666 3.3333333] <nil> []]"},
	}
	for _, c := range cases {
		f, got := runAgg(t, env, c.name, false, fields, groups, 6, nil, xs)
		if s := renderFloats(got); f.String() != c.name+"(x)" || s != c.want || f.Type().SQL() != "ARRAY<FLOAT>" {
			t.Errorf("%s = %s (%s), want %s", f.String(), s, f.Type().SQL(), c.want)
		}
	}
	// A vector of another dimension than the group's first: VECTOR_DIMENSION_MISMATCH naming the
	// group's dimension, then the row's.
	f, err := BindAggregate("vector_avg", []Expr{col(0, "x", floatArrayType)}, false, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	acc := f.NewAccumulator(env.ctx)
	acc.Grow(1)
	b := env.batch(fields, []any{v(float32(1), float32(2)), v(float32(3))})
	defer b.Release()
	arrs, err := evalAll(env.ctx, f.Args(), b)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(arrs)
	err = acc.Update([]uint32{0, 0}, arrs)
	if se, ok := sparkerr.As(err); !ok || se.Class != "VECTOR_DIMENSION_MISMATCH" ||
		se.Message != "Vectors passed to `vector_avg` must have the same dimension, but got 2 and 1." {
		t.Errorf("mismatched dimensions: %v", err)
	}
	if _, err := BindAggregate("vector_sum", []Expr{col(0, "x", sqltypes.ArrayType(sqltypes.DoubleType, true))}, false, Options{}); errClass(err) != "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE" {
		t.Errorf("vector_sum of ARRAY<DOUBLE>: %v", err)
	}
}

// renderFloats prints float32 values as Java's Float.toString does (Spark's rendering).
func renderFloats(v any) string {
	switch x := v.(type) {
	case []any:
		s := "["
		for i, e := range x {
			if i > 0 {
				s += " "
			}
			s += renderFloats(e)
		}
		return s + "]"
	case float32:
		return formatFloat(x)
	}
	return fmt.Sprint(v)
}
