package expr

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The vectorized from_json / to_json (json_from.go, json_to.go) must give exactly the row
// functions' results: these tests evaluate both over the same batches of hand-picked and
// generated records and compare every row.

var jsonFastSchemas = []string{
	"id BIGINT, ts BIGINT, user STRING, kind STRING, amount DOUBLE, note STRING",
	"a INT, b TINYINT, c SMALLINT, d FLOAT, e BOOLEAN, f STRING",
	"s STRUCT<x: INT, y: STRING>, arr ARRAY<INT>, m MAP<STRING, DOUBLE>, t TIMESTAMP, dec DECIMAL(10,2), bin BINARY, dt DATE, a BIGINT",
	"a INT, f STRING, a STRING, kind STRING", // a key naming two fields
}

var jsonFastInputs = []string{
	`{"id":1,"ts":1764455000000000,"user":"user-00001","kind":"click","amount":12.5,"note":"n"}`,
	`{}`, ` { } `, `{"a":1}`, `{"a":null,"b":null}`, `null`, ``, `   `, `[]`, `[1,2]`, `"str"`, `12`, `true`,
	`{"a":1,}`, `{"a":1`, `{"a" 1}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":.5}`, `{a:1}`,
	`{"a":1} trailing`, `{"a":1}}`, `{"a":1} `, "{\"a\":1}\n", `{"a":tru}`, `{"a":nul}`, `{"a":truex}`,
	`{"a":2147483648}`, `{"a":-2147483648}`, `{"b":128}`, `{"b":-128}`, `{"c":40000}`, `{"a":1.5}`, `{"a":1e2}`,
	`{"a":"1"}`, `{"d":"NaN"}`, `{"d":"Infinity"}`, `{"d":"-INF"}`, `{"d":1e40}`, `{"d":1e400}`, `{"d":-0.0}`,
	`{"e":true}`, `{"e":false}`, `{"e":"true"}`, `{"e":1}`, `{"f":12}`, `{"f":1.50}`, `{"f":true}`, `{"f":null}`,
	`{"f":{"x":[1,"a",null]}}`, `{"f":[ 1 , 2 ]}`, `{"f":"a\"b\\c\/d\b\f\n\r\t"}`, `{"f":"\u00e9\u4e2d"}`,
	`{"f":"\ud83d\ude00"}`, `{"f":"\ud83d"}`, `{"f":"\u0000"}`, "{\"f\":\"tab\there\"}", "{\"f\":\"\xff\"}",
	`{"f":"é中😀"}`, `{"f":"\x"}`, `{"f":"\u12"}`, `{"f\u0041":1}`, `{"\u0061":7}`, `{"a":1,"a":2}`,
	`{"a":"x","a":3}`, `{"a":3,"a":"x"}`, `{"zzz":{"deep":[[[]]]},"a":5}`, `{"a":5,"zzz":[1,{"q":"}"}]}`,
	`{"s":{"x":1,"y":"z"},"arr":[1,null,3],"m":{"k":1.5,"j":null},"t":"2024-01-02 03:04:05","dec":12.345,"bin":"aGk=","dt":"2024-02-30"}`,
	`{"s":{"x":"bad"},"arr":[1,"x"],"m":{"k":"v"},"t":1700000000,"dec":"1.5","bin":5,"dt":20240101}`,
	`{"s":[1],"arr":{"a":1},"m":[],"t":true,"dec":1e3}`, `{"s":null,"arr":null,"m":null,"t":null}`,
	`{"ts":-9223372036854775808,"id":9223372036854775807}`, `{"id":9223372036854775808}`, `{"amount":-1.7976931348623157e308}`,
}

// randomJSONRecord generates a record over schema keys and others, with random value types,
// spacing and, now and then, a corruption.
func randomJSONRecord(r *rand.Rand) string {
	keys := []string{"id", "ts", "user", "kind", "amount", "note", "a", "b", "c", "d", "e", "f", "s", "arr", "m", "t", "x"}
	sp := func() string { return []string{"", "", "", " ", "\n", "\t "}[r.IntN(6)] }
	var val func(depth int) string
	val = func(depth int) string {
		switch r.IntN(12) {
		case 0:
			return "null"
		case 1:
			return []string{"true", "false"}[r.IntN(2)]
		case 2:
			return fmt.Sprint(r.Int64N(1<<40) - 1<<39)
		case 3:
			return fmt.Sprintf("%g", r.NormFloat64()*1e3)
		case 4:
			return []string{"0", "-0", "1e3", "2.5E-3", "127", "-129", "32768", "99999999999999999999"}[r.IntN(8)]
		case 5:
			return `"` + []string{"plain", "", "a\\\"b", "\\u00e9", "é", "\\n", "NaN", "Infinity", "12", "2024-01-02", "<&>"}[r.IntN(11)] + `"`
		case 6:
			if depth < 3 {
				return "[" + val(depth+1) + "," + sp() + val(depth+1) + "]"
			}
		case 7:
			if depth < 3 {
				return `{"x":` + val(depth+1) + `,"y":` + val(depth+1) + "}"
			}
		}
		return fmt.Sprint(r.IntN(1000))
	}
	var b strings.Builder
	b.WriteString(sp() + "{")
	n := r.IntN(8)
	for k := 0; k < n; k++ {
		if k > 0 {
			b.WriteString("," + sp())
		}
		b.WriteString(`"` + keys[r.IntN(len(keys))] + `"` + sp() + ":" + sp() + val(0))
	}
	b.WriteString("}" + sp())
	s := b.String()
	if r.IntN(10) == 0 && len(s) > 1 { // corrupt: cut, or a stray byte
		i := r.IntN(len(s))
		if r.IntN(2) == 0 {
			s = s[:i]
		} else {
			s = s[:i] + string("x,:}\"\\"[r.IntN(6)]) + s[i:]
		}
	}
	return s
}

