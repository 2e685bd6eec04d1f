package expr

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// generated renders what a generator produced: one "row: values" line per output row.
func generated(t *testing.T, env *testEnv, g Generator, b arrow.RecordBatch) []string {
	t.Helper()
	rows, cols, err := g.Generate(env.ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(cols)
	out := make([]string, len(rows))
	for k, r := range rows {
		vals := make([]any, len(cols))
		for c, f := range g.Output() {
			vals[c] = ValueAt(cols[c], k, f.Type)
		}
		out[k] = fmt.Sprint(r, ": ", vals)
	}
	return out
}

// TestExplodeVectorizedMatchesRowWise checks the vectorized explode of arrays against the
// row-wise path for element types with nulls, strings, structs and nested arrays, on a sliced
// batch (non-zero list offset), plain, positional and outer.
func TestExplodeVectorizedMatchesRowWise(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	st := sqltypes.StructType(sqltypes.Field{Name: "x", Type: sqltypes.IntegerType, Nullable: true},
		sqltypes.Field{Name: "y", Type: sqltypes.StringType, Nullable: true})
	for _, c := range []struct {
		elem sqltypes.DataType
		vals []any
	}{
		{sqltypes.LongType, []any{[]any{int64(1), nil, int64(3)}, nil, []any{}, []any{int64(4)}, []any{int64(5), int64(6)}}},
		{sqltypes.StringType, []any{[]any{"a", "bb"}, []any{}, nil, []any{nil, "c"}, []any{"d"}}},
		{st, []any{[]any{[]any{int32(1), "p"}, nil}, nil, []any{[]any{nil, "q"}}, []any{}, []any{[]any{int32(2), nil}}}},
		{sqltypes.ArrayType(sqltypes.IntegerType, true), []any{[]any{[]any{int32(1)}, []any{}}, []any{nil}, nil, []any{}, []any{[]any{int32(2), nil}}}},
	} {
		at := sqltypes.ArrayType(c.elem, true)
		full := env.batch([]sqltypes.Field{{Name: "arr", Type: at, Nullable: true}}, c.vals)
		for _, b := range []arrow.RecordBatch{full, full.NewSlice(1, int64(len(c.vals)))} {
			for _, name := range []string{"explode", "posexplode", "explode_outer", "posexplode_outer"} {
				g, err := BindGenerator(name, []Expr{col(0, "arr", at)}, Options{})
				if err != nil {
					t.Fatal(err)
				}
				rowWise := *g.(*generator)
				rowWise.explodeArray = false
				fast, slow := generated(t, env, g, b), generated(t, env, &rowWise, b)
				if fmt.Sprint(fast) != fmt.Sprint(slow) {
					t.Errorf("%s(%s): vectorized %v, row-wise %v", name, at, fast, slow)
				}
			}
			if b != full {
				b.Release()
			}
		}
		full.Release()
	}
}

// TestGeneratorRows checks the row-wise generators' rows and names directly.
func TestGeneratorRows(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	mt := sqltypes.MapType(sqltypes.StringType, sqltypes.IntegerType, true)
	b := env.batch([]sqltypes.Field{{Name: "m", Type: mt, Nullable: true}, {Name: "js", Type: sqltypes.StringType, Nullable: true}},
		[]any{&sqltypes.MapValue{Keys: []any{"a", "b"}, Values: []any{int32(1), nil}}, nil},
		[]any{`{"k": "v", "n": 15, "o": {"p": [1, "x"]}, "k": "w"}`, `[1]`})
	defer b.Release()
	m, js := col(0, "m", mt), col(1, "js", sqltypes.StringType)
	str := func(s string) Expr { return lit(s, sqltypes.StringType) }
	for _, c := range []struct {
		name  string
		args  []Expr
		names string
		want  string
	}{
		{"posexplode_outer", []Expr{m}, "[pos key value]", "[0: [0 a 1] 0: [1 b <nil>] 1: [<nil> <nil> <nil>]]"},
		{"json_tuple", []Expr{js, str("k"), str("n"), str("o"), str("zz")}, "[c0 c1 c2 c3]",
			"[0: [w 15 {\"p\":[1,\"x\"]} <nil>] 1: [<nil> <nil> <nil> <nil>]]"},
		{"stack", []Expr{lit(int32(2), sqltypes.IntegerType), js, lit(nil, sqltypes.NullType), str("z")}, "[col0 col1]",
			"[0: [{\"k\": \"v\", \"n\": 15, \"o\": {\"p\": [1, \"x\"]}, \"k\": \"w\"} <nil>] 0: [z <nil>] 1: [[1] <nil>] 1: [z <nil>]]"},
	} {
		g, err := BindGenerator(c.name, c.args, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(g.Output().Names()); got != c.names {
			t.Errorf("%s names %s, want %s", c.name, got, c.names)
		}
		if got := fmt.Sprint(generated(t, env, g, b)); got != c.want {
			t.Errorf("%s = %s, want %s", c.name, got, c.want)
		}
	}
}
