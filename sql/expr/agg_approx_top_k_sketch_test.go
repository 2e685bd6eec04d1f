package expr

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// withInts is first followed by INT literals.
func withInts(first Expr, extra []int32) []Expr {
	args := []Expr{first}
	for _, e := range extra {
		args = append(args, NewLiteral(e, sqltypes.IntegerType))
	}
	return args
}

// accumulateOf runs approx_top_k_accumulate(x, extra...) over xs as one group.
func accumulateOf(t *testing.T, env *testEnv, xt sqltypes.DataType, xs []any, extra ...int32) []any {
	t.Helper()
	f, err := BindAggregate("approx_top_k_accumulate", withInts(col(0, "x", xt), extra), false, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	return runAccumulator(t, env, f, []sqltypes.Field{{Name: "x", Type: xt, Nullable: true}}, xs).([]any)
}

// stateString renders a state as Spark's client shows it: the sketch in hex, the size, the DDL.
func stateString(s []any) string {
	return fmt.Sprintf("%s %d %v %s", hex.EncodeToString(s[0].([]byte)), s[1], s[2], s[3])
}

// combineOf runs approx_top_k_combine(s, extra...) over the states as one group.
func combineOf(t *testing.T, env *testEnv, st sqltypes.DataType, states []any, extra ...int32) (any, error) {
	t.Helper()
	f, err := BindAggregate("approx_top_k_combine", withInts(col(0, "s", st), extra), false, Options{ANSI: true})
	if err != nil {
		return nil, err
	}
	acc := f.NewAccumulator(env.ctx)
	arr := BuildArray(nil, st, "UTC", states)
	defer arr.Release()
	acc.Grow(1)
	if err := acc.Update(make([]uint32, len(states)), []arrow.Array{arr}); err != nil {
		return nil, err
	}
	res, err := acc.Result(env.ctx, []uint32{0})
	if err != nil {
		return nil, err
	}
	defer res.Release()
	return ValueAt(res, 0, f.Type()), nil
}

// estimateOf evaluates approx_top_k_estimate(state, extra...) and renders it as topKOf does.
func estimateOf(t *testing.T, env *testEnv, st sqltypes.DataType, state any, extra ...int32) string {
	t.Helper()
	e, err := Bind("approx_top_k_estimate", withInts(NewLiteral(state, st), extra), Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	b := env.emptyBatch(1)
	defer b.Release()
	vals, err := env.eval(e, b)
	if err != nil {
		return "error " + errClass(err)
	}
	var out strings.Builder
	for _, r := range vals[0].([]any) {
		p := r.([]any)
		item := "NULL"
		if p[0] != nil {
			item = fmt.Sprint(p[0])
		}
		fmt.Fprintf(&out, "%s:%d ", item, p[1])
	}
	return strings.TrimSpace(out.String())
}

// TestApproxTopKSketchesMatchSpark: the states and estimates Apache Spark 4.2's Connect server
// gives for the queries shown (bytes as its client receives them).
func TestApproxTopKSketchesMatchSpark(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	i32 := func(vs ...int32) []any {
		out := make([]any, len(vs))
		for i, v := range vs {
			out[i] = v
		}
		return out
	}
	for _, c := range []struct {
		spark string
		xt    sqltypes.DataType
		xs    []any
		extra []int32
		want  string
	}{
		{"approx_top_k_accumulate(x) FROM VALUES (1),(1),(2),(3),(3),(3),(null)", sqltypes.IntegerType,
			append(i32(1, 1, 2, 3, 3, 3), nil), nil,
			"04010a0e030000000300000000000000060000000000000000000000000000000200000000000000030000000000000001000000000000000901000000090300000009020000000000000000000001 10000 <nil> item INT NOT NULL"},
		{"approx_top_k_accumulate(x) FROM VALUES (true),(false),(true),(null)", sqltypes.BooleanType,
			[]any{true, false, true, nil}, nil,
			"04010a0e0300000002000000000000000300000000000000000000000000000002000000000000000100000000000000010000000000000001 10000 <nil> item BOOLEAN NOT NULL"},
		{"approx_top_k_accumulate(x) FROM VALUES (cast(1 as tinyint)),(cast(2 as tinyint))", sqltypes.ByteType,
			[]any{int8(1), int8(2)}, nil,
			"04010a0e0300000002000000000000000200000000000000000000000000000001000000000000000100000000000000020102020000000000000000 10000 <nil> item TINYINT NOT NULL"},
		{"approx_top_k_accumulate(x) FROM VALUES (cast(1 as smallint)),(cast(2 as smallint))", sqltypes.ShortType,
			[]any{int16(1), int16(2)}, nil,
			"04010a0e03000000020000000000000002000000000000000000000000000000010000000000000001000000000000000301000302000000000000000000 10000 <nil> item SMALLINT NOT NULL"},
		{"approx_top_k_accumulate(x) FROM VALUES (1L),(2L),(2L)", sqltypes.LongType,
			[]any{int64(1), int64(2), int64(2)}, nil,
			"04010a0e0300000002000000000000000300000000000000000000000000000001000000000000000200000000000000010000000000000002000000000000000000000000000000 10000 <nil> item BIGINT NOT NULL"},
		{"approx_top_k_accumulate(x) FROM VALUES (cast(1.5 as float)),(cast(2 as float))", sqltypes.FloatType,
			[]any{float32(1.5), float32(2)}, nil,
			"04010a0e0300000002000000000000000200000000000000000000000000000001000000000000000100000000000000060000c03f06000000400000000000000000 10000 <nil> item FLOAT NOT NULL"},
		{"approx_top_k_accumulate(x) FROM VALUES (1.5D),(2D)", sqltypes.DoubleType,
			[]any{1.5, 2.0}, nil,
			"04010a0e0300000002000000000000000200000000000000000000000000000001000000000000000100000000000000000000000000f83f00000000000000400000000000000000 10000 <nil> item DOUBLE NOT NULL"},
		{"approx_top_k_accumulate(x) FROM VALUES (date'2024-01-01')", sqltypes.DateType,
			[]any{int32(19723)}, nil,
			"04010a0e030000000100000000000000010000000000000000000000000000000100000000000000090b4d00000000000000000000 10000 <nil> item DATE NOT NULL"},
		{"approx_top_k_accumulate(x) FROM VALUES (timestamp_ntz'2024-01-01 00:00:00')", sqltypes.TimestampNTZType,
			[]any{int64(1704067200000000)}, nil,
			"04010a0e03000000010000000000000001000000000000000000000000000000010000000000000000202110d70d06000000000000000000 10000 <nil> item TIMESTAMP_NTZ NOT NULL"},
		{"approx_top_k_accumulate(x) FROM VALUES ('ab'),('é')", sqltypes.StringType,
			[]any{"ab", "é"}, nil,
			"04010a0e030000000200000000000000020000000000000000000000000000000100000000000000010000000000000002000000616202000000c3a90000000000000000 10000 <nil> item string not null"},
		{"approx_top_k_accumulate(x, 5) FROM VALUES (cast(null as int))", sqltypes.IntegerType,
			[]any{nil}, []int32{5}, "01010a03030500000000000000000001 5 <nil> item INT NOT NULL"},
		{"approx_top_k_accumulate(id % 7, 20) FROM range(1000)", sqltypes.LongType,
			modRange(1000, 7, func(v int64) any { return v }), []int32{20},
			"04010a05040000000700000000000000e80300000000000000000000000000008f000000000000008e000000000000008f000000000000008f000000000000008f000000000000008f000000000000008f0000000000000000000000000000000600000000000000040000000000000005000000000000000200000000000000010000000000000003000000000000000000000000000000 20 <nil> item BIGINT NOT NULL"},
	} {
		if got := stateString(accumulateOf(t, env, c.xt, c.xs, c.extra...)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.spark, got, c.want)
		}
	}

	// SELECT approx_top_k_combine(s[, 50]) FROM (SELECT approx_top_k_accumulate(x[, 100]) s FROM
	// VALUES (1),(1),(2) UNION ALL SELECT approx_top_k_accumulate(x[, 100]) s FROM VALUES (2),(2),(3)).
	st := approxTopKStateType(sqltypes.IntegerType)
	states := func(extra ...int32) []any {
		return []any{accumulateOf(t, env, sqltypes.IntegerType, i32(1, 1, 2), extra...),
			accumulateOf(t, env, sqltypes.IntegerType, i32(2, 2, 3), extra...)}
	}
	const combined = "030000000300000000000000060000000000000000000000000000000200000000000000010000000000000003000000000000000901000000090300000009020000000000000000000000"
	got, err := combineOf(t, env, st, states())
	if err != nil || stateString(got.([]any)) != "04010a15"+combined+" 10000 <nil> item INT NOT NULL" {
		t.Errorf("combine(s) = %v, %v", got, err)
	}
	if est := estimateOf(t, env, st, got); est != "2:3 1:2 3:1" {
		t.Errorf("estimate(combine(s)) = %s", est)
	}
	got, err = combineOf(t, env, st, states(100), 50)
	if err != nil || stateString(got.([]any)) != "04010a07"+combined+" 50 <nil> item INT NOT NULL" {
		t.Errorf("combine(s, 50) = %v, %v", got, err)
	}
	mixed := []any{accumulateOf(t, env, sqltypes.IntegerType, i32(1), 100), accumulateOf(t, env, sqltypes.IntegerType, i32(2), 200)}
	if _, err := combineOf(t, env, st, mixed); errClass(err) != "APPROX_TOP_K_SKETCH_SIZE_NOT_MATCH" {
		t.Errorf("combine of sizes 100 and 200: %v", err)
	}
	if e, _ := sparkerr.As(func() error { _, err := combineOf(t, env, st, mixed); return err }()); e == nil ||
		e.Message != "Combining approx_top_k sketches of different sizes is not allowed. Found sketches of size 100 and 200." {
		t.Errorf("size mismatch message: %v", e)
	}
	strState := accumulateOf(t, env, sqltypes.StringType, []any{"a"})
	strState[2] = nil
	if _, err := combineOf(t, env, st, []any{states()[0], strState}); errClass(err) != "APPROX_TOP_K_SKETCH_TYPE_NOT_MATCH" {
		t.Errorf("combine of INT and STRING: %v", err)
	}

	// approx_top_k_estimate over accumulate(x) of (1),(1),(2),(3),(3),(3),(null).
	acc := accumulateOf(t, env, sqltypes.IntegerType, append(i32(1, 1, 2, 3, 3, 3), nil))
	for _, c := range []struct {
		extra []int32
		want  string
	}{
		{nil, "3:3 1:2 2:1 NULL:1"},
		{[]int32{2}, "3:3 1:2"},
		{[]int32{0}, "error APPROX_TOP_K_NON_POSITIVE_ARG"},
	} {
		if got := estimateOf(t, env, st, acc, c.extra...); got != c.want {
			t.Errorf("estimate(acc, %v) = %s, want %s", c.extra, got, c.want)
		}
	}
	small := accumulateOf(t, env, sqltypes.IntegerType, i32(1), 10)
	if got := estimateOf(t, env, st, small, 20); got != "error APPROX_TOP_K_MAX_ITEMS_TRACKED_LESS_THAN_K" {
		t.Errorf("estimate(accumulate(x, 10), 20) = %s", got)
	}
}

// TestApproxTopKSketchStateChecks: Spark's analysis errors for the state argument.
func TestApproxTopKSketchStateChecks(t *testing.T) {
	opts := Options{ANSI: true}
	one := NewLiteral(int32(1), sqltypes.IntegerType)
	if _, err := Bind("approx_top_k_estimate", []Expr{one}, opts); errClass(err) != "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE" {
		t.Errorf("estimate(1): %v", err)
	}
	a := NewLiteral([]any{int32(1)}, sqltypes.StructType(sqltypes.Field{Name: "a", Type: sqltypes.IntegerType}))
	_, err := Bind("approx_top_k_estimate", []Expr{a}, opts)
	if e, ok := sparkerr.As(err); !ok || e.Class != "DATATYPE_MISMATCH.TYPE_CHECK_FAILURE_WITH_HINT" ||
		e.Params["msg"] != "State must be a struct with 4 fields. Expected struct: struct<sketch:binary,maxItemsTracked:int,itemDataType:any,itemDataTypeDDL:string>. Got: struct<a:int>" {
		t.Errorf("estimate(named_struct('a', 1)): %v", err)
	}
	if _, err := BindAggregate("approx_top_k_combine", []Expr{one}, false, opts); errClass(err) != "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE" {
		t.Errorf("combine(1): %v", err)
	}
	bin := NewLiteral([]byte{1}, sqltypes.BinaryType)
	if _, err := BindAggregate("approx_top_k_accumulate", []Expr{bin}, false, opts); errClass(err) != "DATATYPE_MISMATCH.TYPE_CHECK_FAILURE_WITH_HINT" {
		t.Errorf("accumulate(binary): %v", err)
	}
}