func jsonFastCases() []string {
	r := rand.New(rand.NewPCG(5, 7))
	cases := append([]string(nil), jsonFastInputs...)
	for range 3000 {
		cases = append(cases, randomJSONRecord(r))
	}
	return cases
}

func TestFromJSONStructMatchesRowFunction(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	b, vals := jsonCasesBatch(env)
	defer b.Release()
	for _, schema := range jsonFastSchemas {
		e := mustBind(t, "from_json", Options{}, col(0, "v", sqltypes.StringType), lit(schema, sqltypes.StringType))
		fast, ok := e.(*fromJSONStruct)
		if !ok {
			t.Fatalf("from_json with a struct schema bound to %T", e)
		}
		assertSameRows(t, env, fast, fast.rowFunc, b, vals, schema)
	}
}

// jsonCasesBatch is a batch of one string column "v": the cases, then a NULL.
func jsonCasesBatch(env *testEnv) (arrow.RecordBatch, []any) {
	cases := jsonFastCases()
	vals := make([]any, len(cases)+1)
	for i, c := range cases {
		vals[i] = c
	}
	return env.batch([]sqltypes.Field{{Name: "v", Type: sqltypes.StringType, Nullable: true}}, vals), vals
}

// assertSameRows evaluates the vectorized expression and its row function over b and compares
// every row.
func assertSameRows(t *testing.T, env *testEnv, fast, row Expr, b arrow.RecordBatch, inputs []any, label string) {
	t.Helper()
	got, err := env.eval(fast, b)
	if err != nil {
		t.Fatal(err)
	}
	want, err := env.eval(row, b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if g, w := renderValue(got[i]), renderValue(want[i]); g != w {
			t.Errorf("%s, input %q: vectorized %s, row function %s", label, inputs[i], g, w)
		}
	}
}

func TestFromJSONStructFailFastMatchesRowFunction(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	mode := mustBind(t, "map", Options{}, lit("mode", sqltypes.StringType), lit("FAILFAST", sqltypes.StringType))
	for _, schema := range jsonFastSchemas {
		e := mustBind(t, "from_json", Options{}, col(0, "v", sqltypes.StringType), lit(schema, sqltypes.StringType), mode)
		fast := e.(*fromJSONStruct)
		for _, c := range jsonFastCases()[:400] {
			b := env.batch([]sqltypes.Field{{Name: "v", Type: sqltypes.StringType, Nullable: true}}, []any{c})
			got, gerr := env.eval(fast, b)
			want, werr := env.eval(fast.rowFunc, b)
			b.Release()
			if g, w := renderValue(got)+fmt.Sprint(gerr), renderValue(want)+fmt.Sprint(werr); g != w {
				t.Errorf("schema %q, input %q: vectorized %s, row function %s", schema, c, g, w)
			}
		}
	}
}

func TestToJSONStructMatchesRowFunction(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	b, vals := jsonCasesBatch(env)
	defer b.Release()
	for _, schema := range jsonFastSchemas {
		parsed := mustBind(t, "from_json", Options{}, col(0, "v", sqltypes.StringType), lit(schema, sqltypes.StringType))
		e := mustBind(t, "to_json", Options{}, parsed)
		fast, ok := e.(*toJSONStruct)
		if !ok {
			t.Fatalf("to_json of a struct bound to %T", e)
		}
		assertSameRows(t, env, fast, fast.rowFunc, b, vals, schema)
	}
}

func TestToJSONStructSpecialValues(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	st := sqltypes.StructType(
		sqltypes.Field{Name: "d", Type: sqltypes.DoubleType, Nullable: true},
		sqltypes.Field{Name: "f", Type: sqltypes.FloatType, Nullable: true},
		sqltypes.Field{Name: "s", Type: sqltypes.StringType, Nullable: true},
		sqltypes.Field{Name: "we\"ird", Type: sqltypes.BooleanType, Nullable: true},
		sqltypes.Field{Name: "n", Type: sqltypes.NullType, Nullable: true})
	rows := []any{
		[]any{nan(), float32(1.5), "plain", true, nil},
		[]any{1e300, float32(1e-7), "<&>\u2028\u2029\x01\"\\", false, nil},
		[]any{-1.0 / zero(), nil, "\xff bad", nil, nil},
		[]any{nil, nil, nil, nil, nil},
		nil,
	}
	b := env.batch([]sqltypes.Field{{Name: "r", Type: st, Nullable: true}}, rows)
	defer b.Release()
	e := mustBind(t, "to_json", Options{}, col(0, "r", st)).(*toJSONStruct)
	assertSameRows(t, env, e, e.rowFunc, b, rows, "special values")
	got, err := env.eval(e, b)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != `{"d":"NaN","f":1.5,"s":"plain","we\"ird":true}` || got[3] != `{}` || got[4] != nil {
		t.Errorf("got %#v", got)
	}
}

func zero() float64 { return 0 }

func TestJSONIntIsParseInt(t *testing.T) {
	for _, text := range []string{"0", "-0", "7", "-7", "123456789012345678", "-123456789012345678",
		"1234567890123456789", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
		"99999999999999999999", "1.5", "1e3", "-", ""} {
		got, gerr := jsonInt([]byte(text))
		want, werr := strconv.ParseInt(text, 10, 64)
		if got != want || (gerr == nil) != (werr == nil) {
			t.Errorf("jsonInt(%q) = %d, %v; ParseInt: %d, %v", text, got, gerr, want, werr)
		}
	}
}

// renderValue prints a Go value of the sqltypes conventions, maps by content.
func renderValue(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = renderValue(it)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case *sqltypes.MapValue:
		return "map" + renderValue(x.Keys) + renderValue(x.Values)
	}
	return fmt.Sprintf("%#v", v)
}

// from_json(CAST(value AS STRING)) over a binary column (Kafka's value) reads the bytes
// without the cast's copy; the rows are the row function's.
func TestFromJSONStructOverBinaryCast(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	cases := jsonFastCases()[:500]
	vals := make([]any, len(cases)+1)
	for i, c := range cases {
		vals[i] = []byte(c)
	}
	b := env.batch([]sqltypes.Field{{Name: "value", Type: sqltypes.BinaryType, Nullable: true}}, vals)
	defer b.Release()
	cast, err := NewCast(col(0, "value", sqltypes.BinaryType), sqltypes.StringType, plan.CastANSI, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	fast := mustBind(t, "from_json", Options{}, cast, lit(jsonFastSchemas[0], sqltypes.StringType)).(*fromJSONStruct)
	assertSameRows(t, env, fast, fast.rowFunc, b, vals, "binary input")
}

// BenchmarkFromJSONToJSON: to_json(from_json(CAST(value AS STRING))) over 4096 Kafka-shaped
// records (~100 bytes), vectorized against the row functions; rec/s.
func BenchmarkFromJSONToJSON(b *testing.B) {
	mem := memory.NewGoAllocator()
	ctx := &Context{Mem: mem, Location: time.UTC, ANSI: true}
	vals := make([]any, 4096)
	for i := range vals {
		vals[i] = fmt.Appendf(nil, `{"id":%d,"ts":1764455000000000,"user":"user-%05d","kind":"click","amount":%d.5,"note":"note-%08d"}`, i, i, i, i*7919)
	}
	arr := BuildArray(mem, sqltypes.BinaryType, "UTC", vals)
	batch := array.NewRecordBatch(sqltypes.ToArrowSchema([]sqltypes.Field{{Name: "value", Type: sqltypes.BinaryType, Nullable: true}}, "UTC"), []arrow.Array{arr}, int64(len(vals)))
	arr.Release()
	defer batch.Release()
	cast, err := NewCast(&Column{Index: 0, Name: "value", T: sqltypes.BinaryType, Null: true}, sqltypes.StringType, plan.CastANSI, Options{ANSI: true})
	if err != nil {
		b.Fatal(err)
	}
	from, err := Bind("from_json", []Expr{cast, NewLiteral(jsonFastSchemas[0], sqltypes.StringType)}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	to, err := Bind("to_json", []Expr{from}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	rowFrom := from.(*fromJSONStruct).rowFunc
	rowTo := strict("to_json", []Expr{rowFrom}, sqltypes.StringType, to.(*toJSONStruct).fn)
	for _, c := range []struct {
		name string
		e    Expr
	}{{"vectorized", to}, {"rowFunctions", rowTo}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				out, err := c.e.Eval(ctx, batch)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			b.ReportMetric(float64(b.N*len(vals))/b.Elapsed().Seconds(), "rec/s")
		})
	}
}
